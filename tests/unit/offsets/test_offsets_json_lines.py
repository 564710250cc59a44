"""The compiled `LineWriter` writes DecodedRecord.to_json() byte for byte as the Python code.

Compared on every fixture record (as the scan engine hands them over: offset commits decoded,
group values pending), on generated logs of every record type, on records the Python loop
decodes (unknown, errors, layouts, trailing bytes, control records, tombstones) and on
hypothesis-generated values; the expected text is always the pure-Python to_json() with the
extension switched off. Also checked: it does not give up on the records that make up a
`decode -o jsonl` run (the speed target of issue #13 depends on it).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgroup.offsets import decode as dec
from kgroup.offsets import encode as enc
from kgroup.offsets import native
from kgroup.offsets.schema import RECORD_TYPES
from kgroup.scan.local import LocalEngine, find_segments
from tests.unit.offsets.test_offsets_speedups import _group_value, _struct, compiled
from tests.unit.offsets.test_offsets_strict_fuzz import _generated, _mutate

pytestmark = pytest.mark.skipif(not native.available(), reason="C extension not built")

FIXTURES = Path("/work/shared/fixtures/consumer-offsets-segments")


def _scan(paths: list[str]) -> list[dec.DecodedRecord]:
    eng = LocalEngine(skip_corrupt=True)
    return list(eng.plain(eng.segment_records(find_segments(paths))))


def _lines(paths: list[str], use_c: bool) -> list[str]:
    with compiled(use_c):
        return [r.to_json() for r in _scan(paths)]


def _write_log(tmp_path: Path, entries: list[tuple[bytes | None, bytes | None]]) -> str:
    d = tmp_path / "__consumer_offsets-7"
    d.mkdir(exist_ok=True)
    batches = b"".join(
        enc.encode_batch(entries[i : i + 5], base_offset=i, timestamp=1_700_000_000_000 + i)
        for i in range(0, len(entries), 5)
    )
    (d / "00000000000000000000.log").write_bytes(batches)
    return str(d)


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="fixtures not present")
def test_every_fixture_line_is_the_python_line() -> None:
    dirs = sorted(str(p) for p in FIXTURES.iterdir() if p.is_dir())
    pure = _lines(dirs, False)
    fast = _lines(dirs, True)
    assert len(pure) > 200
    assert fast == pure


def test_generated_logs_of_every_type_and_their_mutations(tmp_path: Path) -> None:
    rnd = random.Random(18)
    entries: list[tuple[bytes | None, bytes | None]] = [_generated(rnd) for _ in range(400)]
    entries += [(k, _mutate(rnd, v)) for k, v in entries[:300] if v]  # errors, unknown, raw
    entries += [(k, None) for k, _v in entries[:20]]  # tombstones
    entries += [(None, b"x"), (b"\x00", b"\x00\x00"), (b"\x00\x63\x00\x01g", b"\x00\x00")]
    path = _write_log(tmp_path, entries)
    pure = _lines([path], False)
    fast = _lines([path], True)
    assert len(pure) == len(entries)
    assert fast == pure


def test_strings_that_need_escapes_and_64_bit_ints(tmp_path: Path) -> None:
    meta = 'q"\\\n\x01\x7f\u00e9\u2028\U0001f600'
    entries: list[tuple[bytes | None, bytes | None]] = [
        enc.offset_commit("gr\u00fcppe", "t\u00f6pic\t", 3, 2**63 - 1, metadata=meta, version=v)
        for v in (0, 1, 3, 4)
    ]
    entries.append(enc.offset_commit("g", "t", -(2**31), -(2**63), version=3))
    path = _write_log(tmp_path, entries)
    fast = _lines([path], True)
    assert fast == _lines([path], False)
    assert '"metadata":"q\\"\\\\\\n\\u0001\x7f\u00e9\u2028\U0001f600"' in fast[0]


def test_the_writer_does_not_give_up_on_a_benchmark_like_log(tmp_path: Path) -> None:
    """Offset commits and consumer group metadata (what bench_decode generates) are written
    in C, not handed back to Python."""
    member = {
        "member_id": "m",
        "group_instance_id": None,
        "client_id": "c",
        "client_host": "/h",
        "rebalance_timeout": 300000,
        "session_timeout": 45000,
        "subscription": {
            "version": 3,
            "topics": ["t"],
            "user_data": None,
            "owned_partitions": [{"topic": "t", "partitions": [0, 1]}],
            "generation_id": 7,
            "rack_id": None,
        },
        "assignment": {
            "version": 3,
            "assigned_partitions": [{"topic": "t", "partitions": [0, 1]}],
            "user_data": None,
        },
    }
    group = {
        "protocol_type": "consumer",
        "generation": 7,
        "protocol": "range",
        "leader": "m",
        "current_state_timestamp": 1,
        "members": [member, member],
    }
    entries = [enc.offset_commit("g", "t", p, p, leader_epoch=2) for p in range(4)]
    entries.append((enc.encode_key(2, {"group": "g"}), enc.encode_value(2, 3, group)))
    path = _write_log(tmp_path, entries)
    with compiled(True):
        writer = dec._line_writer()
        recs = _scan([path])
        assert [r.record_type for r in recs] == ["offset_commit"] * 4 + ["group_metadata"]
        assert all(writer(r) is not None for r in recs)
        lines = [r.to_json() for r in recs]
    assert lines == _lines([path], False)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_hypothesis_values_of_every_table(data: st.DataObject) -> None:
    type_id = data.draw(st.sampled_from(sorted(RECORD_TYPES)))
    rt = RECORD_TYPES[type_id]
    version = data.draw(st.integers(*rt.value.valid))
    if type_id == 2:
        value = _group_value(data)
    else:
        fields = data.draw(_struct(rt.value.struct, version))
        value = enc.encode_value(type_id, version, fields)
    key_fields = data.draw(_struct(rt.key.struct, 0))
    key = enc.encode_key(type_id, key_fields)
    i64 = st.integers(-(2**63), 2**63 - 1)
    rec_args: dict[str, Any] = {
        "source": data.draw(st.text(max_size=8)),
        "partition": data.draw(st.none() | st.integers(0, 49)),
        "position": data.draw(st.none() | st.integers(0, 2**40)),
        "offset": data.draw(i64),
        "timestamp": data.draw(i64),
        "producer_id": data.draw(i64),
        "producer_epoch": data.draw(st.integers(-(2**15), 2**15 - 1)),
        "transactional": data.draw(st.booleans()),
    }
    outs = []
    for use_c in (False, True):
        with compiled(use_c):
            rec = dec.DecodedRecord(**rec_args)
            dec.decode_kv(key, value, rec)
            pending = dec.DecodedRecord(**rec_args)
            pending.key_type, pending.key = type_id, rec.key
            if rec.key is not None:
                pending.defer_value(rt, value)
            outs.append((rec.to_json(), pending.to_json()))
    assert outs[1] == outs[0]
