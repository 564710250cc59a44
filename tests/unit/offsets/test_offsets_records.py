"""Batches: magic 2 by hand, control batches, every codec, legacy magic 0/1, damaged files."""

from __future__ import annotations

import gzip
import io
import struct
import zlib

import cramjam
import crc32c
import pytest

from kgroup.core.errors import CorruptInputError
from kgroup.offsets import encode as enc
from kgroup.offsets import framing
from kgroup.offsets import records as rec
from kgroup.offsets import segments as seg
from kgroup.offsets.decode import DecodedRecord, decode_control, decode_kv

KEY, VALUE = enc.offset_commit("g", "t", 0, 42, commit_timestamp=1_600_000_000_000)


def _v2_by_hand(
    records_bytes: bytes, count: int, attributes: int = 0, base_offset: int = 100
) -> bytes:
    """A magic-2 batch assembled field by field from OFFSETS_FORMAT.md §6.1."""
    after_crc = (
        struct.pack(">h", attributes)
        + struct.pack(">i", count - 1)  # lastOffsetDelta
        + struct.pack(">q", 1_600_000_000_000)  # baseTimestamp
        + struct.pack(">q", 1_600_000_000_000)  # maxTimestamp
        + struct.pack(">q", -1)  # producerId
        + struct.pack(">h", -1)  # producerEpoch
        + struct.pack(">i", -1)  # baseSequence
        + struct.pack(">i", count)
        + records_bytes
    )
    crc = crc32c.crc32c(after_crc)
    body = struct.pack(">i", 0) + b"\x02" + struct.pack(">I", crc) + after_crc
    return struct.pack(">qi", base_offset, len(body)) + body


def _record_by_hand(offset_delta: int, key: bytes, value: bytes | None) -> bytes:
    def zz(n: int) -> bytes:  # one-byte zig-zag varints only (|n| < 64)
        assert -64 <= n < 64
        return bytes([((n << 1) ^ (n >> 7)) & 0xFF])

    def zz2(n: int) -> bytes:  # two-byte zig-zag varint for 64 <= n < 8192
        u = n << 1
        return bytes([(u & 0x7F) | 0x80, u >> 7])

    body = b"\x00" + zz(0) + zz(offset_delta)
    body += (zz(len(key)) if len(key) < 64 else zz2(len(key))) + key
    body += (zz(-1) if value is None else zz(len(value)) + value) + zz(0)
    prefix = zz(len(body)) if len(body) < 64 else zz2(len(body))
    return prefix + body


def test_hand_built_magic2_batch_two_records() -> None:
    raw = _v2_by_hand(_record_by_hand(0, KEY, VALUE) + _record_by_hand(1, KEY, None), 2)
    (batch,) = list(framing.iter_batches(raw))
    batch.check_crc()
    assert (batch.base_offset, batch.last_offset, batch.records_count) == (100, 101, 2)
    (o1, t1, k1, v1, _), (o2, _t2, k2, v2, _) = batch.records()
    assert (o1, o2, t1) == (100, 101, 1_600_000_000_000)
    assert decode_kv(k1, v1).value["offset"] == 42
    assert v2 is None and decode_kv(k2, v2).tombstone
    assert (
        enc.encode_batch([(KEY, VALUE), (KEY, None)], base_offset=100, timestamp=1_600_000_000_000)
        == raw
    )


def test_crc_mismatch_is_reported_with_position() -> None:
    good = enc.encode_batch([(KEY, VALUE)], base_offset=0, timestamp=1)
    bad = bytearray(enc.encode_batch([(KEY, VALUE)], base_offset=1, timestamp=1))
    bad[-1] ^= 0xFF
    entries = list(seg.read_batches(io.BytesIO(good + bytes(bad)).read, "f.log"))
    assert isinstance(entries[0], rec.Batch)
    problem = entries[1]
    assert isinstance(problem, seg.Problem) and problem.fatal
    assert problem.position == len(good)
    assert "CRC-32C mismatch" in problem.message


@pytest.mark.parametrize("codec_id", [1, 2, 3, 4])
def test_each_codec_in_magic2(codec_id: int) -> None:
    entries = [enc.offset_commit("g", "t", p, p * 10) for p in range(50)]
    raw = enc.encode_batch(entries, base_offset=7, timestamp=5, codec_id=codec_id)
    (batch,) = list(framing.iter_batches(raw))
    batch.check_crc()
    assert batch.codec == codec_id
    out = batch.records()
    assert [o for o, *_ in out] == list(range(7, 57))
    assert [decode_kv(k, v).value["offset"] for _, _, k, v, _ in out] == [p * 10 for p in range(50)]


def _inner_records(entries: list[tuple[bytes, bytes]]) -> bytes:
    return b"".join(enc.encode_record_v2(i, 0, k, v) for i, (k, v) in enumerate(entries))


