"""The compiled row builder (`kgroup.scan._arrow_rows`) gives the Python builder's batches.

The Spark engine's readers build their Arrow batches with it; `RowBuilder(native=False)` is
the Python reference (rows.py). Compared here on every real fixture, on generated logs
mixing every kind of record the scanner and the Python loop produce (offset commits of each
version, consumer / connect / sticky group metadata, tombstones, transactional batches and
their markers, values that do not decode), and on notes; plus what a user of the builder
sees when a cell has the wrong type. Skipped when the extension is not built.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kgroup.offsets import encode as enc
from kgroup.offsets.decode import DecodedRecord
from kgroup.scan import rows as rw
from kgroup.scan.local import LocalEngine, find_segments

try:
    from kgroup.scan import _arrow_rows
except ImportError:  # pragma: no cover - no compiler at install time
    _arrow_rows = None

pytestmark = pytest.mark.skipif(
    _arrow_rows is None, reason="C extension not built (python setup.py build_ext --inplace)"
)

FIXTURES = Path("/work/shared/fixtures/consumer-offsets-segments")
T0 = 1_767_225_600_000


def _records(paths: list[str]) -> list[DecodedRecord]:
    eng = LocalEngine(skip_corrupt=True)
    return list(eng.segment_records(find_segments(paths)))


def _both(paths: list[str], *, skip_control: bool = False, file_index: int | None = 4):
    """(compiled batch, Python batch, rows added) from two fresh decodes of the same files."""
    fast = rw.RowBuilder(file_index)
    slow = rw.RowBuilder(file_index, native=False)
    assert fast.compiled and not slow.compiled
    added = fast.add_many(_records(paths), skip_control=skip_control)
    assert slow.add_many(_records(paths), skip_control=skip_control) == added
    for b in (fast, slow):
        b.add_note(rw.PROBLEM, "__consumer_offsets-4/0.log", 77, '{"kind":"corrupt"}')
        b.add_note(rw.OPEN_TRANSACTION, "4", None, "no marker", log_partition=4, count=2)
    one, two = fast.batch(), slow.batch()
    one.validate(full=True)
    return one, two, added


def _assert_same(one, two) -> None:
    assert one.schema == two.schema
    for name in one.schema.names:
        assert one.column(name).to_pylist() == two.column(name).to_pylist(), name
    assert one.equals(two)


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="fixtures not present")
def test_every_fixture_gives_the_python_builders_batch() -> None:
    kinds: set[str] = set()
    for d in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        one, two, added = _both([str(d)])
        _assert_same(one, two)
        assert one.num_rows == added + 2
        kinds |= set(one.column("record_type").to_pylist())
    assert {"offset_commit", "group_metadata"} <= kinds


def _member(i: int, topics: list[str], client: str) -> dict:
    mine = [{"topic": t, "partitions": [i, i + 2]} for t in topics]
    return {
        "member_id": f"consumer-{i}",
        "group_instance_id": None if i % 2 else f"inst-{i}",
        "client_id": client,
        "client_host": "/10.0.0.1",
        "rebalance_timeout": 300000,
        "session_timeout": 45000,
        "subscription": {
            "version": 3,
            "topics": topics,
            "user_data": None,
            "owned_partitions": mine,
            "generation_id": 4,
            "rack_id": "r1" if i else None,
        },
        "assignment": {"version": 3, "assigned_partitions": mine, "user_data": None},
    }


def _group_value(rng: random.Random, version: int, protocol: str, ptype: str) -> bytes:
    topics = ["orders", "pay\u00e9"][: rng.randint(1, 2)]
    members = [
        _member(i, topics, rng.choice(['c"1\n', "plain", "\u00fcber", "tab\there"]))
        for i in range(rng.randint(0, 3))
    ]
    if ptype != "consumer":
        for m in members:
            m["subscription"] = b"\x00\x01opaque"
            m["assignment"] = b""
    raw = enc.encode_value(
        2,
        version,
        {
            "protocol_type": ptype,
            "generation": rng.randint(0, 50),
            "protocol": protocol,
            "leader": members[0]["member_id"] if members else None,
            "current_state_timestamp": T0,
            "members": members,
        },
    )
    assert raw is not None
    return raw


def _generated_log(tmp_path: Path, seed: int) -> Path:
    """A log with every kind of record, in batches the scanner takes and ones it leaves."""
    rng = random.Random(seed)
    out = bytearray()
    offset = 0
    for _ in range(40):
        entries: list[tuple[bytes | None, bytes | None]] = []
        for _ in range(rng.randint(1, 5)):
            kind = rng.choice(["commit", "commit", "group", "tombstone", "junk"])
            group = rng.choice(["g1", "gr\u00fcppe", 'q"uote'])
            if kind == "commit":
                entries.append(
                    enc.offset_commit(
                        group,
                        rng.choice(["t", "u"]),
                        rng.randint(0, 3),
                        rng.randint(0, 2**40),
                        version=rng.choice([0, 1, 3, 4]),
                    )
                )
            elif kind == "group":
                proto = rng.choice(["range", "sticky", "cooperative-sticky", None])
                ptype = rng.choice(["consumer", "consumer", "connect"])
                raw = _group_value(rng, rng.choice([0, 1, 2, 3, 4]), proto, ptype)
                entries.append((enc.encode_key(2, {"group": group}), raw))
            elif kind == "tombstone":
                type_id = rng.choice([1, 2])
                extra = {"topic": "t", "partition": 0} if type_id == 1 else {}
                entries.append((enc.encode_key(type_id, {"group": group, **extra}), None))
            else:  # a group key with a value that does not decode
                entries.append((enc.encode_key(2, {"group": group}), b"\x00\x03\xff"))
        transactional = rng.random() < 0.3
        out += enc.encode_batch(
            entries,
            base_offset=offset,
            timestamp=T0 + offset,
            transactional=transactional,
            producer_id=7 if transactional else -1,
        )
        offset += len(entries)
        if transactional:
            out += enc.encode_control_batch(
                rng.choice(["COMMIT", "ABORT"]),
                base_offset=offset,
                timestamp=T0 + offset,
                producer_id=7,
                producer_epoch=0,
            )
            offset += 1
    d = tmp_path / f"__consumer_offsets-{seed % 50}"
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(bytes(out))
    return d


@pytest.mark.parametrize("seed", range(6))
def test_generated_logs_give_the_python_builders_batch(tmp_path: Path, seed: int) -> None:
    d = _generated_log(tmp_path, seed)
    one, two, added = _both([str(d)])
    _assert_same(one, two)
    kinds = set(one.column("record_type").to_pylist())
    assert {"offset_commit", "group_metadata", "unknown", "txn_marker"} <= kinds
    assert one.column("error").null_count < one.num_rows  # undecodable values say why
    assert one.column("tombstone").to_pylist().count(True) > 0
    # without control records: the markers are left out, by both builders alike
    one, two, no_markers = _both([str(d)], skip_control=True, file_index=None)
    _assert_same(one, two)
    assert no_markers < added
    assert "txn_marker" not in one.column("record_type").to_pylist()


def test_group_value_json_is_written_straight_from_the_bytes(tmp_path: Path) -> None:
    """A consumer group's value reaches the row as the same JSON text as the decoded dict."""
    raw = enc.encode_value(
        2,
        3,
        {
            "protocol_type": "consumer",
            "generation": 2,
            "protocol": "range",
            "leader": "m",
            "current_state_timestamp": 5,
            "members": [],
        },
    )
    batch = enc.encode_batch(
        [(enc.encode_key(2, {"group": "g"}), raw)], base_offset=0, timestamp=T0
    )
    d = tmp_path / "__consumer_offsets-1"
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(batch)
    row = rw.records_to_batch(_records([str(d)])).to_pylist()[0]
    assert row["value_json"] == (
        '{"protocol_type":"consumer","generation":2,"protocol":"range","leader":"m",'
        '"current_state_timestamp":5,"members":[]}'
    )
    assert (row["value_version"], row["record_type"], row["tombstone"]) == (
        3,
        "group_metadata",
        False,
    )


