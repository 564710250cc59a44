"""Which versions of a wire message have a field, as its declaration says
(kgroup/protocol/definitions/wire/, tabled in kgroup.protocol.generated.field_versions).

The wire client asks here instead of restating a declaration's range (`version >= 10`), so a
request is built, and an answer read, by the same ranges the generated reader and writer use.
"""

from __future__ import annotations

from kgroup.protocol.generated.field_versions import FIELD_VERSIONS

__all__ = ["field_versions", "has_field"]


def field_versions(message: str, field: str) -> tuple[int, int]:
    """The inclusive (first, last) versions of `message`'s `field` (a dotted path for a field
    inside a struct: `"Groups.Topics"`); KeyError for a name the declarations lack."""
    return FIELD_VERSIONS[message][field]


def has_field(message: str, field: str, version: int) -> bool:
    """Whether version `version` of `message` (`"OffsetFetchRequest"`) has `field`."""
    low, high = FIELD_VERSIONS[message][field]
    return low <= version <= high
