"""The fast per-row cell makers of the CSV writer and the streamed table (issue #29: one
comprehension a row, per-column caches) give every value the cell the slow path gives it."""

from __future__ import annotations

import csv
import io
from typing import Any

from kgroup.render.csvout import _cell, _lines, write_csv
from kgroup.render.model import Column
from kgroup.render.safe import csv_safe
from kgroup.render.stream import _cell_maker
from kgroup.render.table import column_cell

VALUES: list[Any] = [0, 7, -3, 2.5, None, True, False, "", "orders", "=cmd()", "+1", ["a"], "é"]


def _columns() -> list[Column]:
    return [
        Column("plain"),
        Column("shown", display=lambda v: f"<{v}>" if isinstance(v, int) else None),
    ]


def test_table_cells_are_column_cell_of_each_value() -> None:
    columns = _columns()
    cells = _cell_maker(columns, column_cell)
    for _ in range(2):  # the second pass is served by the caches
        for value in VALUES:
            got = cells({"plain": value, "shown": value})
            want = [
                "-" if value is None else column_cell(columns[0], value),
                "-" if value is None else column_cell(columns[1], value),
            ]
            assert got == want, value
    # one text, two columns with different formats: the caches are the columns' own
    cells = _cell_maker([Column("a"), Column("b", display=lambda v: "B")], column_cell)
    assert cells({"a": "x", "b": "x"}) == ["x", "B"]


def test_csv_fields_are_the_cells_of_each_value() -> None:
    keys = ["v", "missing"]
    rows = [{"v": value} for value in VALUES] * 2
    for row, line in zip(rows, _lines(keys, rows), strict=True):
        value = row["v"]
        plain = value is None or type(value) in (int, float)
        expected = value if plain else (csv_safe(value) if type(value) is str else _cell(value))
        assert line == [expected, None], value
    out = io.StringIO()
    write_csv([Column("v")], [{"v": "=cmd()"}, {"v": True}, {"v": None}, {"v": 2.5}], out)
    assert list(csv.reader(io.StringIO(out.getvalue()))) == [
        ["v"],
        ["'=cmd()"],  # a formula cell is quoted (csv_safe)
        ["true"],
        [""],
        ["2.5"],
    ]