def test_a_cell_of_the_wrong_type_is_refused_and_the_batch_keeps_its_rows() -> None:
    builder = rw.RowBuilder(0)
    builder.add_note(rw.PROBLEM, "a.log", 1, "first")
    row = dict.fromkeys(rw.NAMES)
    row.update(source="b.log", position="not a number")
    with pytest.raises(TypeError, match="position"):
        builder._native.add_row(tuple(row[n] for n in rw.NAMES))
    assert len(builder) == 1
    batch = builder.batch()
    assert batch.column("source").to_pylist() == ["a.log"]
    assert len(builder) == 0 and builder.batch().num_rows == 0


def test_int32_columns_refuse_what_does_not_fit() -> None:
    builder = rw.RowBuilder(0)
    row = dict.fromkeys(rw.NAMES)
    row.update(source="b.log", log_partition=2**31)
    with pytest.raises(OverflowError, match="int32"):
        builder._native.add_row(tuple(row[n] for n in rw.NAMES))
    assert len(builder) == 0


def test_a_pending_value_without_a_key_type_is_built_as_in_python() -> None:
    from kgroup.offsets.schema import RECORD_TYPES

    raw = enc.encode_value(
        2,
        3,
        {
            "protocol_type": "consumer",
            "generation": 1,
            "protocol": None,
            "leader": None,
            "current_state_timestamp": 0,
            "members": [],
        },
    )
    batches = []
    for native in (True, False):
        rec = DecodedRecord("x.log", 3, 0, 5, T0)
        rec.defer_value(RECORD_TYPES[2], raw)  # key_type left None
        builder = rw.RowBuilder(0, native=native)
        builder.add_many([rec])
        batches.append(builder.batch())
    _assert_same(*batches)
    assert batches[0].column("value_json").to_pylist()[0].startswith('{"protocol_type":"consumer"')


