"""Segment files and partition directories: ordering, framing, torn tails, zero padding.

Source of truth: Kafka's `FileLogInputStream` (stop below 17 bytes; a batch length below the
minimum is corruption, typically zero padding of a pre-allocated segment; a batch past the end
of the file is a torn write), `LocalLog` file naming (20-digit base offsets, `-delete`,
`-future`, `-stray` directories), `DumpLogSegments` ("Found N invalid bytes at the end of ...").
OFFSETS_FORMAT.md §6.4.

Pure: the caller supplies a `read(n) -> bytes` function (an open file's `read`), so this module
never opens anything itself. Memory stays bounded by the chunk size plus the largest batch.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kgroup.offsets import records
from kgroup.offsets.records import Batch, BatchError

CHUNK_SIZE = 4 * 1024 * 1024

_LOG_NAME = re.compile(r"^(\d{20})\.log$")
_PARTITION_DIR = re.compile(r"^(?P<topic>.+)-(?P<partition>\d+)$")
_SKIP_DIR_SUFFIX = re.compile(r"\.[0-9a-f]{32}-(delete|future|stray)$|-(delete|future|stray)$")

CORRUPT = "corrupt"
TORN_TAIL = "torn_tail"
ZERO_PADDING = "zero_padding"


@dataclass(frozen=True)
class Problem:
    """Something wrong or notable in the input, with the file and byte position."""

    source: str
    position: int | None
    kind: str  # corrupt | torn_tail | zero_padding
    message: str

    @property
    def fatal(self) -> bool:
        """Corruption stops decoding unless --skip-corrupt; torn tails and padding do not."""
        return self.kind == CORRUPT

    def describe(self) -> str:
        where = f" at byte {self.position}" if self.position is not None else ""
        return f"{self.source}{where}: {self.message}"


def log_files_in_order(names: Iterable[str]) -> list[str]:
    """The `<base>.log` names of a partition directory, in ascending base-offset order."""
    logs = [(int(m.group(1)), n) for n in names if (m := _LOG_NAME.match(n))]
    return [n for _, n in sorted(logs)]


def partition_of_dir(name: str) -> tuple[str, int] | None:
    """(topic, partition) of a partition directory name; None for deleted/moved/stray ones."""
    if _SKIP_DIR_SUFFIX.search(name):
        return None
    m = _PARTITION_DIR.match(name)
    if not m:
        return None
    return m.group("topic"), int(m.group("partition"))


FastHook = Callable[[bytes, int, int], "tuple[int, Any] | None"]


def read_batches(
    read: Callable[[int], bytes],
    source: str,
    *,
    chunk_size: int = CHUNK_SIZE,
    fast: FastHook | None = None,
) -> Iterator[Batch | Problem | Any]:
    """Batches of one segment file, in order, interleaved with the problems found.

    CRC mismatches and unreadable batches are yielded as `corrupt` problems (the batch is then
    skipped); a bad batch length stops the file (there is no way to find the next batch).

    `fast(buf, p, base)` (the compiled scanner, see scan/local.py) may take the complete
    batches at buf[p:] (buf[0] is at file position `base`) itself: it returns (position after
    them, item) and the item is yielded in their place, or None to leave the batch at p to
    this loop.
    """
    buf = b""
    base = 0  # file position of buf[0]
    p = 0
    eof = False
    fast_tried = (-1, -1)  # (file position, bytes available) of the last refused fast call

    def refill(need: int) -> None:
        nonlocal buf, base, p, eof
        chunk = read(max(chunk_size, need))
        if not chunk:
            eof = True
        buf = buf[p:] + chunk
        base += p
        p = 0

    while True:
        if len(buf) - p < records.HEADER_MIN and not eof:
            refill(records.HEADER_MIN)
            continue
        left = len(buf) - p
        if left == 0:
            return
        if left < records.HEADER_MIN:
            yield _tail_problem(buf[p:], source, base + p)
            return
        if fast is not None and fast_tried != (base + p, left):
            got = fast(buf, p, base)
            if got is not None:
                p, item = got
                yield item
                continue
            fast_tried = (base + p, left)
        length = records._I32.unpack_from(buf, p + 8)[0]
        magic = buf[p + 16]
        minimum = records.V2_MIN_LENGTH if magic == 2 else records.LEGACY_MIN_LENGTH
        if length < minimum:
            yield from _bad_length(read, buf[p:], source, base + p, length, minimum, chunk_size)
            return
        total = length + records.LOG_OVERHEAD
        if left < total:
            if not eof:
                refill(total)
                continue
            yield _tail_problem(buf[p:], source, base + p)
            return
        position = base + p
        data = buf[p : p + total]
        p += total
        try:
            batch = Batch(data, position)
            batch.check_crc()
        except BatchError as exc:
            yield Problem(source, position, CORRUPT, exc.reason)
            continue
        yield batch


def _tail_problem(rest: bytes, source: str, position: int) -> Problem:
    if not rest.strip(b"\x00"):
        return Problem(source, position, ZERO_PADDING, f"{len(rest)} bytes of zero padding")
    return Problem(
        source, position, TORN_TAIL, f"{len(rest)} trailing bytes (a torn write at the end)"
    )


def _bad_length(
    read: Callable[[int], bytes],
    rest: bytes,
    source: str,
    position: int,
    length: int,
    minimum: int,
    chunk_size: int,
) -> Iterator[Problem]:
    """Below-minimum batch length: zero padding if the rest of the file is zeros, else corrupt."""
    size = len(rest)
    zeros = not rest.strip(b"\x00")
    while True:
        chunk = read(chunk_size)
        if not chunk:
            break
        size += len(chunk)
        if zeros and chunk.strip(b"\x00"):
            zeros = False
    if zeros:
        yield Problem(source, position, ZERO_PADDING, f"{size} bytes of zero padding")
    else:
        yield Problem(
            source,
            position,
            CORRUPT,
            f"batch length {length} below the minimum {minimum}; "
            f"{size} bytes to the end of the file cannot be read",
        )
