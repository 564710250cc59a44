"""Fuzz: random and mutated input never raises anything but a kgroup error."""

from __future__ import annotations

import io
import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.core.errors import KgroupError
from kgroup.offsets import encode as enc
from kgroup.offsets import records as rec
from kgroup.offsets import segments as seg
from kgroup.offsets.decode import decode_kv

_SAMPLES = [
    enc.encode_batch(
        [enc.offset_commit("g", "t", p, p, version=v) for p, v in enumerate((0, 1, 3, 4))],
        base_offset=0,
        timestamp=1,
        codec_id=c,
    )
    for c in range(5)
] + [
    enc.encode_legacy_set(
        [enc.offset_commit("g", "t", 0, 1)] * 2, magic=m, base_offset=0, timestamp=1, codec_id=c
    )
    for m in (0, 1)
    for c in (0, 1, 2, 3)
]


def _consume(raw: bytes) -> None:
    for entry in seg.read_batches(io.BytesIO(raw).read, "fuzz.log", chunk_size=64):
        if isinstance(entry, seg.Problem):
            continue
        try:
            records = entry.records()
        except KgroupError:
            continue
        for _o, _t, key, value, _h in records:
            decode_kv(key, value).to_dict()


def _fix_crc(raw: bytearray) -> bytes:
    """Recompute the CRC so the mutation reaches the record and value decoders."""
    if len(raw) >= 61 and raw[16] == 2:
        struct.pack_into(">I", raw, 17, rec.crc32c(bytes(raw[21:])))
    return bytes(raw)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes(raw: bytes) -> None:
    _consume(raw)


@settings(max_examples=300, deadline=None)
@given(
    sample=st.sampled_from(_SAMPLES),
    flips=st.lists(st.tuples(st.integers(0, 10_000), st.integers(1, 255)), min_size=1, max_size=4),
    fix_crc=st.booleans(),
)
def test_mutated_batches(sample: bytes, flips: list[tuple[int, int]], fix_crc: bool) -> None:
    raw = bytearray(sample)
    for where, mask in flips:
        raw[where % len(raw)] ^= mask
    _consume(_fix_crc(raw) if fix_crc else bytes(raw))


@settings(max_examples=300, deadline=None)
@given(
    type_id=st.integers(-2, 30),
    key=st.binary(max_size=40),
    value=st.none() | st.binary(max_size=80),
)
def test_random_coordinator_records(type_id: int, key: bytes, value: bytes | None) -> None:
    decode_kv(struct.pack(">h", type_id) + key, value).to_dict()
