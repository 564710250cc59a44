"""How `kgroup decode` words a record it cannot read: the texts its generated readers raise.

Source of truth: the texts `kgroup decode` has always printed (tests pin them) and Kafka's own
sentences for what its generated `read` methods reject (`MessageDataGenerator`).
"""

from __future__ import annotations

from kgroup.protocol.model import java_name
from kgroup.protocol.types import ErrorClass, Wording


class DecodeWording(Wording):
    """`kgroup decode`'s error texts: a field is named as Kafka's generated code names it
    (`ownedPartitions`), fixed-width fields read at once are named together
    (`offset..metadata`), a short read says "truncated", Kafka's own sentences ("non-nullable
    field ...") stand alone at the byte after the length, invalid UTF-8 stays Python's
    UnicodeDecodeError (the decoder words it)."""

    def label(self, path: str, name: str) -> str:
        return java_name(name)

    def truncated(self, size: int, left: int) -> str:
        return "truncated"

    def truncated_length(self, size: int, left: int) -> str:
        return "truncated length"

    def truncated_data(self, size: int, left: int) -> str:
        return f"{size} bytes run past the end"

    def group_label(self, path: str, first: str, last: str) -> str | None:
        return f"{java_name(first)}..{java_name(last)}"

    def bad_utf8(
        self, exc: UnicodeDecodeError, start: int, label: str, error: ErrorClass
    ) -> Exception:
        return exc  # decode.py words it ("invalid UTF-8 (<reason>)")

    def at(self, start: int, after: int, label: str, kafka_text: bool) -> tuple[int, str | None]:
        return after, None if kafka_text else label


WORDING = DecodeWording()
