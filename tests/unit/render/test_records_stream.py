"""The decode record writers (kgroup/render/records_stream.py): the compiled CSV writer
(kgroup/offsets/_speedups.c CsvWriter) writes the bytes of the Python path -- on the fixtures,
on generated logs of every record type and their mutations (unknown records, errors, raw
cells), on bench_decode's log, on hypothesis-generated hostile text -- and takes the
benchmark's records whole; JSON stays one valid document.

The expected CSV is always the Python writer's (native=False), on records scanned anew: the
Python writer decodes pending values in place, so each path gets records of its own.
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgroup.offsets import decode as dec
from kgroup.offsets import encode as enc
from kgroup.offsets import native
from kgroup.offsets.schema import RECORD_TYPES
from kgroup.render import records_stream as rs
from kgroup.scan.local import DecodeFilter, LocalEngine, find_segments
from tests.helpers import run_kgroup

FIXTURES = Path("/work/shared/fixtures/consumer-offsets-segments")
HOSTILE = [
    "plain",
    "=cmd|' /C calc'!A0",
    "+1",
    "-2",
    "@SUM(A1)",
    'quote " and, comma',
    "line\nbreak",
    "cr\rhere",
    "esc \x1b[2J",
    "del \x7f",
    "c1 \x85 and \x9b",
    "bidi \u202e txt",
    "ünïcødé 東京",
    "",
]


def _records(tmp_path: Path) -> list:
    eng = LocalEngine(DecodeFilter())
    return list(eng.plain(eng.segment_records(find_segments(_inputs(tmp_path)))))


def _inputs(tmp_path: Path) -> list[str]:
    """A log of offset commits with hostile text, and the real fixture logs when present."""
    d = tmp_path / "__consumer_offsets-3"
    d.mkdir(parents=True)
    batches = []
    for i, text in enumerate(HOSTILE):
        group = text or "g"
        batches.append(
            enc.encode_batch(
                [enc.offset_commit(group, text or "t", i, i, commit_timestamp=1, metadata=text)],
                base_offset=i,
                timestamp=1000 + i,
            )
        )
    (d / "00000000000000000000.log").write_bytes(b"".join(batches))
    inputs = [str(d)]
    if FIXTURES.is_dir():  # real segments too: group metadata, transactions, Kafka's layouts
        inputs += sorted(str(p) for p in FIXTURES.iterdir() if p.is_dir())
    return inputs


def _csv(recs: list, *, native: bool) -> str:
    out = io.StringIO()
    assert rs.write_csv(iter(recs), out, native=native) == len(recs)
    return out.getvalue()


compiled_only = pytest.mark.skipif(not native.available(), reason="C extension not built")


def _scan(paths: list[str]) -> list[dec.DecodedRecord]:
    eng = LocalEngine(skip_corrupt=True)
    return list(eng.plain(eng.segment_records(find_segments(paths))))


def _both(paths: list[str]) -> tuple[str, str]:
    """(compiled CSV, Python CSV), each of its own scan of `paths`."""
    return _csv(_scan(paths), native=True), _csv(_scan(paths), native=False)


def _write_log(tmp_path: Path, entries: list[tuple[bytes | None, bytes | None]]) -> str:
    d = tmp_path / "__consumer_offsets-7"
    d.mkdir(exist_ok=True)
    batches = b"".join(
        enc.encode_batch(entries[i : i + 5], base_offset=i, timestamp=1_700_000_000_000 + i)
        for i in range(0, len(entries), 5)
    )
    (d / "00000000000000000000.log").write_bytes(batches)
    return str(d)


def _taken_whole(recs: list[dec.DecodedRecord]) -> bool:
    """Whether the compiled writer writes every record itself (leaves none to Python)."""
    writer = rs._native_csv_writer()
    assert writer is not None
    _data, rows, left = writer.fill(iter(recs), 1 << 40)
    return left is None and rows == len(recs)


@compiled_only
def test_csv_paths_write_the_same_bytes(tmp_path: Path) -> None:
    recs = _records(tmp_path)
    assert _csv(recs, native=True) == _csv(recs, native=False)
    # records the Python writer has decoded (values no longer pending) as well
    assert _csv(recs, native=True) == _csv(_records(tmp_path / "again"), native=False)


@compiled_only
@pytest.mark.skipif(not FIXTURES.is_dir(), reason="fixtures not present")
def test_every_fixture_row_is_the_python_row() -> None:
    fast, pure = _both(sorted(str(p) for p in FIXTURES.iterdir() if p.is_dir()))
    assert pure.count("\n") > 200
    assert fast == pure


@compiled_only
def test_generated_logs_of_every_type_and_their_mutations(tmp_path: Path) -> None:
    from tests.unit.offsets.test_offsets_strict_fuzz import _generated, _mutate

    rnd = random.Random(13)
    entries: list[tuple[bytes | None, bytes | None]] = [_generated(rnd) for _ in range(400)]
    entries += [(k, _mutate(rnd, v)) for k, v in entries[:300] if v]  # errors, unknown, raw
    entries += [(k, None) for k, _v in entries[:20]]  # tombstones
    # unknown key type, a key too short, invalid UTF-8 in a key and in a value (raw cells)
    entries += [(None, b"x"), (b"\x00", b"\x00\x00"), (b"\x00\x63\x00\x01g", b"\x00\x00")]
    entries += [
        (b"\x00\x01\x00\x02\xff\xfe\x00\x01t\x00\x00\x00\x00", b"+\xff"),
        (enc.encode_key(1, {"group": "g", "topic": "t", "partition": 0}), b"\x00\x01\xc3("),
    ]
    path = _write_log(tmp_path, entries)
    fast, pure = _both([path])
    assert pure.count("\n") == len(entries) + 1
    assert fast == pure
    assert '"unknown"' in pure and ",true," in pure  # unknown records and tombstones are in


@compiled_only
def test_the_benchmark_log_is_written_in_c_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bench_decode's realistic mix (offset commits, consumer group metadata with members,
    what the speed target of issue #13 is measured on) is written in C, none handed back."""
    bench = Path(__file__).resolve().parents[3] / "benchmarks"
    monkeypatch.syspath_prepend(str(bench))
    import bench_decode

    monkeypatch.setattr(bench_decode, "OUT", str(tmp_path))
    path, count = bench_decode.generate(1)
    recs = _scan([path])
    assert len(recs) == count
    assert {r._record_type for r in recs} == {"offset_commit", "group_metadata"}
    assert _taken_whole(recs)
    fast, pure = _both([path])
    assert fast == pure


