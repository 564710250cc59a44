"""When the bytes at a position of a segment are a record batch, and where the next one starts.

Source of truth: Kafka's `FileLogInputStream` (the 17 bytes up to magic; a length below
`LegacyRecord.RECORD_OVERHEAD_V0` is corrupt), `DefaultRecordBatch.ensureValid` (CRC-32C from
the attributes on), `LegacyRecord.ensureValid` (CRC-32 from magic on), `UnifiedLog`'s
`RecordBatchTooLargeException` (a batch is never larger than a segment:
`offsets.topic.segment.bytes`, 100 MiB) and the increasing offsets a log appends
(`UnifiedLog.analyzeAndValidateRecords`: "Out of order offsets"). OFFSETS_FORMAT.md §6.4.

A frame is a batch when its header checks out (`header_problem`: magic 0-2, length within
bounds, base offset after the previous batch's last offset), it lies whole in the file and its
CRC matches (`crc_problem`). Resynchronisation after corruption looks for the next such
position; `candidate` adds cheap structural checks every Kafka batch passes, so that the CRC
(the costly part) is computed only where a batch is likely: the scan stays linear on garbage.

Pure: functions over a buffer.
"""

from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Iterator

from kgroup.offsets import records
from kgroup.offsets.records import LEGACY_MIN_LENGTH, LOG_OVERHEAD, V2_HEADER, V2_MIN_LENGTH

MAX_LENGTH = 100 * 1024 * 1024  # offsets.topic.segment.bytes: no batch is larger than a segment
MIN_FRAME = LOG_OVERHEAD + LEGACY_MIN_LENGTH  # the smallest batch: a magic-0 message, 26 bytes
V1_MIN_LENGTH = 22  # LegacyRecord.RECORD_OVERHEAD_V1
PROBE = V2_HEADER  # bytes `candidate` reads (fewer when the frame itself is shorter)
MAGIC_AT = 16

_HEAD = struct.Struct(">qiiB")  # baseOffset, length, partitionLeaderEpoch, magic
_DELTA = struct.Struct(">i")
_V2 = struct.Struct(">qiiBIhiqqqhii")
_RUN = struct.Struct(">qi11xi")  # baseOffset, length, lastOffsetDelta of a magic-2 batch
_LEGACY = struct.Struct(">qiIBB")
_MAGIC_BYTE = re.compile(rb"[\x00-\x02]")
_NON_ZERO = re.compile(rb"[^\x00]")


def header_problem(buf: bytes, p: int, prev: int | None) -> str | None:
    """Why the 17 bytes at buf[p:] cannot start a batch, or None. `prev`: the last offset of
    the previous batch (None at the start of what is read)."""
    base, length, _epoch, magic = _HEAD.unpack_from(buf, p)
    if magic > 2:
        return f"unknown magic {magic}"
    minimum = V2_MIN_LENGTH if magic == 2 else LEGACY_MIN_LENGTH
    if length < minimum:
        return f"batch length {length} below the minimum {minimum}"
    if length > MAX_LENGTH:
        return f"batch length {length} above the maximum {MAX_LENGTH} (the size of a segment)"
    if base < 0:
        return f"negative base offset {base}"
    if prev is not None and base <= prev:
        return f"base offset {base} is not after the previous batch's last offset {prev}"
    return None


def partial_problem(buf: bytes, p: int, prev: int | None) -> str | None:
    """`header_problem` for fewer than 17 bytes at the end of a file: what they show."""
    n = len(buf) - p
    if n >= 8:
        (base,) = records._I64.unpack_from(buf, p)
        if base < 0:
            return f"negative base offset {base}"
        if prev is not None and base <= prev:
            return f"base offset {base} is not after the previous batch's last offset {prev}"
    if n >= 12:
        (length,) = _DELTA.unpack_from(buf, p + 8)
        if not LEGACY_MIN_LENGTH <= length <= MAX_LENGTH:
            return f"batch length {length} out of bounds"
    return None


def frame_size(buf: bytes, p: int) -> int:
    """Bytes of the frame at buf[p:] (its length field plus the 12-byte log overhead)."""
    return int(_DELTA.unpack_from(buf, p + 8)[0]) + LOG_OVERHEAD


def last_offset(buf: bytes, p: int) -> int:
    """The last offset of the batch at buf[p:] (a legacy wrapper's offset is its last one)."""
    (base,) = records._I64.unpack_from(buf, p)
    if buf[p + MAGIC_AT] == 2:
        return int(base) + int(_DELTA.unpack_from(buf, p + 23)[0])
    return int(base)


def crc_problem(buf: bytes, p: int, total: int) -> str | None:
    """CRC mismatch of the whole frame buf[p : p + total], or None."""
    view = memoryview(buf)[p : p + total]
    if buf[p + MAGIC_AT] == 2:
        stored = struct.unpack_from(">I", buf, p + 17)[0]
        computed = records.crc32c(view[21:])
        kind = "CRC-32C"
    else:
        stored = struct.unpack_from(">I", buf, p + 12)[0]
        computed = zlib.crc32(view[16:])
        kind = "CRC-32"
    if computed != stored:
        return f"{kind} mismatch: stored {stored:08x}, computed {computed:08x}"
    return None


