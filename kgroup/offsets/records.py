"""Record batches: magic 2 (CRC-32C) and legacy magic 0/1 message sets (CRC-32), compression.

Source of truth: Kafka's `DefaultRecordBatch` / `DefaultRecord` (magic 2, KIP-98), `LegacyRecord`
and `AbstractLegacyRecordBatch` (magic 0/1, KIP-31/32 relative offsets), `ControlRecordType`,
`EndTransactionMarker`, and `compress/*` (gzip, xerial snappy, `KafkaLZ4BlockInputStream` with the
KAFKA-3160 magic-0 header checksum quirk, zstd per KIP-110). OFFSETS_FORMAT.md §6.1-6.3.

Pure: bytes in, batches and records out. Codec libraries (`cramjam`, `crc32c`) are imported
lazily, the first time a batch needs them.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

from kgroup.core.errors import CorruptInputError
from kgroup.offsets import native, wire

# attributes bits (magic 2)
CODEC_MASK = 0x07
TIMESTAMP_TYPE_BIT = 0x08
TRANSACTIONAL_BIT = 0x10
CONTROL_BIT = 0x20
DELETE_HORIZON_BIT = 0x40

CODECS = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}

LOG_OVERHEAD = 12  # baseOffset int64 + length int32
HEADER_MIN = 17  # baseOffset + length + partitionLeaderEpoch + magic
V2_HEADER = 61
V2_MIN_LENGTH = V2_HEADER - LOG_OVERHEAD  # 49
LEGACY_MIN_LENGTH = 14

_V2 = struct.Struct(">qiibIhiqqqhii")
_LEGACY_HEAD = struct.Struct(">qiIbb")
_I64 = struct.Struct(">q")
_I32 = struct.Struct(">i")

XERIAL_MAGIC = b"\x82SNAPPY\x00"
LZ4_MAGIC = b"\x04\x22\x4d\x18"

Record = tuple[int, int, bytes | None, bytes | None, tuple[Any, ...]]
"""(offset, timestamp, key, value, headers) - headers a tuple of (key, value) pairs."""


class BatchError(CorruptInputError):
    """A batch that cannot be read: bad CRC, bad framing, undecompressible payload."""

    def __init__(self, reason: str, position: int | None = None) -> None:
        super().__init__(reason, position=position)
        self.reason = reason


class Batch:
    """One batch as stored: header fields plus its bytes (`data`, starting at baseOffset)."""

    __slots__ = (
        "attributes",
        "base_offset",
        "base_sequence",
        "base_timestamp",
        "crc",
        "data",
        "last_offset_delta",
        "magic",
        "max_timestamp",
        "partition_leader_epoch",
        "position",
        "producer_epoch",
        "producer_id",
        "records_count",
    )

    def __init__(self, data: bytes, position: int) -> None:
        self.data = data
        self.position = position
        magic = data[16]
        self.magic = magic
        if magic == 2:
            if len(data) < V2_HEADER:
                raise BatchError(f"batch of {len(data)} bytes is shorter than a header", position)
            (
                self.base_offset,
                _length,
                self.partition_leader_epoch,
                _magic,
                self.crc,
                self.attributes,
                self.last_offset_delta,
                self.base_timestamp,
                self.max_timestamp,
                self.producer_id,
                self.producer_epoch,
                self.base_sequence,
                self.records_count,
            ) = _V2.unpack_from(data, 0)
        elif magic in (0, 1):
            self.base_offset, _length, self.crc, _magic, self.attributes = _LEGACY_HEAD.unpack_from(
                data, 0
            )
            self.partition_leader_epoch = -1
            self.last_offset_delta = 0
            self.base_timestamp = self.max_timestamp = -1
            self.producer_id = -1
            self.producer_epoch = -1
            self.base_sequence = -1
            self.records_count = 1
        else:
            raise BatchError(f"unknown magic {magic}", position)

    # ------------------------------------------------------------ properties

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def codec(self) -> int:
        return self.attributes & CODEC_MASK

    @property
    def transactional(self) -> bool:
        return self.magic == 2 and bool(self.attributes & TRANSACTIONAL_BIT)

    @property
    def control(self) -> bool:
        return self.magic == 2 and bool(self.attributes & CONTROL_BIT)

    @property
    def log_append_time(self) -> bool:
        return bool(self.attributes & TIMESTAMP_TYPE_BIT) and self.magic >= 1

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    def check_crc(self) -> None:
        """Raise BatchError when the stored CRC does not match the bytes."""
        if self.magic == 2:
            computed = crc32c(memoryview(self.data)[21:])
            kind = "CRC-32C"
        else:
            computed = zlib.crc32(memoryview(self.data)[16:])
            kind = "CRC-32"
        if computed != self.crc:
            raise BatchError(
                f"{kind} mismatch: stored {self.crc:08x}, computed {computed:08x}", self.position
            )

    def records(self) -> list[Record]:
        """Every record of the batch (decompressed), with absolute offsets and timestamps."""
        if self.magic == 2:
            return _records_v2(self)
        return _records_legacy(self)


# ---------------------------------------------------------------- CRC-32C

_crc32c_fn: Any = None


def crc32c(data: bytes | memoryview) -> int:
    """CRC-32C (Castagnoli) via the `crc32c` package (hardware accelerated where available)."""
    global _crc32c_fn
    if _crc32c_fn is None:
        import crc32c as _lib

        _crc32c_fn = _lib.crc32c
    return _crc32c_fn(data)


# ---------------------------------------------------------------- magic 2 records


def _records_v2(batch: Batch) -> list[Record]:
    data = batch.data
    codec = batch.attributes & CODEC_MASK
    if codec:
        buf = decompress(codec, memoryview(data)[V2_HEADER:], 2, batch.position)
        pos = 0
    else:
        buf = data
        pos = V2_HEADER
    log_time = batch.max_timestamp if batch.attributes & TIMESTAMP_TYPE_BIT else None
    ext = native.get()
    if ext is not None and type(buf) is bytes:
        # the compiled framing; None = something unusual, which the Python loop handles
        fast = ext.records_v2(
            buf, pos, batch.records_count, batch.base_offset, batch.base_timestamp, log_time
        )
        if fast is not None:
            return fast  # type: ignore[no-any-return]
    return _records_v2_py(batch, buf, pos, log_time)


def _records_v2_py(batch: Batch, buf: Any, pos: int, log_time: int | None) -> list[Record]:
    """The records of a magic-2 batch from buf[pos:] (decompressed payload or batch bytes)."""
    end = len(buf)
    base_offset = batch.base_offset
    base_ts = batch.base_timestamp
    out: list[Record] = []
    append = out.append
    count = batch.records_count
    if count < 0 or count > end - pos:
        raise BatchError(f"record count {count} does not fit the batch", batch.position)
    try:
        for _ in range(count):
            length, pos = _varint_at(buf, pos, end, "record length")
            rec_end = pos + length
            if length < 6 or rec_end > end:
                raise BatchError(f"record length {length} does not fit the batch", batch.position)
            pos += 1  # attributes (unused)
            ts_delta, pos = _varint_at(buf, pos, rec_end, "timestampDelta")
            off_delta, pos = _varint_at(buf, pos, rec_end, "offsetDelta")
            key, pos = _record_bytes(buf, pos, rec_end, "key", batch.position)
            value, pos = _record_bytes(buf, pos, rec_end, "value", batch.position)
            b = buf[pos]
            if b == 0:
                headers: tuple[Any, ...] = ()
                pos += 1
            else:
                headers, pos = _headers(buf, pos, rec_end, batch.position)
            if pos != rec_end:
                raise BatchError("record length does not match its fields", batch.position)
            append(
                (
                    base_offset + off_delta,
                    log_time if log_time is not None else base_ts + ts_delta,
                    key,
                    value,
                    headers,
                )
            )
    except IndexError:
        raise BatchError("records run past the end of the batch", batch.position) from None
    except wire.DecodeError as exc:
        raise BatchError(f"bad record: {exc.message}", batch.position) from None
    if pos != end:
        raise BatchError(f"{end - pos} bytes after the last record", batch.position)
    return out


def _varint_at(buf: Any, pos: int, end: int, field: str) -> tuple[int, int]:
    """The zig-zag varint at buf[pos] and the position after it. One- and two-byte varints
    (nearly every length and delta of a coordinator record) are read here; an IndexError
    means the batch ended inside one. Longer ones, and a two-byte one that would cross `end`,
    go to `wire.read_varint`, bounded by `end`."""
    b = buf[pos]
    if b < 128:
        return (b >> 1) ^ -(b & 1), pos + 1
    if pos + 1 < end and buf[pos + 1] < 128:
        u = (b & 0x7F) | (buf[pos + 1] << 7)
        return (u >> 1) ^ -(u & 1), pos + 2
    return wire.read_varint(buf, pos, end, field)


def _record_bytes(
    buf: Any, pos: int, end: int, what: str, position: int
) -> tuple[bytes | None, int]:
    """A record's `what` ("key" or "value") at buf[pos]: its length (a varint, negative =
    null), then the bytes, which must end by `end` (the record's end); returns (bytes or
    None, position after)."""
    n, pos = _varint_at(buf, pos, end, what + "Length")
    if n < 0:
        return None, pos
    q = pos + n
    if q > end:
        raise BatchError(f"record {what} runs past the record", position)
    return buf[pos:q], q


def _headers(buf: Any, pos: int, end: int, position: int) -> tuple[tuple[Any, ...], int]:
    count, pos = wire.read_varint(buf, pos, end, "headersCount")
    if count < 0 or count > end - pos:
        raise BatchError(f"header count {count} does not fit the record", position)
    out = []
    for _ in range(count):
        klen, pos = wire.read_varint(buf, pos, end, "headerKeyLength")
        if klen < 0 or pos + klen > end:
            raise BatchError("header key runs past the record", position)
        hkey = bytes(buf[pos : pos + klen]).decode("utf-8", "replace")
        pos += klen
        vlen, pos = wire.read_varint(buf, pos, end, "headerValueLength")
        if vlen >= 0:
            if pos + vlen > end:
                raise BatchError("header value runs past the record", position)
            hval: bytes | None = bytes(buf[pos : pos + vlen])
            pos += vlen
        else:
            hval = None
        out.append((hkey, hval))
    return tuple(out), pos


# ---------------------------------------------------------------- legacy magic 0/1


def _parse_legacy_message(
    buf: Any, pos: int, end: int, position: int
) -> tuple[int, int, int, bytes | None, bytes | None]:
    """One legacy message body (from crc) -> (magic, attributes, timestamp, key, value)."""
    if end - pos < LEGACY_MIN_LENGTH:
        raise BatchError("legacy message shorter than 14 bytes", position)
    stored_crc = struct.unpack_from(">I", buf, pos)[0]
    computed = zlib.crc32(memoryview(buf)[pos + 4 : end])
    if computed != stored_crc:
        raise BatchError(
            f"CRC-32 mismatch: stored {stored_crc:08x}, computed {computed:08x}", position
        )
    magic = buf[pos + 4]
    attributes = buf[pos + 5]
    p = pos + 6
    timestamp = -1
    if magic == 1:
        if end - p < 8:
            raise BatchError("legacy v1 message too short for its timestamp", position)
        timestamp = _I64.unpack_from(buf, p)[0]
        p += 8
    elif magic != 0:
        raise BatchError(f"inner message has magic {magic}", position)
    try:
        key, p = wire.read_bytes32(buf, p, end, "key")
        value, p = wire.read_bytes32(buf, p, end, "value")
    except wire.DecodeError as exc:
        raise BatchError(f"bad legacy message: {exc.message}", position) from None
    if p != end:
        raise BatchError(f"{end - p} bytes after the legacy message value", position)
    return magic, attributes, timestamp, key, value


def _records_legacy(batch: Batch) -> list[Record]:
    data = batch.data
    magic, attributes, timestamp, key, value = _parse_legacy_message(
        data, LOG_OVERHEAD, len(data), batch.position
    )
    codec = attributes & CODEC_MASK
    if codec == 0:
        return [(batch.base_offset, timestamp, key, value, ())]
    if codec == 4:
        raise BatchError("zstd is not allowed in magic 0/1 message sets", batch.position)
    if value is None:
        raise BatchError("compressed wrapper without a value", batch.position)
    inner = decompress(codec, value, magic, batch.position)
    entries: list[tuple[int, int, int, bytes | None, bytes | None]] = []
    pos = 0
    end = len(inner)
    while pos < end:
        if end - pos < LOG_OVERHEAD:
            raise BatchError("truncated inner message in a compressed wrapper", batch.position)
        offset, size = struct.unpack_from(">qi", inner, pos)
        body = pos + LOG_OVERHEAD
        if size < LEGACY_MIN_LENGTH or body + size > end:
            raise BatchError(f"inner message size {size} does not fit", batch.position)
        imagic, iattrs, its, ikey, ivalue = _parse_legacy_message(
            inner, body, body + size, batch.position
        )
        if iattrs & CODEC_MASK:
            raise BatchError("nested compression in a legacy wrapper", batch.position)
        entries.append((offset, imagic, its, ikey, ivalue))
        pos = body + size
    out: list[Record] = []
    wrapper_offset = batch.base_offset
    log_time = magic == 1 and bool(attributes & TIMESTAMP_TYPE_BIT)
    if magic == 0:
        base = 0  # v0 inner offsets are absolute
    elif wrapper_offset == 0:
        base = 0  # librdkafka quirk: wrapper offset 0 = relative base 0
    else:
        base = wrapper_offset - entries[-1][0] if entries else 0
    for offset, _imagic, its, ikey, ivalue in entries:
        out.append((base + offset, timestamp if log_time else its, ikey, ivalue, ()))
    return out


# ---------------------------------------------------------------- compression


def decompress(codec: int, payload: Any, magic: int, position: int | None = None) -> bytes:
    """Decompress a batch payload the way Kafka's `CompressionType` streams do."""
    try:
        if codec == 1:
            import gzip

            return gzip.decompress(bytes(payload))
        if codec == 2:
            return _snappy(bytes(payload))
        if codec == 3:
            return _lz4(bytes(payload), magic)
        if codec == 4:
            import cramjam

            return bytes(cramjam.zstd.decompress(bytes(payload)))
    except BatchError:
        raise
    except Exception as exc:  # every codec library has its own error types
        raise BatchError(f"{CODECS[codec]} decompression failed: {exc}", position) from None
    raise BatchError(f"unknown compression codec {codec}", position)


