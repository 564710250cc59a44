"""Segment files and partition directories: ordering, framing, torn tails, zero padding.

Source of truth: Kafka's `FileLogInputStream` (stop below 17 bytes; a batch length below the
minimum is corruption, typically zero padding of a pre-allocated segment; a batch past the end
of the file is a torn write), `LogSegment.recover` (which truncates a segment at its first
invalid batch), `LocalLog` file naming (20-digit base offsets, `-delete`, `-future`, `-stray`
directories), `DumpLogSegments` ("Found N invalid bytes at the end of ..."). OFFSETS_FORMAT.md
§6.4. What a batch is: `framing`.

Only the last frame of a file can be a torn write: one that runs past the end with no batch
after it. Any other frame that is not a batch is corruption, reported with its position; the
reader then resynchronises on the next batch (`framing.candidate` + CRC), saying which bytes
it skipped, so valid batches after damage are never dropped silently.

Pure: the caller supplies a `read(n) -> bytes` function (an open file's `read`), so this module
never opens anything itself. Memory stays bounded by the chunk size plus the largest frame
(`framing.MAX_LENGTH`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kgroup.offsets import framing, records
from kgroup.offsets.records import Batch

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


class _Stream:
    """A file read forward in chunks: `buf[p:]` holds the bytes not consumed yet, `buf[0]` is
    at file position `base`. Memory: a chunk plus the largest frame looked at."""

    def __init__(self, read: Callable[[int], bytes], chunk_size: int) -> None:
        self.read = read
        self.chunk_size = chunk_size
        self.buf = b""
        self.base = 0
        self.p = 0
        self.eof = False

    @property
    def left(self) -> int:
        return len(self.buf) - self.p

    @property
    def position(self) -> int:
        return self.base + self.p

    def fill(self, need: int) -> bool:
        """Read until `need` bytes are buffered from p on; False when the file ends first."""
        if len(self.buf) - self.p >= need:
            return True
        while self.left < need and not self.eof:
            chunk = self.read(max(self.chunk_size, need - self.left))
            if not chunk:
                self.eof = True
                break
            self.buf = self.buf[self.p :] + chunk
            self.base += self.p
            self.p = 0
        return self.left >= need

    def more(self) -> bool:
        """Read one more chunk; False at the end of the file."""
        before = self.left
        self.fill(before + 1)
        return self.left > before


def read_batches(
    read: Callable[[int], bytes],
    source: str,
    *,
    chunk_size: int = CHUNK_SIZE,
    fast: FastHook | None = None,
    resync: bool = True,
    start: int = 0,
) -> Iterator[Batch | Problem | Any]:
    """Batches of one segment file, in order, interleaved with the problems found.

    A frame is a batch when `framing` says so (header, whole in the file, CRC). Otherwise:
    - fewer than 17 bytes, or a frame running past the end of the file, with no batch after
      it: a torn write at the end (`torn_tail`, a note);
    - zeros from a frame to the end of the file: `zero_padding` (a note);
    - anything else: `corrupt`. With `resync` the bytes are skipped up to the next position
      where a batch starts (the problem says which bytes); without it the file stops there
      (the caller is about to fail anyway).

    `fast(buf, p, base)` (the compiled scanner, see scan/local.py) may take the complete
    batches at buf[p:] (buf[0] is at file position `base`) itself: it returns (position after
    them, item) and the item is yielded in their place, or None to leave the batch at p to
    this loop. Its batches get the offset checks here; a run that breaks them is taken again
    up to the first bad batch.

    `start`: the file position of the first byte `read` returns (a range of a file, read from
    a batch start): positions in batches and problems are file positions.
    """
    s = _Stream(read, chunk_size)
    s.base = start
    order = framing.START  # the offsets of the last two batches
    fast_tried = (-1, -1)  # (file position, bytes available) of the last refused fast call
    while True:
        left = len(s.buf) - s.p
        if left < records.HEADER_MIN:
            s.fill(records.HEADER_MIN)
            left = len(s.buf) - s.p
            if left == 0:
                return
        at = s.base + s.p
        header_bad = True
        if left < records.HEADER_MIN:
            reason = framing.partial_problem(s.buf, s.p, order[0])
            if reason is None:
                yield _tail_problem(s.buf[s.p :], source, at)
                return
        else:
            if fast is not None and fast_tried != (at, left):
                got = _fast_run(fast, s, order)
                if got is not None:
                    order, item = got
                    yield item
                    continue
                fast_tried = (at, left)
            reason = framing.header_problem(s.buf, s.p, order[0])
            if reason is not None and _blames_previous(s, order):
                # the previous batch is the odd one out: blame it, and read on after the one
                # before it (its records are out already, with the offsets it claims)
                yield Problem(
                    source,
                    order[2],
                    CORRUPT,
                    f"base offset {order[3]} out of order: the next batch (at byte {at}) "
                    f"follows offset {order[1]}",
                )
                if not resync:
                    return
                order = (order[1], None, -1, -1)
                continue
            if reason is None:
                header_bad = False
                total = framing.frame_size(s.buf, s.p)
                if left < total and not s.fill(total):
                    yield from _past_the_end(s, source, order[0], resync)
                    if s.left == 0:
                        return
                    continue
                reason = framing.crc_problem(s.buf, s.p, total)
                if reason is None:
                    batch = Batch(s.buf[s.p : s.p + total], at)
                    order = framing.took(order, at, batch.base_offset, batch.last_offset)
                    s.p += total
                    yield batch
                    continue
            elif _zeros_to_the_end(s):
                yield Problem(source, at, ZERO_PADDING, f"{s.position - at} bytes of zero padding")
                return
        if at == start == 0 and header_bad:
            reason = f"not a Kafka log segment ({reason})"
        if not resync:
            yield Problem(source, at, CORRUPT, reason)
            return
        s.p = max(s.p, at - s.base + 1)
        found = _resync(s, order[0])
        yield Problem(source, at, CORRUPT, f"{reason}; {_skipped(at, s.position, found)}")
        if not found:
            return


def _blames_previous(s: _Stream, order: framing.Order) -> bool:
    """Whether the frame at s.p, whose offsets go back from the previous batch's, is a whole
    batch following the one before that: then the previous batch's base offset is the damaged
    one (`framing.jumped_ahead`)."""
    if not framing.jumped_ahead(s.buf, s.p, order):
        return False
    if framing.header_problem(s.buf, s.p, order[1]) is not None:
        return False
    total = framing.frame_size(s.buf, s.p)
    return s.fill(total) and framing.crc_problem(s.buf, s.p, total) is None


def _fast_run(fast: FastHook, s: _Stream, order: framing.Order) -> tuple[framing.Order, Any] | None:
    """The compiled scanner's run at s.p with its offsets checked: (order after it, item)."""
    got = fast(s.buf, s.p, s.base)
    if got is None:
        return None
    after, item = got
    bad, after_order = framing.run_problem(s.buf, s.p, after, s.base, order)
    if bad is not None:
        if bad == s.p:
            return None  # the Python loop reports the first batch
        got = fast(s.buf[:bad], s.p, s.base)  # rare: take the run again, up to the bad batch
        if got is None:
            return None
        after, item = got
        _none, after_order = framing.run_problem(s.buf, s.p, after, s.base, order)
    s.p = after
    return after_order, item


