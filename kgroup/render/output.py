"""The Output model and the dispatch to each mode's writer."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

MODES = ("table", "json", "jsonl", "csv")
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Column:
    """A column of the table and CSV views; `key` is the row dict key and the CSV header."""

    key: str
    header: str | None = None
    justify: str = "left"

    @property
    def title(self) -> str:
        return self.header if self.header is not None else self.key.upper()


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
        from kgroup.render.table import write_table

        write_table(output, out, color=color_enabled(no_color, out))


def stderr_console(no_color: bool = False):  # -> rich.console.Console
    """A rich console on stderr for notes, warnings and progress."""
    from rich.console import Console

    return Console(
        stderr=True,
        no_color=not color_enabled(no_color, sys.stderr),
        highlight=False,
        soft_wrap=True,
    )
