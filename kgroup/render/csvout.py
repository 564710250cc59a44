"""CSV writer: a header of column keys, then one line per row; None is an empty field."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from kgroup.render.safe import csv_safe


def write_csv(columns: Sequence[Any], rows: Iterable[dict[str, Any]], out: TextIO) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([c.key for c in columns])
    for row in rows:
        writer.writerow(["" if row.get(c.key) is None else _cell(row.get(c.key)) for c in columns])


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return csv_safe(str(value))