def _snappy(payload: bytes) -> bytes:
    import cramjam

    if not payload.startswith(XERIAL_MAGIC):
        # xerial's reader treats a payload without its header as one raw snappy block
        return bytes(cramjam.snappy.decompress_raw(payload))
    pos = 16  # magic(8) + version(4) + compatible version(4)
    out = bytearray()
    end = len(payload)
    while pos < end:
        if end - pos < 4:
            raise BatchError("truncated xerial snappy chunk length")
        (n,) = _I32.unpack_from(payload, pos)
        pos += 4
        if n < 0 or pos + n > end:
            raise BatchError(f"xerial snappy chunk of {n} bytes runs past the end")
        out += cramjam.snappy.decompress_raw(payload[pos : pos + n])
        pos += n
    return bytes(out)


def _lz4(payload: bytes, magic: int) -> bytes:
    import cramjam

    if magic == 0 and payload.startswith(LZ4_MAGIC) and len(payload) >= 7:
        # KAFKA-3160: magic-0 producers computed the header checksum over magic+descriptor.
        # Kafka still accepts that; recompute the correct one so a standard decoder takes it.
        flg = payload[4]
        desc_len = 2 + (8 if flg & 0x08 else 0) + (4 if flg & 0x01 else 0)
        hc_at = 4 + desc_len
        if len(payload) > hc_at:
            hc = (xxh32(payload[4:hc_at]) >> 8) & 0xFF
            payload = payload[:hc_at] + bytes([hc]) + payload[hc_at + 1 :]
    return bytes(cramjam.lz4.decompress(payload))


