"""CSV writer: a header of column keys, then one line per row; None is an empty field."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TextIO

from kgroup.render.safe import csv_safe

_KNOWN_MAX = 65536  # distinct texts whose cells are remembered (groups, topics, hosts repeat)


def write_csv(columns: Sequence[Any], rows: Iterable[dict[str, Any]], out: TextIO) -> None:
    writer = csv.writer(out, lineterminator="\n")
    keys = [c.key for c in columns]
    writer.writerow(keys)
    writer.writerows(_lines(keys, rows))


def _lines(keys: Sequence[str], rows: Iterable[dict[str, Any]]) -> Iterator[list[Any]]:
    """Each row's fields in `keys` order: ints, floats and None as they are (the csv module
    writes them as `_cell` would: str() of a number, blank for None), the rest as `_cell`."""
    known: dict[str, str] = {}
    for row in rows:
        line: list[Any] = []
        for value in map(row.get, keys):
            kind = type(value)
            if kind is int or value is None or kind is float:
                line.append(value)
            elif kind is str:
                cell = known.get(value)
                if cell is None:
                    if len(known) >= _KNOWN_MAX:
                        known.clear()
                    cell = known[value] = csv_safe(value)
                line.append(cell)
            else:
                line.append(_cell(value))
        yield line


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return csv_safe(str(value))