_HOSTILE_CHARS = st.sampled_from(
    [
        *"=+-@\"',;\n\r\t\x00\x1b\x7f\x85\x9b\xa0\u061c\u200e\u200f\u202a\u202e\u2066",
        *("\u2069", "\u2028", "\\", "é", "東", "\U0001f600", "a", "0", " "),
    ]
)
_HOSTILE = st.text(_HOSTILE_CHARS, max_size=12) | st.text(max_size=8)


@compiled_only
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_hostile_text_is_written_as_the_python_writer_writes_it(data: st.DataObject) -> None:
    text = data.draw(_HOSTILE)
    group, topic, metadata = (data.draw(_HOSTILE) for _ in range(3))
    raw = data.draw(st.binary(max_size=8))
    entries: list[tuple[bytes | None, bytes | None]] = [
        enc.offset_commit(group, topic, 0, 7, metadata=metadata, version=3),
        enc.offset_commit(group, topic, 1, 8, metadata=text, version=1),
        (enc.encode_key(1, {"group": group, "topic": topic, "partition": 2}), None),
        (enc.encode_key(2, {"group": text}), b"\x00\x03" + raw),  # a value that fails: raw
        (b"\x00\x63" + raw, raw or None),  # an unknown key type
        (raw, b"+" + raw),  # a raw key and value (base64 starting `+` is defused)
    ]
    member = {
        "member_id": text,
        "group_instance_id": group or None,
        "client_id": topic,
        "client_host": metadata,
        "rebalance_timeout": 1,
        "session_timeout": 2,
        "subscription": {"version": 0, "topics": [topic, text], "user_data": None},
        "assignment": {"version": 0, "assigned_partitions": [], "user_data": None},
    }
    group_value = enc.encode_value(
        2,
        3,
        {
            "protocol_type": "consumer",
            "generation": 1,
            "protocol": text or None,
            "leader": group or None,
            "current_state_timestamp": 5,
            "members": [member],
        },
    )
    source = data.draw(_HOSTILE)
    recs = []
    for _ in range(2):
        rec_list = []
        for i, (key, value) in enumerate(entries):
            rec = dec.DecodedRecord(source, 3, i * 10, i, 1_700_000_000_000, -1, -1, i % 2 == 0)
            if key is not None:
                dec.decode_kv(key, value, rec)
            rec_list.append(rec)
        # group metadata as the scan engine hands it over: the value still pending
        rec = dec.DecodedRecord(source, None, 99, 99, -1, 5, 0, True)
        rec.key_type, rec.key = 2, {"group": group}
        rec.defer_value(RECORD_TYPES[2], group_value)
        rec_list.append(rec)
        recs.append(rec_list)
    assert _csv(recs[0], native=True) == _csv(recs[1], native=False)


