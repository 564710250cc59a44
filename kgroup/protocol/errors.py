"""The errors of reading and writing Kafka's message formats (no kgroup import: a leaf).

`kgroup.core.wire` turns a `ProtocolError` from a broker's bytes into the error a user sees
(exit 1 with a hint); `kgroup.offsets` reads `__consumer_offsets` with its own error type.
"""

from __future__ import annotations


class ProtocolError(Exception):
    """Bytes that do not follow the Kafka protocol: says what was read, where, and why."""

    hint = (
        "the broker answered with bytes kgroup cannot decode; retry, or report the broker version"
    )

    def __init__(self, reason: str, *, position: int, field: str = "") -> None:
        where = f" reading {field}" if field else ""
        self.message = f"malformed Kafka protocol data at byte {position}{where}: {reason}"
        super().__init__(self.message)
        self.position = position
        self.field = field
        self.reason = reason


class TrailingBytesError(ProtocolError):
    """Bytes left after a complete message."""


class ProtocolWriteError(ValueError):
    """Values that cannot be written at the requested version (a kgroup bug, not bad input)."""
