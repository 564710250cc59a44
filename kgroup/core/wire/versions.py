"""Which version of an API kgroup sends to a broker: the highest of the versions kgroup speaks
(`kgroup.protocol.messages`'s API table) that the broker's ApiVersions answer offers."""

from __future__ import annotations

from kgroup.protocol.model import Api

__all__ = ["choose_version"]


def choose_version(api: Api, broker: dict[int, tuple[int, int]]) -> int | None:
    """The highest version both sides speak, or None (the broker lacks the API or overlap)."""
    low_high = broker.get(api.key)
    if low_high is None:
        return None
    low, high = low_high
    # policy: the broker's offered range against the versions kgroup chose to speak; no field
    # range is restated here
    usable = [v for v in api.versions if low <= v <= high]
    return max(usable) if usable else None