_TEXT = _HOSTILE | st.text()
_I64 = st.integers(-(2**63), 2**63 - 1)
_INT = _I64 | st.integers(-(2**65), 2**65)  # beyond 64 bits: left to Python (not in JSON)
_CELL = st.none() | st.booleans() | _I64 | _TEXT  # in the key and value (JSON) too


@st.composite
def _any_record(draw: st.DrawFn) -> dec.DecodedRecord:
    rec = dec.DecodedRecord(
        draw(_TEXT),
        draw(st.none() | _INT),
        draw(st.none() | _INT),
        draw(_INT),
        draw(_INT),
        draw(_INT),
        draw(_INT),
        draw(st.booleans()),
    )
    rec.control = draw(st.booleans())
    rec.key_type = draw(st.none() | st.integers(-1, 5))
    rec.record_type = draw(_TEXT)
    rec.key = draw(
        st.none()
        | st.dictionaries(st.sampled_from(["group", "group_id", "topic", "partition"]), _CELL)
    )
    names = ["offset", "leader_epoch", "metadata", "commit_timestamp", "expire_timestamp"]
    rec.value = draw(
        st.none()
        | st.builds(
            lambda cells, members: {**cells, **members},
            st.dictionaries(st.sampled_from(names), _CELL),
            st.dictionaries(st.just("members"), st.lists(_CELL)),
        )
        | st.dictionaries(_TEXT, _CELL | st.binary(max_size=5))
    )
    rec.value_version = draw(st.none() | _INT)
    rec.key_raw = draw(st.none() | st.binary(max_size=7))
    rec.value_raw = draw(st.none() | st.binary(max_size=7))
    rec.layout = draw(st.none() | _TEXT)
    rec.error = draw(st.none() | _TEXT)
    return rec


@compiled_only
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recs=st.lists(_any_record(), min_size=1, max_size=4))
def test_any_slot_values_are_written_as_the_python_writer_writes_them(
    recs: list[dec.DecodedRecord],
) -> None:
    """Records put together slot by slot (decoded values, so the Python writer changes
    nothing): every kind of cell, hostile text in each, ints the C writer leaves to Python."""
    assert _csv(recs, native=True) == _csv(recs, native=False)


def test_keys_of_one_type_with_different_field_names_keep_their_names() -> None:
    """Found by the property test above: the row builder cached a key's JSON by its type and
    values only, so `{"group_id": null}` after `{"group": null}` was written as the first
    (the key types of __consumer_offsets and __share_group_state share numbers)."""
    recs = []
    for name in ("group", "group_id"):
        rec = dec.DecodedRecord("", None, None, 0, 0, 0)
        rec.key = {name: None}
        recs.append(rec)
    text = _csv(recs, native=False)
    assert '"{""group"":null}"' in text and '"{""group_id"":null}"' in text
    assert _csv(recs, native=True) == text


@compiled_only
def test_records_it_leaves_are_written_by_python_in_their_place(tmp_path: Path) -> None:
    """A record the C writer cannot take (a file name that is not UTF-8, an int beyond 64
    bits) is written by the Python code, between the C rows, in order."""
    path = _write_log(tmp_path, [enc.offset_commit("g", "t", p, p) for p in range(6)])
    recs, expected = _scan([path]), _scan([path])
    for batch in (recs, expected):
        batch[1].source = "bad\udcff name"
        batch[4].offset = 2**70
    text = _csv(recs, native=True)
    assert text == _csv(expected, native=False)
    assert "bad\udcff name" in text and str(2**70) in text


