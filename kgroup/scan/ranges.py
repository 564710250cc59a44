"""Input planning: segment files -> byte ranges aligned to batch boundaries, and scopes.

Source of truth: Kafka's `FileLogInputStream` framing (baseOffset int64, length int32, the
batch follows; magic 0/1 message sets frame the same way), OFFSETS_FORMAT.md §6.4.

Boundaries are found by walking batch headers only (12 bytes each, read with `os.pread`):
no batch is decompressed or CRC-checked here; the reader of each range does that.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from itertools import pairwise

from kgroup.offsets import records
from kgroup.scan.local import SegmentInput

SPLIT_BYTES = 128 * 1024 * 1024  # like spark.sql.files.maxPartitionBytes
_WINDOW = 64 * 1024


@dataclass(frozen=True)
class Split:
    """Bytes [start, end) of one segment file: one Spark input partition of the record stream."""

    path: str
    source: str
    partition: int | None
    file_index: int
    start: int
    end: int

    @property
    def item(self) -> SegmentInput:
        return SegmentInput(self.path, self.source, self.partition, self.end - self.start)


def batch_boundaries(path: str, every: int) -> list[int]:
    """Batch start positions at which to cut `path` into ranges of about `every` bytes.

    Walks headers from the start; stops at the first frame that cannot be a batch (a torn
    tail, zero padding, corruption), which then stays in the last range for its reader to
    report. Position 0 is not included.
    """
    cuts: list[int] = []
    size = os.path.getsize(path)
    fd = os.open(path, os.O_RDONLY)
    try:
        pos = 0
        next_cut = every
        buf = b""
        buf_at = 0
        while size - pos >= records.HEADER_MIN:
            rel = pos - buf_at
            if rel < 0 or rel + records.HEADER_MIN > len(buf):
                buf = os.pread(fd, _WINDOW, pos)
                buf_at = pos
                rel = 0
                if len(buf) < records.HEADER_MIN:
                    break
            (length,) = records._I32.unpack_from(buf, rel + 8)
            magic = buf[rel + 16]
            minimum = records.V2_MIN_LENGTH if magic == 2 else records.LEGACY_MIN_LENGTH
            if length < minimum or magic > 2:
                break
            total = length + records.LOG_OVERHEAD
            if pos + total > size:
                break
            if pos >= next_cut:
                cuts.append(pos)
                next_cut = pos + every
            pos += total
    finally:
        os.close(fd)
    return cuts


def plan_splits(inputs: list[SegmentInput], split_bytes: int = SPLIT_BYTES) -> list[Split]:
    """One split per file, or several for files larger than `split_bytes`, in input order."""
    out: list[Split] = []
    for index, item in enumerate(inputs):
        cuts = batch_boundaries(item.path, split_bytes) if item.size > split_bytes else []
        bounds = [0, *cuts, item.size]
        for start, end in pairwise(bounds):
            out.append(Split(item.path, item.source, item.partition, index, start, end))
    return out


@dataclass(frozen=True)
class Scope:
    """The files of one replay scope (a partition number, or one file when it has none)."""

    order: int  # index of its first file in the input
    items: tuple[SegmentInput, ...]


def plan_scopes(inputs: list[SegmentInput]) -> list[Scope]:
    """Files grouped by `__consumer_offsets` partition (as the local replay scopes them)."""
    scopes: dict[tuple[int, int | str], tuple[int, list[SegmentInput]]] = {}
    for index, item in enumerate(inputs):
        key = (0, item.partition) if item.partition is not None else (1, item.source)
        scopes.setdefault(key, (index, []))[1].append(item)
    return [Scope(order, tuple(items)) for order, items in scopes.values()]
