"""What a command prints, independent of the mode: columns, rows, the JSON document."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

MODES = ("table", "json", "jsonl", "csv")
SCHEMA_VERSION = 1

# What a narrow terminal may do to a column (kgroup/render/table.py):
KEY = "key"  # names and ids a row is found by (group, topic, time): never cut
NUMBER = "number"  # partitions, offsets, lag, counts: never cut
TEXT = "text"  # free text (value, metadata, message, client id, host): may be narrowed
KINDS = (KEY, NUMBER, TEXT)
WRAP = "wrap"  # a narrowed TEXT column wraps onto more lines: nothing is lost
ELLIPSIS = "ellipsis"  # a narrowed TEXT column is cut, with a visible `…`
CUTS = (WRAP, ELLIPSIS)


@dataclass(frozen=True)
class Column:
    """A column of the table and CSV views; `key` is the row dict key and the CSV header.

    `kind` says whether a terminal too narrow for the table may narrow the column: only TEXT
    columns are (wrapped or cut with `…` as `cut` says); KEY and NUMBER columns are never cut,
    the table gets wider than the terminal instead. Unset: NUMBER when right-justified, else KEY.
    `display` formats a value for tables only (JSON and CSV keep the value as it is).
    """

    key: str
    header: str | None = None
    justify: str = "left"
    kind: str | None = None
    cut: str = WRAP
    display: Callable[[Any], str | None] | None = None

    def __post_init__(self) -> None:
        if self.kind is not None and self.kind not in KINDS:
            raise ValueError(f"column {self.key}: kind {self.kind!r} is not one of {KINDS}")
        if self.cut not in CUTS:
            raise ValueError(f"column {self.key}: cut {self.cut!r} is not one of {CUTS}")

    @property
    def title(self) -> str:
        return self.header if self.header is not None else self.key.upper()

    @property
    def role(self) -> str:
        """The kind, defaulted: right-justified columns hold numbers."""
        if self.kind is not None:
            return self.kind
        return NUMBER if self.justify == "right" else KEY


@dataclass
class Output:
    """What a command prints, in every mode.

    `rows` feed table and CSV; `document` is the JSON document (schema_version is added);
    `jsonl_items` are the JSON Lines objects (default: the rows); `footer` lines follow the table.
    """

    columns: Sequence[Column]
    rows: Sequence[dict[str, Any]]
    document: dict[str, Any]
    jsonl_items: Sequence[dict[str, Any]] | None = None
    footer: Sequence[str] = field(default_factory=tuple)
    title: str | None = None
    empty_message: str | None = None


PARTITION_KEY_COLUMNS = (
    Column("group", kind=KEY),
    Column("topic", kind=KEY),
    Column("partition", justify="right", kind=NUMBER),
)
"""The columns a row of a per-partition view (describe offsets, reset plans, check) is found by."""