def _past_the_end(s: _Stream, source: str, prev: int | None, resync: bool) -> Iterator[Problem]:
    """A frame at s.p whose header checks out runs past the end of the file: a torn tail when
    no batch starts after it, else corruption (s.p then at that batch with `resync`, at the
    end of the buffer without)."""
    at = s.position
    size = framing.frame_size(s.buf, s.p)
    rest = s.left
    s.p += 1
    if not _resync(s, prev):
        yield Problem(source, at, TORN_TAIL, f"{rest} trailing bytes (a torn write at the end)")
        return
    reason = (
        f"a batch of {size} bytes runs past the end of the file ({rest} bytes left), "
        f"but a batch starts at byte {s.position}"
    )
    if not resync:
        s.p = len(s.buf)
        yield Problem(source, at, CORRUPT, reason)
        return
    yield Problem(source, at, CORRUPT, f"{reason}; {_skipped(at, s.position, True)}")


def _skipped(start: int, end: int, found: bool) -> str:
    where = "" if found else ", to the end of the file"
    return f"skipped {end - start} bytes at {start}..{end}{where}"


def _zeros_to_the_end(s: _Stream) -> bool:
    """Whether the file is zeros from s.p to its end (then consumed). If not, s.p moves past
    the leading zeros no batch can start in (the resync starts there): a batch's length field
    is not zero, so none starts more than 11 bytes before the first non-zero byte."""
    q = s.p
    while True:
        end = framing.zero_run_end(s.buf, q)
        if end < len(s.buf):
            s.p = max(s.p, end - 16)
            return False
        s.p = max(s.p, len(s.buf) - 16)
        scanned = s.base + len(s.buf)
        if not s.more():
            s.p = len(s.buf)
            return True
        q = scanned - s.base


def _resync(s: _Stream, prev: int | None) -> bool:
    """Move s.p to the first position at or after it where a batch starts (its header checks
    out after `prev`, it lies whole in the file, its CRC matches): True, or False with s.p at
    the end of the file. Linear in the bytes skipped: the CRC is computed only where
    `framing.candidate` passes."""
    while True:
        if not s.fill(framing.MIN_FRAME):
            s.p = len(s.buf)
            return False
        q, found = framing.next_probe(s.buf, s.p)
        s.p = q
        if not found:
            if not s.more():
                s.p = len(s.buf)
                return False
            continue
        s.fill(framing.PROBE)  # fewer near the end of the file: `candidate` sees what there is
        total = framing.candidate(s.buf, s.p, prev)
        if total and s.fill(total) and framing.crc_problem(s.buf, s.p, total) is None:
            return True
        s.p += 1


def _tail_problem(rest: bytes, source: str, position: int) -> Problem:
    if not rest.strip(b"\x00"):
        return Problem(source, position, ZERO_PADDING, f"{len(rest)} bytes of zero padding")
    return Problem(
        source, position, TORN_TAIL, f"{len(rest)} trailing bytes (a torn write at the end)"
    )


def batch_starts(read: Callable[[int], bytes], chunk_size: int = CHUNK_SIZE) -> Iterator[int]:
    """Positions of the batches of a file from its start, up to the first frame that is not
    one: where a reader can begin in the state a reader of the whole file has there. Not the
    last batch when `read_batches` would blame its offsets on that frame (a reader starting
    at it could not)."""
    s = _Stream(read, chunk_size)
    order = framing.START
    while s.fill(records.HEADER_MIN):
        if framing.header_problem(s.buf, s.p, order[0]) is not None:
            if order[0] is not None and not _blames_previous(s, order):
                yield order[2]
            return
        total = framing.frame_size(s.buf, s.p)
        if order[0] is not None:
            yield order[2]
        if not s.fill(total) or framing.crc_problem(s.buf, s.p, total) is not None:
            return
        base = records._I64.unpack_from(s.buf, s.p)[0]
        order = framing.took(order, s.position, base, framing.last_offset(s.buf, s.p))
        s.p += total
    if order[0] is not None:
        yield order[2]  # the last batch, with fewer than 17 bytes after it