def test_gzip_snappy_zstd_payloads_made_by_other_tools() -> None:
    entries = [enc.offset_commit("g", "t", p, p) for p in range(3)]
    inner = _inner_records(entries)
    # gzip: two members concatenated (Python's gzip handles multi-member streams)
    half = len(inner) // 2
    payload = gzip.compress(inner[:half]) + gzip.compress(inner[half:])
    assert rec.decompress(1, payload, 2) == inner
    # snappy without the xerial header: one raw block
    assert rec.decompress(2, bytes(cramjam.snappy.compress_raw(inner)), 2) == inner
    # xerial framing assembled by hand: magic, version 1, compatible 1, two chunks
    c1 = bytes(cramjam.snappy.compress_raw(inner[:half]))
    c2 = bytes(cramjam.snappy.compress_raw(inner[half:]))
    xerial = (
        b"\x82SNAPPY\x00"
        + struct.pack(">ii", 1, 1)
        + struct.pack(">i", len(c1))
        + c1
        + struct.pack(">i", len(c2))
        + c2
    )
    assert rec.decompress(2, xerial, 2) == inner
    # zstd from a streaming compressor: frame header without content size
    comp = cramjam.zstd.Compressor()
    comp.compress(inner)
    frame = bytes(comp.finish())
    assert frame[:4] == b"\x28\xb5\x2f\xfd" and frame[4] & 0xC0 == 0
    assert rec.decompress(4, frame, 2) == inner


def test_xxh32_reference_values() -> None:
    # published xxHash32 test values (seed 0)
    assert rec.xxh32(b"") == 0x02CC5D05
    assert rec.xxh32(b"a") == 0x550D7456
    assert rec.xxh32(b"abc") == 0x32D153FF


def _lz4_frame(data: bytes, header_checksum_over_magic: bool) -> bytes:
    descriptor = bytes([0x60, 0x40])
    checked = b"\x04\x22\x4d\x18" + descriptor if header_checksum_over_magic else descriptor
    hc = (rec.xxh32(checked) >> 8) & 0xFF
    block = bytes(cramjam.lz4.compress_block(data, store_size=False))
    return (
        b"\x04\x22\x4d\x18"
        + descriptor
        + bytes([hc])
        + struct.pack("<I", len(block))
        + block
        + b"\x00\x00\x00\x00"
    )


def test_lz4_magic0_broken_header_checksum_is_accepted() -> None:
    data = b"kafka lz4 " * 40
    broken = _lz4_frame(data, header_checksum_over_magic=True)
    correct = _lz4_frame(data, header_checksum_over_magic=False)
    assert rec.decompress(3, broken, 0) == data  # KAFKA-3160 quirk tolerated for magic 0
    assert rec.decompress(3, correct, 0) == data
    assert rec.decompress(3, correct, 1) == data
    with pytest.raises(rec.BatchError, match="lz4"):
        rec.decompress(3, broken, 1)


def _legacy_by_hand(
    offset: int, magic: int, key: bytes | None, value: bytes, ts: int = -1, attributes: int = 0
) -> bytes:
    body = bytes([magic, attributes])
    if magic == 1:
        body += struct.pack(">q", ts)
    body += struct.pack(">i", -1) if key is None else struct.pack(">i", len(key)) + key
    body += struct.pack(">i", len(value)) + value
    message = struct.pack(">I", zlib.crc32(body)) + body
    return struct.pack(">qi", offset, len(message)) + message


@pytest.mark.parametrize("magic", [0, 1])
def test_legacy_uncompressed_message_set(magic: int) -> None:
    raw = _legacy_by_hand(5, magic, KEY, VALUE, ts=77) + _legacy_by_hand(
        6, magic, KEY, VALUE, ts=78
    )
    assert raw[: len(raw) // 2] == enc.encode_legacy_set(
        [(KEY, VALUE)], magic=magic, base_offset=5, timestamp=77
    )
    batches = list(framing.iter_batches(raw))
    assert [b.magic for b in batches] == [magic, magic]
    for b in batches:
        b.check_crc()
    ((o, ts, k, v, _),) = batches[1].records()
    assert o == 6 and ts == (78 if magic == 1 else -1)
    assert decode_kv(k, v).value["offset"] == 42


def test_legacy_v1_gzip_wrapper_relative_offsets_by_hand() -> None:
    inner = b"".join(
        _legacy_by_hand(i, 1, KEY, VALUE, ts=10 + i) for i in range(3)
    )  # relative inner offsets 0, 1, 2
    wrapper = _legacy_by_hand(
        1002, 1, None, gzip.compress(inner), ts=99, attributes=1
    )  # wrapper offset = absolute offset of the last inner message
    (batch,) = list(framing.iter_batches(wrapper))
    batch.check_crc()
    assert [(o, t) for o, t, *_ in batch.records()] == [(1000, 10), (1001, 11), (1002, 12)]


def test_legacy_v1_log_append_time_wrapper_gives_its_timestamp() -> None:
    raw = enc.encode_legacy_set(
        [(KEY, VALUE)] * 2, magic=1, base_offset=50, timestamp=5, codec_id=2, log_append_time=True
    )
    (batch,) = list(framing.iter_batches(raw))
    assert batch.log_append_time
    assert [(o, t) for o, t, *_ in batch.records()] == [(50, 5), (51, 5)]


