"""Input planning: segment files -> byte ranges aligned to batch boundaries, and scopes.

Source of truth: Kafka's `FileLogInputStream` framing (baseOffset int64, length int32, the
batch follows; magic 0/1 message sets frame the same way), OFFSETS_FORMAT.md §6.4.

Boundaries are found by walking the batches with the local reader's framing rules (header,
offsets, CRC; nothing is decompressed), so that every range starts where a reader of the
whole file would.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from kgroup.offsets import segments as seg
from kgroup.scan.local import SegmentInput

SPLIT_BYTES = 128 * 1024 * 1024  # like spark.sql.files.maxPartitionBytes


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

    Walks the batches from the start with the local reader's own rules
    (`segments.batch_starts`: header, offsets, CRC) and cuts only at batches it has checked,
    stopping at the first frame that is not one (a torn tail, zero padding, corruption):
    that frame and all after it stay in the last range, whose reader reports and skips
    them exactly as a reader of the whole file does. A reader of a range thus starts at a
    batch the whole-file reader also starts at, in the same state. Position 0 is not
    included.
    """
    cuts: list[int] = []
    next_cut = every
    with open(path, "rb") as fh:
        for pos in seg.batch_starts(fh.read):
            if pos >= next_cut:
                cuts.append(pos)
                next_cut = pos + every
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