@pytest.mark.parametrize(
    "value",
    [
        {"offset": 7, "metadata": 'm\u00e9ta "q" \\ \n\x01', "flag": True, "gone": None},
        {"raw": b"\x00\xffab", "n": -(2**63)},  # bytes as base64, as _dumps writes them
        {"big": 2**63},  # beyond a signed 64-bit int: left to dumps
        {"nested": {"a": [1, 2]}, "list": [b"x"]},  # not flat: left to dumps
        {"tab\tkey": 1, "\u00e9": "x"},  # keys that need escaping
    ],
)
def test_a_value_dict_gives_the_python_builders_json(value: dict) -> None:
    """The compiled builder writes flat value dicts itself (json_text.h jb_obj) and leaves
    the others to `dumps`: the same text either way."""
    batches = []
    for native in (True, False):
        rec = DecodedRecord("x.log", 3, 0, 5, T0)
        rec.key_type, rec.key, rec.value = 2, {"group": "g"}, dict(value)
        builder = rw.RowBuilder(0, native=native)
        assert builder.compiled is native
        builder.add_many([rec])
        batches.append(builder.batch())
    _assert_same(*batches)
    text = batches[0].column("value_json").to_pylist()[0]
    assert text == rw._dumps(value)


def test_columns_show_the_garbage_collector_what_they_hold() -> None:
    """ext_types.h traverses Columns through its table of owned references."""
    import gc

    from kgroup.offsets.decode import _dumps_bytes, native_value_decoder

    columns = rw._native_columns()
    seen = gc.get_referents(columns)
    for ref in (DecodedRecord, _dumps_bytes, rw._b64, rw.NAMES):
        assert any(s is ref for s in seen), ref
    # and the key JSON cache, and value_json when the value decoder is there
    assert len(seen) == 5 + (native_value_decoder() is not None)