Order = tuple[int | None, int | None, int, int]
"""The offsets of the last two batches read: (last offset of the previous batch, or None at
the start; last offset of the one before it; position and base offset of the previous)."""

START: Order = (None, None, -1, -1)


def took(order: Order, at: int, base: int, last: int) -> Order:
    """`order` after the batch at file position `at` (offsets base..last)."""
    return (last, order[0], at, base)


def run_problem(
    buf: bytes, p: int, end: int, offset: int, order: Order
) -> tuple[int | None, Order]:
    """Check the offsets and lengths of whole, CRC-checked magic-2 batches in buf[p:end] (a
    run the compiled scanner took; buf[0] at file position `offset`): (start in buf of the
    first that breaks `header_problem`, or None; `order` after the batches before it)."""
    unpack = _RUN.unpack_from
    prev, before, at, first = order
    last = -1 if prev is None else prev
    while p < end:
        base, length, delta = unpack(buf, p)
        if base <= last or length > MAX_LENGTH:
            return p, (prev, before, at, first)
        before, prev, at, first = prev, base + delta, offset + p, base
        last = prev
        p += length + LOG_OVERHEAD
    return None, (prev, before, at, first)


def jumped_ahead(buf: bytes, p: int, order: Order) -> bool:
    """Whether the batch at buf[p:], whose offsets go back from the previous batch's, follows
    the one before that: then the previous batch's base offset is the damaged one (a flipped
    bit in a field no CRC covers), not this batch's."""
    _prev, before, _at, _base = order
    (base,) = records._I64.unpack_from(buf, p)
    return before is not None and base > before


def candidate(buf: bytes, p: int, prev: int | None) -> int:
    """The frame size at buf[p:] if its header checks out and its fields look like a batch's
    (every Kafka batch passes these); 0 otherwise. Needs min(frame, PROBE) bytes at p."""
    if header_problem(buf, p, prev) is not None:
        return 0
    total = frame_size(buf, p)
    if len(buf) - p < min(total, PROBE):
        return 0
    magic = buf[p + MAGIC_AT]
    if magic == 2:
        (_b, length, epoch, _m, _crc, attrs, delta, _t0, _t1, _pid, pepoch, seq, count) = (
            _V2.unpack_from(buf, p)
        )
        if attrs & ~0x7F or attrs & records.CODEC_MASK > 4:
            return 0
        if epoch < -1 or pepoch < -1 or seq < -1 or delta < 0 or not 0 <= count <= delta + 1:
            return 0
        if not attrs & records.CODEC_MASK and count * 7 > length - V2_MIN_LENGTH:
            return 0  # an uncompressed record takes at least 7 bytes
        return total
    _b, length, _crc, _m, attrs = _LEGACY.unpack_from(buf, p)
    minimum = V1_MIN_LENGTH if magic == 1 else LEGACY_MIN_LENGTH
    if length < minimum or attrs & 0xF0:
        return 0
    # keyLength follows crc, magic, attributes (and a v1 timestamp): the last 8 fixed bytes
    # of a message are keyLength and valueLength
    (key_length,) = _DELTA.unpack_from(buf, p + LOG_OVERHEAD + minimum - 8)
    if not -1 <= key_length <= length - minimum:
        return 0
    return total


def next_probe(buf: bytes, q: int) -> tuple[int, bool]:
    """(position, True): the first position >= q of buf worth a `candidate` call (magic byte
    0-2, length field not zero). (position, False): none in buf; positions from there on are
    not decided yet (their magic byte is past the end of buf)."""
    while True:
        m = _MAGIC_BYTE.search(buf, q + MAGIC_AT)
        if m is None:
            return max(q, len(buf) - MAGIC_AT), False
        at = m.start() - MAGIC_AT
        if buf[at + 8 : at + 12] != b"\x00\x00\x00\x00":
            return at, True
        # a length field inside a run of zeros (zero padding): no frame whose length field
        # lies in the run can be a batch, so the next probe is 11 bytes before its end
        q = max(at + 1, zero_run_end(buf, at + 8) - 11)


def zero_run_end(buf: bytes, q: int) -> int:
    """The first position >= q whose byte is not zero (len(buf) when there is none)."""
    z = _NON_ZERO.search(buf, q)
    return z.start() if z is not None else len(buf)


# ---------------------------------------------------------------- framing over a buffer


def split_batches(buf: bytes, pos: int = 0) -> Iterator[tuple[int, int]]:
    """(start, total size) of each complete batch in buf[pos:], without copying.

    Stops at the first incomplete batch (fetched data may end in one); raises BatchError on a
    frame whose header does not check out (`header_problem`: magic, length bounds,
    offsets). CRCs are the caller's (`Batch.check_crc`).
    """
    end = len(buf)
    prev: int | None = None
    while end - pos >= records.HEADER_MIN:
        reason = header_problem(buf, pos, prev)
        if reason is not None:
            raise records.BatchError(reason, pos)
        total = frame_size(buf, pos)
        if end - pos < total:
            return
        yield pos, total
        prev = last_offset(buf, pos)
        pos += total


def iter_batches(buf: bytes) -> Iterator[records.Batch]:
    """Every batch of a complete in-memory buffer (a whole .log file or fetched data)."""
    for start, total in split_batches(buf):
        yield records.Batch(bytes(buf[start : start + total]), start)
