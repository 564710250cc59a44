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


_PLAIN = frozenset({int, float, type(None)})  # written by the csv module as they are


def _lines(keys: Sequence[str], rows: Iterable[dict[str, Any]]) -> Iterator[list[Any]]:
    """Each row's fields in `keys` order: ints, floats and None as they are (the csv module
    writes them as `_cell` would: str() of a number, blank for None), the rest as `_cell`.

    One list comprehension a row (no Python-level loop or call per plain cell); a text's cell
    is remembered (groups, topics, hosts repeat on every row)."""
    known: dict[str, str] = {}
    get = known.get

    def text(value: str) -> str:
        if len(known) >= _KNOWN_MAX:
            known.clear()
        cell = known[value] = csv_safe(value)
        return cell

    plain = _PLAIN
    for row in rows:
        yield [
            value
            if value.__class__ in plain
            else ((get(value) or text(value)) if value.__class__ is str else _cell(value))
            for value in map(row.get, keys)
        ]


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return csv_safe(str(value))
