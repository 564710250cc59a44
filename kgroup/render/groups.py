"""`kgroup list` as a Stream: a row a group (state, type, protocol type, members)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kgroup.render.model import Column
from kgroup.render.stream import Part, Stream

LIST_COLUMNS = [
    Column("group"),
    Column("state"),
    Column("type"),
    Column("protocol_type"),
    Column("members", justify="right"),
]


def list_stream(rows: Iterable[dict[str, Any]]) -> Stream:
    """The groups, one row (and one JSON element) each."""
    return Stream(
        parts=(Part(rows=[row], item=row) for row in rows),
        columns=LIST_COLUMNS,
        empty_message="No groups.",
    )
