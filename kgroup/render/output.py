"""The Output model and the dispatch to each mode's writer."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

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


def color_enabled(no_color: bool, stream: TextIO) -> bool:
    """Colour only on a terminal, and never with --no-color or NO_COLOR set."""
    if no_color or os.environ.get("NO_COLOR", "") != "":
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def render(
    output: Output, mode: str, *, no_color: bool = False, stream: TextIO | None = None
) -> None:
    """Print `output` to `stream` (stdout) in `mode`."""
    out = stream or sys.stdout
    if mode == "json":
        from kgroup.render.jsonout import write_json

        write_json({"schema_version": SCHEMA_VERSION, **output.document}, out)
    elif mode == "jsonl":
        from kgroup.render.jsonout import write_jsonl

        items = output.jsonl_items if output.jsonl_items is not None else output.rows
        write_jsonl(items, out)
    elif mode == "csv":
        from kgroup.render.csvout import write_csv

        write_csv(output.columns, output.rows, out)
    else:
        from kgroup.render.table import terminal_width, write_table

        write_table(output, out, color=color_enabled(no_color, out), width=terminal_width(out))


def stderr_console(no_color: bool = False):  # -> rich.console.Console
    """A rich console on stderr for notes, warnings and progress."""
    from rich.console import Console

    return Console(
        stderr=True,
        no_color=not color_enabled(no_color, sys.stderr),
        highlight=False,
        soft_wrap=True,
    )
