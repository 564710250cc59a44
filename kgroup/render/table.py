"""Table writer (rich). No colour when piped; None shows as `-`; no trailing blanks.

Width: a pipe or a file gets every column at its full width, one line per row. A terminal gets
the table fitted to its width by narrowing free-text columns only (Column.kind TEXT: wrapped, or
cut with a visible `…`); key and number columns are never cut. When the table still does not fit,
it is printed wider than the terminal rather than hiding data.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from typing import Any, TextIO

from kgroup.render.model import ELLIPSIS, TEXT, Column, Output
from kgroup.render.safe import terminal_safe

TEXT_MIN_WIDTH = 12  # a narrowed free-text column keeps at least this much, its header,
TEXT_WORD_WIDTH = 24  # and its longest word up to this (an address or a number is not split)


def cell_text(value: Any) -> str:
    """How one value reads in a table."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return terminal_safe(str(value))


def column_cell(column: Column, value: Any) -> str:
    """The cell of `value` in `column` (its table-only `display` format applied)."""
    if value is not None and column.display is not None:
        shown = column.display(value)
        if shown is not None:
            return terminal_safe(shown)
    return cell_text(value)


def terminal_width(out: TextIO) -> int | None:
    """The width of the terminal `out` writes to (COLUMNS wins, as in shutil); None when `out`
    is not a terminal, so pipes and files keep every row on one line."""
    try:
        if not out.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    try:
        columns = int(os.environ.get("COLUMNS", ""))
        if columns > 0:
            return columns
    except ValueError:
        pass
    try:
        return os.get_terminal_size(out.fileno()).columns or 80
    except (AttributeError, OSError, ValueError):
        return 80


def fit_widths(
    columns: Sequence[Column], natural: Sequence[int], available: int, words: Sequence[int]
) -> list[int]:
    """Content widths of `columns` that fit `available` cells if they can. A column starts at
    its `natural` width (its widest cell); TEXT columns are narrowed, widest first, down to a
    floor; the others keep their natural width. The floors, loosest first, until one fits: the
    header, TEXT_MIN_WIDTH and the longest word (`words`, up to TEXT_WORD_WIDTH); the header
    and TEXT_MIN_WIDTH (long words fold); the header alone. When none fits, the first: the sum
    exceeds `available` and the table overflows."""
    stages = (
        [max(TEXT_MIN_WIDTH, min(w, TEXT_WORD_WIDTH)) for w in words],
        [TEXT_MIN_WIDTH] * len(columns),
        [0] * len(columns),
    )
    first: list[int] | None = None
    for minimums in stages:
        floors = [
            max(len(c.title), min(n, least)) if c.role == TEXT else n
            for c, n, least in zip(columns, natural, minimums, strict=True)
        ]
        widths = _narrowed(natural, floors, available)
        if sum(widths) <= available:
            return widths
        first = first or widths
    return first or list(natural)


def _narrowed(natural: Sequence[int], floors: Sequence[int], available: int) -> list[int]:
    """`natural` narrowed, widest first, never below `floors`, until the sum is `available`."""
    widths = list(natural)
    excess = sum(widths) - available
    while excess > 0:
        narrowable = [i for i, w in enumerate(widths) if w > floors[i]]
        if not narrowable:
            break
        top = max(widths[i] for i in narrowable)
        widest = [i for i in narrowable if widths[i] == top]
        below = [widths[i] for i in narrowable if widths[i] < top]
        level = max([*below, *(floors[i] for i in widest)])
        room = (top - level) * len(widest)
        if room >= excess:
            each, extra = divmod(excess, len(widest))
            for rank, i in enumerate(widest):
                widths[i] -= each + (1 if rank < extra else 0)
            excess = 0
        else:
            for i in widest:
                widths[i] = level
            excess -= room
    return widths


def column_widths(
    columns: Sequence[Column], cells: Sequence[Sequence[str]], available: int | None
) -> tuple[list[int], list[int]]:
    """Each column's natural width for rows of `cells` (its widest cell or title) and its width
    narrowed by `fit_widths` to `available` cells (the terminal's less the gaps; None: as is)."""
    from rich.cells import cell_len

    natural = [
        max([cell_len(c.title), *(cell_len(r[i]) for r in cells)]) for i, c in enumerate(columns)
    ]
    if available is None:
        return natural, natural
    words = [
        max((cell_len(word) for r in cells for word in r[i].split()), default=0)
        for i in range(len(columns))
    ]
    return natural, fit_widths(columns, natural, available, words)


def write_table(output: Output, out: TextIO, *, color: bool, width: int | None = None) -> None:
    """Print `output` as a table; `width` is the terminal's (None: unlimited, for pipes)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    columns = list(output.columns)
    cells = [[column_cell(c, row.get(c.key)) for c in columns] for row in output.rows]
    # two cells between columns: rich's padding of one each side (none at the edges); with the
    # SIMPLE_HEAD box (terminals), its blank divider and collapsed padding.
    gaps = max(len(columns) - 1, 0) * 2
    natural, widths = column_widths(columns, cells, None if width is None else width - gaps)
    table_width = sum(widths) + gaps
    console = Console(
        file=(buffer := io.StringIO()),
        no_color=not color,
        force_terminal=color,
        highlight=False,
        # never narrower than the table: overflow rather than cut a key or number column
        width=max(width or 0, table_width, 1),
        soft_wrap=width is None,
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
            collapse_padding=color,
            header_style="bold" if color else None,
            show_header=True,
        )
        for column, natural_width, fitted in zip(columns, natural, widths, strict=True):
            narrowed = fitted < natural_width
            table.add_column(
                Text(column.title),
                justify=column.justify,  # type: ignore[arg-type]
                width=fitted,
                no_wrap=not narrowed or column.cut == ELLIPSIS,
                overflow="ellipsis" if column.cut == ELLIPSIS else "fold",
            )
        for row in cells:
            table.add_row(*(Text(cell) for cell in row))  # Text: no markup in cluster data
        console.print(table)
    for line in output.footer:
        console.print(terminal_safe(line), markup=False)
    # rich pads every cell to its column width; trailing blanks only get in the way of pipes.
    out.write("".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines()))