@compiled_only
def test_rows_read_before_a_failing_input_are_written_then_the_error_raised(
    tmp_path: Path,
) -> None:
    path = _write_log(tmp_path, [enc.offset_commit("g", "t", p, p) for p in range(3)])
    recs = _scan([path])

    def failing() -> Iterator[dec.DecodedRecord]:
        yield from recs
        raise OSError("disk gone")

    out = io.StringIO()
    with pytest.raises(OSError, match="disk gone"):
        rs.write_csv(failing(), out)
    assert out.getvalue() == _csv(_scan([path]), native=False)


@compiled_only
def test_kgroup_decode_csv_writes_the_python_rows_without_pyarrow(tmp_path: Path) -> None:
    """The user's `kgroup decode -o csv`: the Python writer's bytes, pyarrow not imported."""
    inputs = _inputs(tmp_path)
    result = run_kgroup(
        "decode", "--segments", *inputs, "-o", "csv", env={"PYTHONPROFILEIMPORTTIME": "1"}
    )
    assert result.stdout == _csv(_records(tmp_path / "again"), native=False)
    assert "| pyarrow" not in result.stderr and "| kgroup" in result.stderr


def test_without_the_extension_the_python_writer_writes(tmp_path: Path) -> None:
    recs = _records(tmp_path)
    native.set_enabled(False)
    try:
        assert rs._native_csv_writer() is None
        text = _csv(recs, native=True)
    finally:
        native.set_enabled(True)
    assert text == _csv(_records(tmp_path / "again"), native=False)


def test_csv_cells_are_safe_and_parse_back(tmp_path: Path) -> None:
    recs = _records(tmp_path)[: len(HOSTILE)]
    text = _csv(recs, native=False)
    assert "\x1b" not in text and "\u202e" not in text and "\x85" not in text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == len(HOSTILE)
    by_offset = {int(r["offset"]): r for r in rows}
    assert by_offset[1]["metadata"] == "'=cmd|' /C calc'!A0"
    assert by_offset[3]["metadata"] == "'-2"
    assert by_offset[5]["metadata"] == 'quote " and, comma'
    assert by_offset[6]["metadata"] == "line\\x0abreak"
    assert by_offset[13]["metadata"] == "" and by_offset[13]["expire_timestamp"] == ""
    for offset, original in enumerate(HOSTILE):
        # the JSON cells are the same JSON values, only with controls written as escapes
        assert json.loads(by_offset[offset]["value_json"])["metadata"] == original


def test_json_text_safe_keeps_the_json_value() -> None:
    text = json.dumps({"m": "a\x7fb\x85c\u202ed\u2066"}, ensure_ascii=False)
    safe = rs.json_text_safe(text)
    assert safe.isascii() and json.loads(safe) == json.loads(text)


def test_json_document_streams_with_and_without_records(tmp_path: Path) -> None:
    recs = _records(tmp_path)[:3]
    for some in (recs, []):
        out = io.StringIO()
        n = rs.write_json(iter(some), out, lambda g=some: {"summary": {"records": len(g)}})
        doc = json.loads(out.getvalue())
        assert n == len(some)
        assert doc == {
            "schema_version": 1,
            "records": [r.to_dict() for r in some],
            "summary": {"records": len(some)},
        }


def test_table_on_a_terminal_wraps_text_and_never_cuts_keys(tmp_path: Path) -> None:
    recs = _records(tmp_path)[: len(HOSTILE)]
    out = io.StringIO()
    result = rs.write_table(iter(recs), out, color=False, width=100, footer=lambda n: [f"{n} r"])
    lines = out.getvalue().splitlines()
    assert result.records == len(HOSTILE) and not result.cut
    assert lines[-1] == f"{len(HOSTILE)} r"
    assert "\x1b" not in out.getvalue() and "\\x1b[2J" in out.getvalue()
    assert any("東京" in line for line in lines)
