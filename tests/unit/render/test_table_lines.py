"""The streamed table writes a group's rows with one format and one strip a line (issue #29):
the same text as laying each row out on its own, for ASCII and non-ASCII cells, empty last
cells (the strip takes earlier padding too) and on a terminal where cells wrap or are cut."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from kgroup.render.model import ELLIPSIS, NUMBER, TEXT, Column
from kgroup.render.stream import _Layout

COLUMNS = [
    Column("group"),
    Column("n", justify="right", kind=NUMBER),
    Column("host", kind=TEXT, cut=ELLIPSIS),
    Column("client", kind=TEXT),
]
ROWS = [
    ["g1", "7", "/10.0.0.1", "c-1"],
    ["g2", "12345", "", ""],
    ["g3", "0", "hôte-très-long", "client id that is long"],
    ["g4", "1", "h", "c "],
]


@pytest.mark.parametrize("terminal", [False, True])
@pytest.mark.parametrize("rows", [ROWS, ROWS[:2], ROWS[1:2], [ROWS[2]]], ids=str)
def test_lines_of_rows_are_each_row_s(terminal: bool, rows: list[list[str]]) -> None:
    layout = _Layout(COLUMNS, [3, 5, 6, 8], terminal, cell_len)
    expected = "".join(layout.row(list(cells)) for cells in rows)
    assert layout.lines([list(cells) for cells in rows]) == expected
