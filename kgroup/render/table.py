"""Table writer (rich). No colour when piped; None shows as `-`; no trailing blanks."""

from __future__ import annotations

import io
import shutil
from typing import Any, TextIO

from kgroup.render.output import Output
from kgroup.render.safe import terminal_safe


def cell_text(value: Any) -> str:
    """How one value reads in a table."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return terminal_safe(str(value))


def write_table(output: Output, out: TextIO, *, color: bool) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(
        file=buffer,
        no_color=not color,
        force_terminal=color,
        highlight=False,
        width=shutil.get_terminal_size().columns if color else 10_000,
        soft_wrap=not color,
    )
    if output.title:
        console.print(terminal_safe(output.title), style="bold" if color else None, markup=False)
    if not output.rows:
        console.print(terminal_safe(output.empty_message or "(none)"), markup=False)
    else:
        table = Table(
            box=box.SIMPLE_HEAD if color else None,
            show_edge=False,
            pad_edge=False,
            header_style="bold" if color else None,
            show_header=True,
        )
        for column in output.columns:
            table.add_column(column.title, justify=column.justify, no_wrap=True)  # type: ignore[arg-type]
        for row in output.rows:
            table.add_row(*(cell_text(row.get(c.key)) for c in output.columns))
        console.print(table)
    for line in output.footer:
        console.print(terminal_safe(line), markup=False)
    # rich pads every cell to its column width; trailing blanks only get in the way of pipes.
    out.write("".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines()))