def lz4_header_checksum(descriptor: bytes) -> int:
    """The LZ4 frame descriptor checksum byte: second byte of xxh32(descriptor)."""
    return (xxh32(descriptor) >> 8) & 0xFF


_P1, _P2, _P3, _P4, _P5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
_M = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M


def xxh32(data: bytes, seed: int = 0) -> int:
    """xxHash32 for the few bytes of an LZ4 frame descriptor (not used on payloads)."""
    n = len(data)
    i = 0
    if n >= 16:
        v1 = (seed + _P1 + _P2) & _M
        v2 = (seed + _P2) & _M
        v3 = seed & _M
        v4 = (seed - _P1) & _M
        while i + 16 <= n:
            a, b, c, d = struct.unpack_from("<4I", data, i)
            v1 = _rotl((v1 + a * _P2) & _M, 13) * _P1 & _M
            v2 = _rotl((v2 + b * _P2) & _M, 13) * _P1 & _M
            v3 = _rotl((v3 + c * _P2) & _M, 13) * _P1 & _M
            v4 = _rotl((v4 + d * _P2) & _M, 13) * _P1 & _M
            i += 16
        h = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & _M
    else:
        h = (seed + _P5) & _M
    h = (h + n) & _M
    while i + 4 <= n:
        (k,) = struct.unpack_from("<I", data, i)
        h = _rotl((h + k * _P3) & _M, 17) * _P4 & _M
        i += 4
    while i < n:
        h = _rotl((h + data[i] * _P5) & _M, 11) * _P1 & _M
        i += 1
    h ^= h >> 15
    h = h * _P2 & _M
    h ^= h >> 13
    h = h * _P3 & _M
    h ^= h >> 16
    return h