@pytest.mark.parametrize("codec_id", [1, 2, 3])
@pytest.mark.parametrize("magic", [0, 1])
def test_legacy_compressed_wrappers_every_codec(codec_id: int, magic: int) -> None:
    raw = enc.encode_legacy_set(
        [(KEY, VALUE)] * 3, magic=magic, base_offset=20, timestamp=9, codec_id=codec_id
    )
    (batch,) = list(framing.iter_batches(raw))
    batch.check_crc()
    assert [o for o, *_ in batch.records()] == [20, 21, 22]


def test_legacy_v0_inner_offsets_are_absolute() -> None:
    inner = b"".join(_legacy_by_hand(300 + i, 0, KEY, VALUE) for i in range(2))
    wrapper = _legacy_by_hand(301, 0, None, gzip.compress(inner), attributes=1)
    (batch,) = list(framing.iter_batches(wrapper))
    assert [o for o, *_ in batch.records()] == [300, 301]


def test_legacy_crc32_mismatch() -> None:
    raw = bytearray(_legacy_by_hand(1, 0, KEY, VALUE))
    raw[-1] ^= 1
    (batch,) = list(framing.iter_batches(bytes(raw)))
    with pytest.raises(rec.BatchError, match="CRC-32 mismatch"):
        batch.check_crc()


def test_control_batch_commit_marker() -> None:
    raw = enc.encode_control_batch(
        "COMMIT",
        base_offset=9,
        timestamp=3,
        producer_id=4000,
        producer_epoch=2,
        coordinator_epoch=5,
    )
    (batch,) = list(framing.iter_batches(raw))
    assert batch.control and batch.transactional and batch.producer_id == 4000
    ((_o, _t, key, value, _),) = batch.records()
    assert key == bytes.fromhex("00000001")  # version 0, type 1 COMMIT
    assert value == bytes.fromhex("0000 00000005")
    out = decode_control(key, value, DecodedRecord()).to_dict()
    assert out["record_type"] == "txn_marker"
    assert out["control"] is True
    assert out["value"] == {"marker": "COMMIT", "coordinator_epoch": 5}


def test_abort_marker_and_unknown_control_type() -> None:
    assert decode_control(
        b"\x00\x00\x00\x00", b"\x00\x00\x00\x00\x00\x01", DecodedRecord()
    ).value == {"marker": "ABORT", "coordinator_epoch": 1}
    other = decode_control(b"\x00\x00\x00\x02", b"\x00\x00", DecodedRecord())
    assert other.record_type == "control" and other.value == {"marker": "LEADER_CHANGE"}


# ---------------------------------------------------------------- damaged files


def _file_entries(raw: bytes, chunk_size: int = 64) -> list:
    return list(seg.read_batches(io.BytesIO(raw).read, "p-0/0.log", chunk_size=chunk_size))


def test_torn_tail_reports_trailing_bytes_and_position() -> None:
    b1 = enc.encode_batch([(KEY, VALUE)], base_offset=0, timestamp=1)
    b2 = enc.encode_batch([(KEY, VALUE)], base_offset=1, timestamp=1)
    entries = _file_entries(b1 + b2[:30])
    assert isinstance(entries[0], rec.Batch)
    problem = entries[1]
    assert problem.kind == seg.TORN_TAIL and not problem.fatal
    assert problem.position == len(b1)
    assert "30 trailing bytes" in problem.message


def test_zero_padding_after_last_batch() -> None:
    b1 = enc.encode_batch([(KEY, VALUE)], base_offset=0, timestamp=1)
    entries = _file_entries(b1 + bytes(1000), chunk_size=100)
    assert isinstance(entries[0], rec.Batch)
    assert entries[1].kind == seg.ZERO_PADDING
    assert entries[1].position == len(b1)
    assert "1000 bytes" in entries[1].message


def test_garbage_length_is_corrupt_and_stops_the_file() -> None:
    b1 = enc.encode_batch([(KEY, VALUE)], base_offset=0, timestamp=1)
    garbage = struct.pack(">qi", 1, 3) + b"\x07" * 20
    entries = _file_entries(b1 + garbage)
    assert entries[1].kind == seg.CORRUPT
    assert entries[1].position == len(b1)


def test_batches_split_across_chunks_are_reassembled() -> None:
    raw = b"".join(
        enc.encode_batch([enc.offset_commit("g", "t", i, i)], base_offset=i, timestamp=1)
        for i in range(20)
    )
    entries = _file_entries(raw, chunk_size=7)
    assert [e.base_offset for e in entries] == list(range(20))
    assert [e.position for e in entries][:2] == [0, len(raw) // 20]


def test_corrupt_input_error_carries_exit_code_7() -> None:
    assert CorruptInputError("x").exit_code == 7
