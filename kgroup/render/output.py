"""The dispatch of an Output to each mode's writer (the model is in `kgroup.render.model`)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, TextIO

from kgroup.render.model import (  # noqa: F401  (re-exported: the render package's interface)
    CUTS,
    ELLIPSIS,
    KEY,
    KINDS,
    MODES,
    NUMBER,
    SCHEMA_VERSION,
    TEXT,
    WRAP,
    Column,
    Output,
)

if TYPE_CHECKING:  # the stream writer is imported where a stream is written: not for --help
    from kgroup.render.stream import Stream


def color_enabled(no_color: bool, stream: TextIO) -> bool:
    """Colour only on a terminal, and never with --no-color or NO_COLOR set."""
    if no_color or os.environ.get("NO_COLOR", "") != "":
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def render(
    output: Output | Stream, mode: str, *, no_color: bool = False, stream: TextIO | None = None
) -> None:
    """Print `output` (whole, or a Stream written as it comes) to `stream` (stdout) in `mode`."""
    out = stream or sys.stdout
    if not isinstance(output, Output):  # a Stream
        from kgroup.render.stream import write_stream
        from kgroup.render.table import terminal_width

        table = mode not in ("json", "jsonl", "csv")
        write_stream(
            output,
            mode,
            out,
            color=table and color_enabled(no_color, out),
            width=terminal_width(out) if table else None,
        )
        return
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
