"""Parity of the compiled fast path (`_speedups`) with the pure-Python codec.

The C reader and framing must give exactly what the interpreter gives, on every real fixture
and on hypothesis-generated and mutated input; where the interpreter raises, the C path must
give up (never crash, never return something else). Skipped when the extension is not built.
"""

from __future__ import annotations

import io
import json
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgroup.core.errors import KgroupError
from kgroup.offsets import decode as dec
from kgroup.offsets import embedded, layouts, native, records, schema, wire
from kgroup.offsets import encode as enc
from kgroup.offsets import segments as seg
from kgroup.offsets.schema import RECORD_TYPES, Array, Message, Struct
from kgroup.scan.local import DecodeFilter, LocalEngine, find_segments

_NEEDS_EXT = pytest.mark.skipif(
    not native.available(),
    reason="C extension not built (pip install -e . or python setup.py build_ext --inplace)",
)

FIXTURES = Path("/work/shared/fixtures/consumer-offsets-segments")
_CACHES: list[dict[Any, Any]] = [
    layouts._READERS,
    dec._KEY_READERS,
    dec._VALUE_READERS,
    dec._FAST,
    embedded._EMBEDDED,
    dec._KEY_CACHE,
    dec._NATIVE,
]


@contextmanager
def compiled(flag: bool) -> Iterator[None]:
    """Decode with (True) or without (False) the extension, from empty reader caches."""
    for cache in _CACHES:
        cache.clear()
    native.set_enabled(flag)
    try:
        yield
    finally:
        for cache in _CACHES:
            cache.clear()
        native.set_enabled(True)


def _jsonl(paths: list[str], **kw: Any) -> list[str]:
    eng = LocalEngine(skip_corrupt=True, **kw)
    return [r.to_json() for r in eng.plain(eng.segment_records(find_segments(paths)))]


def _fixture_dirs() -> list[str]:
    return sorted(str(p) for p in FIXTURES.iterdir() if p.is_dir())


# ---------------------------------------------------------------- real segments


@_NEEDS_EXT
@pytest.mark.skipif(not FIXTURES.is_dir(), reason="fixtures not present")
def test_every_fixture_decodes_the_same_with_and_without_the_extension() -> None:
    with compiled(False):
        pure = _jsonl(_fixture_dirs())
    with compiled(True):
        fast = _jsonl(_fixture_dirs())
    assert len(pure) > 200
    assert fast == pure


@_NEEDS_EXT
@pytest.mark.skipif(not FIXTURES.is_dir(), reason="fixtures not present")
def test_every_fixture_batch_is_framed_by_the_extension() -> None:
    ext = native.get()
    assert ext is not None
    framed = 0
    for log in sorted(FIXTURES.rglob("*.log")):
        for batch in seg.read_batches(io.BytesIO(log.read_bytes()).read, log.name):
            if isinstance(batch, seg.Problem) or batch.magic != 2 or batch.codec:
                continue
            log_time = batch.max_timestamp if batch.attributes & 0x08 else None
            args = (batch.records_count, batch.base_offset, batch.base_timestamp, log_time)
            fast = ext.records_v2(batch.data, records.V2_HEADER, *args)
            assert fast is not None, f"{log}: batch at {batch.position} fell back to Python"
            assert fast == records._records_v2_py(batch, batch.data, records.V2_HEADER, log_time)
            framed += 1
    assert framed > 50


# ---------------------------------------------------------------- generated values

_INTS = {
    "int8": st.integers(-(2**7), 2**7 - 1),
    "int16": st.integers(-(2**15), 2**15 - 1),
    "uint16": st.integers(0, 2**16 - 1),
    "int32": st.integers(-(2**31), 2**31 - 1),
    "int64": st.integers(-(2**63), 2**63 - 1),
}


def _strategy(typ: Any, version: int, nullable: bool) -> st.SearchStrategy[Any]:
    if isinstance(typ, str):
        if typ in _INTS:
            base: st.SearchStrategy[Any] = _INTS[typ]
        elif typ == "bool":
            base = st.booleans()
        elif typ == "uuid":
            base = st.binary(min_size=16, max_size=16).map(wire.uuid_to_str)
        elif typ == "string":
            base = st.text(max_size=10)
        else:
            base = st.binary(max_size=10)
    elif isinstance(typ, Array):
        base = st.lists(_strategy(typ.of, version, False), max_size=3)
    else:
        base = _struct(typ, version)
    return st.one_of(st.none(), base) if nullable else base


def _struct(struct_: Struct, version: int) -> st.SearchStrategy[dict[str, Any]]:
    required: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for fd in struct_.fields:
        if not fd.present(version):
            continue
        if fd.tag is not None:
            strat = _strategy(fd.type, version, False)
            optional[fd.key] = strat.filter(lambda v, f=fd: v != f.default)
        else:
            required[fd.key] = _strategy(fd.type, version, fd.nullable_in(version))
    return st.fixed_dictionaries(required, optional=optional)


def _messages() -> list[tuple[Message, int]]:
    """(message, version) for every value version, every key and embedded message."""
    out = []
    for type_id, rt in sorted(RECORD_TYPES.items()):
        lo, hi = rt.value.valid
        out += [(rt.value, v) for v in range(lo, hi + 1) if type_id != 0 or v == 0]
        out.append((rt.key, 0))
    for msg in (
        schema.CONSUMER_PROTOCOL_SUBSCRIPTION,
        schema.CONSUMER_PROTOCOL_ASSIGNMENT,
        schema.CONNECT_METADATA,
        schema.CONNECT_ASSIGNMENT,
    ):
        out += [(msg, v) for v in range(msg.valid[0], msg.valid[1] + 1)]
    out += [(schema.STICKY_USER_DATA, v) for v in (0, 1)]
    return out


MESSAGES = _messages()


def _readers(msg: Message, version: int) -> tuple[Any, Any]:
    flexible = msg.flexible(version)
    fast = layouts.get_reader(msg.struct, version, flexible)
    assert hasattr(fast, "try_read"), f"{msg.name} v{version} has no compiled reader"
    return fast, layouts.get_py_reader(msg.struct, version, flexible)


def _py_result(py: Any, raw: bytes, pos: int) -> Any:
    try:
        return py(raw, pos, len(raw))
    except (wire.DecodeError, UnicodeDecodeError):
        return None


@_NEEDS_EXT
@pytest.mark.parametrize(("msg", "version"), MESSAGES, ids=[f"{m.name}-v{v}" for m, v in MESSAGES])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_compiled_reader_equals_the_interpreter(
    msg: Message, version: int, data: st.DataObject
) -> None:
    fast, py = _readers(msg, version)
    values = data.draw(_struct(msg.struct, version))
    # unknown tags (a newer Kafka) must be kept by both
    if msg.flexible(version) and data.draw(st.booleans()):
        values["_tag" + str(data.draw(st.integers(30, 200)))] = data.draw(st.binary(max_size=5))
    raw = b"\x07" + layouts.encode_message(msg, version, values)
    got = fast.try_read(raw, 1, len(raw))
    assert got is not None, "the compiled reader gave up on valid input"
    assert got == py(raw, 1, len(raw))
    assert json.dumps(got, default=repr) == json.dumps(py(raw, 1, len(raw)), default=repr)
    # every truncation and a few flipped bytes: the same result, or the C path gives up
    cut = data.draw(st.integers(1, len(raw)))
    flips = data.draw(st.lists(st.tuples(st.integers(1, 10**6), st.integers(1, 255)), max_size=3))
    mutated = bytearray(raw[:cut])
    for where, mask in flips:
        if len(mutated) > 1:
            mutated[1 + where % (len(mutated) - 1)] ^= mask
    expect = _py_result(py, bytes(mutated), 1)
    got = fast.try_read(bytes(mutated), 1, len(mutated))
    if got is not None:
        assert got == expect
    elif expect is not None:
        pytest.fail(f"gave up where the interpreter succeeds: {bytes(mutated)!r}")
    # and the wrapper returns the interpreter's result or raises its error
    if expect is None:
        with pytest.raises((wire.DecodeError, UnicodeDecodeError)):
            fast(bytes(mutated), 1, len(mutated))
    else:
        assert fast(bytes(mutated), 1, len(mutated)) == expect


@_NEEDS_EXT
@settings(max_examples=200, deadline=None)
@given(msg_index=st.integers(0, len(MESSAGES) - 1), raw=st.binary(max_size=120))
def test_random_bytes_give_the_interpreter_result_or_nothing(msg_index: int, raw: bytes) -> None:
    msg, version = MESSAGES[msg_index]
    fast, py = _readers(msg, version)
    got = fast.try_read(raw, 0, len(raw))
    if got is not None:
        assert got == _py_result(py, raw, 0)


@_NEEDS_EXT
def test_a_bad_position_falls_back_to_the_interpreter_error() -> None:
    fast, _py = _readers(schema.OFFSET_COMMIT_VALUE, 3)
    assert fast.try_read(b"\x00" * 30, 5, 2) is None
    assert fast.try_read(b"\x00" * 30, 0, 99) is None
    with pytest.raises(wire.DecodeError):
        fast(b"\x00" * 4, 0, 4)


# ---------------------------------------------------------------- batches


def _batch(entries: list[tuple[bytes | None, bytes | None]], ts: int = 1_700_000_000_000) -> bytes:
    return enc.encode_batch(entries, base_offset=1000, timestamp=ts)


_SAMPLES = [
    _batch([enc.offset_commit("g", "t", p, p * 7, version=v) for p, v in enumerate((0, 1, 3, 4))]),
    _batch([(enc.encode_key(2, {"group": "g"}), None), (None, b"x"), (b"k", b"")]),
    _batch([enc.offset_commit("gr\u00fcppe", "t\u00f6pic", 3, 2**40, version=3)] * 20),
]


def _frame(raw: bytes) -> tuple[Any, Any]:
    """(C framing or None, Python framing or the BatchError) of one batch's records."""
    batch = records.Batch(raw, 0)
    log_time = batch.max_timestamp if batch.attributes & 0x08 else None
    ext = native.get()
    assert ext is not None
    args = (batch.records_count, batch.base_offset, batch.base_timestamp, log_time)
    fast = ext.records_v2(raw, records.V2_HEADER, *args)
    try:
        py: Any = records._records_v2_py(batch, raw, records.V2_HEADER, log_time)
    except KgroupError as exc:
        py = exc
    return fast, py


@_NEEDS_EXT
@pytest.mark.parametrize("sample", _SAMPLES)
def test_generated_batches_frame_the_same(sample: bytes) -> None:
    fast, py = _frame(sample)
    assert fast is not None
    assert fast == py


@_NEEDS_EXT
@settings(max_examples=400, deadline=None)
@given(
    sample=st.sampled_from(_SAMPLES),
    flips=st.lists(st.tuples(st.integers(61, 10_000), st.integers(1, 255)), min_size=1, max_size=4),
    cut=st.integers(0, 40),
)
def test_mutated_batches_frame_the_same_or_fall_back(
    sample: bytes, flips: list[tuple[int, int]], cut: int
) -> None:
    raw = bytearray(sample)
    for where, mask in flips:
        raw[61 + (where - 61) % (len(raw) - 61)] ^= mask
    raw = raw[: max(61, len(raw) - cut)]
    fast, py = _frame(bytes(raw))
    if fast is not None:
        assert fast == py
    assert not (isinstance(py, KgroupError) and fast is not None)


@_NEEDS_EXT
@settings(max_examples=200, deadline=None)
@given(
    count=st.integers(-3, 50),
    base=st.integers(-(2**63), 2**63 - 1),
    payload=st.binary(max_size=200),
)
def test_random_record_payloads_never_crash(count: int, base: int, payload: bytes) -> None:
    ext = native.get()
    assert ext is not None
    raw = bytes(61) + payload
    out = ext.records_v2(raw, 61, count, base, base, None)
    assert out is None or isinstance(out, list)
    out = ext.records_v2(raw, 61, count, 0, 0, base)
    assert out is None or isinstance(out, list)


@_NEEDS_EXT
def test_records_with_headers_go_to_the_interpreter() -> None:
    # one record with a header, written by hand (DefaultRecord): the C framing gives up
    body = bytearray(b"\x00\x00\x00")  # attributes, timestampDelta 0, offsetDelta 0
    body += wire.varint_bytes(1) + b"k" + wire.varint_bytes(1) + b"v"
    body += wire.varint_bytes(1) + wire.varint_bytes(1) + b"h" + wire.varint_bytes(1) + b"x"
    rec = wire.varint_bytes(len(body)) + bytes(body)
    head = bytearray(_batch([(b"k", b"v")])[:61])
    struct.pack_into(">i", head, 8, 49 + len(rec))
    raw = bytes(head) + rec
    fast, py = _frame(raw)
    assert fast is None
    assert py == [(1000, 1_700_000_000_000, b"k", b"v", (("h", b"x"),))]


# ---------------------------------------------------------------- JSON text

_JSONABLE = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text() | st.binary(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(obj=_JSONABLE)
def test_json_lines_text_is_the_stdlib_text(obj: Any) -> None:
    stdlib = json.JSONEncoder(
        ensure_ascii=False, separators=(",", ":"), default=dec._bytes_default
    ).encode
    assert dec._dumps(obj) == stdlib(obj)


# ---------------------------------------------------------------- the batch scanner


class _Spy:
    """Counts the batches the compiled scanner takes (so parity is not reached by falling
    back to Python everywhere)."""

    def __init__(self, scanner: Any) -> None:
        self.scanner = scanner
        self.batches = 0

    def scan(self, *args: Any) -> Any:
        got = self.scanner.scan(*args)
        self.batches += got[1]
        return got


@contextmanager
def spied() -> Iterator[_Spy]:
    with compiled(True):
        scanner = dec.native_scanner()
        assert scanner is not None, "the compiled scanner was not built"
        spy = _Spy(scanner)
        dec._NATIVE["scanner"] = spy
        yield spy


def _engine_output(paths: list[str], flt: DecodeFilter | None = None) -> Any:
    eng = LocalEngine(flt, skip_corrupt=True)
    lines = [r.to_json() for r in eng.plain(eng.segment_records(find_segments(paths)))]
    stats = eng.stats
    problems = [(p.source, p.position, p.kind, p.message) for p in stats.problems]
    return lines, (stats.batches, stats.records, stats.emitted), problems


def _fixture_filters() -> list[DecodeFilter]:
    with compiled(False):
        lines, _stats, _problems = _engine_output(_fixture_dirs())
    rows = [json.loads(line) for line in lines]
    groups = sorted({r["key"]["group"] for r in rows if r["key_type"] in (1, 2)})
    topics = sorted({r["key"]["topic"] for r in rows if r["key_type"] == 1})
    stamps = sorted(r["timestamp"] for r in rows)
    middle = stamps[len(stamps) // 3], stamps[2 * len(stamps) // 3]
    return [
        DecodeFilter(groups=frozenset(groups[:2])),
        DecodeFilter(topics=frozenset(topics[:1])),
        DecodeFilter(type_ids=frozenset({2})),
        DecodeFilter(type_ids=frozenset({1}), groups=frozenset()),
        DecodeFilter(since=middle[0], until=middle[1]),
        DecodeFilter(groups=frozenset(groups[1:3]), since=middle[0]),
    ]


@_NEEDS_EXT
@pytest.mark.skipif(not FIXTURES.is_dir(), reason="fixtures not present")
def test_the_scanner_gives_the_python_loop_output_on_every_fixture_and_filter() -> None:
    for flt in [None, *_fixture_filters()]:
        with compiled(False):
            pure = _engine_output(_fixture_dirs(), flt)
        with spied() as spy:
            fast = _engine_output(_fixture_dirs(), flt)
        assert spy.batches > 50, f"the scanner took only {spy.batches} batches with {flt}"
        assert fast == pure, f"differs with {flt}"


def _group_value_strategy() -> st.SearchStrategy[dict[str, Any]]:
    tp = st.fixed_dictionaries(
        {"topic": st.text(max_size=6), "partitions": st.lists(st.integers(-5, 300), max_size=4)}
    )
    user_data = st.one_of(
        st.none(),
        st.just(b""),
        st.binary(max_size=6),
        st.builds(lambda g: struct.pack(">i", g), st.integers(-5, 5)),
    )
    subscription = st.fixed_dictionaries(
        {
            "version": st.integers(0, 5),
            "topics": st.lists(st.text(max_size=6), max_size=3),
            "user_data": user_data,
            "owned_partitions": st.lists(tp, max_size=2),
            "generation_id": st.integers(-1, 9),
            "rack_id": st.one_of(st.none(), st.text(max_size=4)),
        }
    )
    assignment = st.fixed_dictionaries(
        {
            "version": st.integers(0, 5),
            "assigned_partitions": st.lists(tp, max_size=3),
            "user_data": user_data,
        }
    )
    embedded = st.one_of(st.none(), st.just({}), st.just(b"\x00"), st.binary(max_size=5))
    member = st.fixed_dictionaries(
        {
            "member_id": st.text(max_size=8),
            "group_instance_id": st.one_of(st.none(), st.text(max_size=4)),
            "client_id": st.text(max_size=8),
            "client_host": st.text(max_size=8),
            "rebalance_timeout": st.integers(-1, 10**6),
            "session_timeout": st.integers(0, 10**6),
            "subscription": st.one_of(subscription, embedded),
            "assignment": st.one_of(assignment, embedded),
        }
    )
    return st.fixed_dictionaries(
        {
            "protocol_type": st.sampled_from(["consumer", "consumer", "consumer", "connect", ""]),
            "generation": st.integers(-1, 99),
            "protocol": st.sampled_from(
                [None, "range", "roundrobin", "sticky", "cooperative-sticky", ""]
            ),
            "leader": st.one_of(st.none(), st.text(max_size=6)),
            "current_state_timestamp": st.integers(-1, 2**41),
            "members": st.one_of(st.none(), st.lists(member, max_size=4)),
        }
    )


def _group_value(data: st.DataObject) -> bytes:
    fields = data.draw(_group_value_strategy())
    if fields["members"] is None:
        fields["members"] = []
    # consumer-protocol dicts are encoded by the encoder; connect groups get raw bytes
    if fields["protocol_type"] != "consumer":
        for m in fields["members"]:
            for k in ("subscription", "assignment"):
                if isinstance(m[k], dict):
                    m[k] = (
                        enc.encode_versioned(
                            schema.CONSUMER_PROTOCOL_SUBSCRIPTION
                            if k == "subscription"
                            else schema.CONSUMER_PROTOCOL_ASSIGNMENT,
                            m[k],
                        )
                        if m[k]
                        else b""
                    )
    raw = enc.encode_value(2, data.draw(st.integers(0, 4)), fields)
    assert raw is not None
    return raw


def _pure_value(rt: Any, raw: bytes) -> Any:
    with compiled(False):
        return dec.decode_value(rt, raw)


@_NEEDS_EXT
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_value_decoder_equals_the_interpreter_on_group_metadata(data: st.DataObject) -> None:
    rt = RECORD_TYPES[2]
    raw = _group_value(data)
    expect = _pure_value(rt, raw)
    with compiled(True):
        vd = dec._native_values()
        got = vd(2, raw)
        if got is not None:
            assert (got[0], got[1], None, None) == expect
            assert json.dumps(got[1], default=repr) == json.dumps(expect[1], default=repr)
        assert dec.decode_value(rt, raw) == expect
    # cut and flipped: the same, or the C path gives up
    cut = data.draw(st.integers(0, len(raw)))
    mutated = bytearray(raw[:cut])
    for where, mask in data.draw(
        st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), max_size=3)
    ):
        if mutated:
            mutated[where % len(mutated)] ^= mask
    expect = _pure_value(rt, bytes(mutated))
    with compiled(True):
        got = dec._native_values()(2, bytes(mutated))
        if got is not None:
            assert (got[0], got[1], None, None) == expect
        assert dec.decode_value(rt, bytes(mutated)) == expect


@_NEEDS_EXT
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(type_id=st.sampled_from(sorted(RECORD_TYPES)), data=st.data())
def test_value_decoder_equals_the_interpreter_on_every_value_table(
    type_id: int, data: st.DataObject
) -> None:
    rt = RECORD_TYPES[type_id]
    lo, hi = rt.value.valid
    version = data.draw(st.integers(lo, hi))
    if type_id == 2:
        raw = _group_value(data)
    else:
        fields = data.draw(_struct(rt.value.struct, version))
        raw = wire.INT16.pack(version) + layouts.encode_message(rt.value, version, fields)
    raw += data.draw(st.sampled_from([b"", b"\x00", b"\x01\x02"]))  # trailing bytes: Python
    expect = _pure_value(rt, raw)
    with compiled(True):
        got = dec._native_values()(type_id, raw)
        if got is not None:
            assert (got[0], got[1], None, None) == expect
        assert dec.decode_value(rt, raw) == expect


def _segment(data: st.DataObject) -> bytes:
    """A few batches of offset commits, group metadata (with members) and tombstones."""
    out = bytearray()
    offset = 0
    for _ in range(data.draw(st.integers(1, 4))):
        entries: list[tuple[bytes | None, bytes | None]] = []
        for _ in range(data.draw(st.integers(1, 4))):
            kind = data.draw(st.sampled_from(["commit", "commit", "group", "tombstone"]))
            group = data.draw(st.sampled_from(["g1", "g2", "gr\u00fcppe"]))
            if kind == "commit":
                entries.append(
                    enc.offset_commit(
                        group,
                        data.draw(st.sampled_from(["t", "u"])),
                        data.draw(st.integers(0, 3)),
                        data.draw(st.integers(0, 2**40)),
                        version=data.draw(st.sampled_from([0, 1, 3, 4])),
                    )
                )
            elif kind == "group":
                entries.append((enc.encode_key(2, {"group": group}), _group_value(data)))
            else:
                type_id = data.draw(st.sampled_from([1, 2]))
                key = {"group": group, "topic": "t", "partition": 0} if type_id == 1 else {}
                entries.append((enc.encode_key(type_id, {"group": group, **key}), None))
        batch = enc.encode_batch(
            entries,
            base_offset=offset,
            timestamp=1_700_000_000_000 + offset,
            transactional=data.draw(st.booleans()),
            producer_id=data.draw(st.sampled_from([-1, 7])),
        )
        offset += len(entries)
        out += batch
    return bytes(out)


def _both_ways(raw: bytes, tmp_path: Path, flt: DecodeFilter | None = None) -> int:
    """Assert the scan engine's output is the same with and without the scanner; returns
    the batches the scanner took."""
    part = tmp_path / "__consumer_offsets-3"
    part.mkdir(exist_ok=True)
    (part / "00000000000000000000.log").write_bytes(raw)

    def run() -> Any:
        try:
            return _engine_output([str(part)], flt)
        except KgroupError as exc:
            return type(exc), str(exc)

    with compiled(False):
        pure = run()
    with spied() as spy:
        fast = run()
    assert fast == pure
    return spy.batches


@_NEEDS_EXT
@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_scanner_on_generated_and_mutated_segments(data: st.DataObject, tmp_path: Path) -> None:
    raw = bytearray(_segment(data))
    assert _both_ways(bytes(raw), tmp_path) > 0, "the scanner took none of a valid segment"
    # flipped bytes (CRC recomputed or not), cuts: the Python loop's output every time
    for where, mask in data.draw(
        st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), min_size=1, max_size=3)
    ):
        raw[where % len(raw)] ^= mask
    if data.draw(st.booleans()) and len(raw) >= 61 and raw[16] == 2:
        length = struct.unpack_from(">i", raw, 8)[0]
        end = min(len(raw), 12 + max(length, 49))
        struct.pack_into(">I", raw, 17, records.crc32c(bytes(raw[21:end])))
    raw = raw[: len(raw) - data.draw(st.integers(0, 30))]
    _both_ways(
        bytes(raw),
        tmp_path,
        data.draw(
            st.sampled_from(
                [
                    None,
                    DecodeFilter(groups=frozenset({"g1"})),
                    DecodeFilter(since=1_700_000_000_002),
                ]
            )
        ),
    )


@_NEEDS_EXT
@settings(max_examples=300, deadline=None)
@given(payload=st.binary(max_size=400), p=st.integers(-2, 420), limit=st.integers(0, 5))
def test_scanner_on_random_bytes_never_crashes(payload: bytes, p: int, limit: int) -> None:
    with compiled(True):
        scanner = dec.native_scanner()
        assert scanner is not None
        args = (limit, "s", 0, None, None, None, None, None)
        if not 0 <= p <= len(payload):
            with pytest.raises(ValueError):
                scanner.scan(payload, p, 0, *args)
            return
        after, batches, read, recs = scanner.scan(payload, p, 0, *args)
        assert p <= after <= len(payload)
        assert (after == p) == (batches == 0)
        assert read >= len(recs)
        assert all(type(r) is dec.DecodedRecord for r in recs)
        for r in recs:
            r.to_json()


@_NEEDS_EXT
def test_the_scanner_covers_every_slot_of_a_record() -> None:
    # a new DecodedRecord slot must be added to _SCANNER_SLOTS (and record_slots.h) too
    assert sorted(dec._SCANNER_SLOTS) == sorted(dec.DecodedRecord.__slots__)
    with compiled(True):
        assert dec.native_scanner() is not None


@_NEEDS_EXT
@pytest.mark.parametrize(
    ("protocol", "user_data", "decoded"),
    [
        ("cooperative-sticky", struct.pack(">i", 5), {"generation": 5}),
        (
            "sticky",
            enc.encode_sticky_user_data([{"topic": "t", "partitions": [0, 2]}], 4),
            {"previous_assignment": [{"topic": "t", "partitions": [0, 2]}], "generation": 4},
        ),
        ("range", struct.pack(">i", 5), None),
    ],
)
def test_assignor_user_data_is_decoded_the_same_with_the_extension(
    protocol: str, user_data: bytes, decoded: dict[str, Any] | None
) -> None:
    sub = {"version": 1, "topics": ["t"], "user_data": user_data, "owned_partitions": []}
    member = {
        "member_id": "m",
        "client_id": "c",
        "client_host": "/h",
        "session_timeout": 1,
        "subscription": sub,
        "assignment": {"version": 0, "assigned_partitions": [], "user_data": None},
    }
    fields = {
        "protocol_type": "consumer",
        "generation": 1,
        "protocol": protocol,
        "leader": "m",
        "members": [member],
    }
    raw = enc.encode_value(2, 3, fields)
    assert raw is not None
    rt = RECORD_TYPES[2]
    with compiled(True):
        _version, value, _error, _layout = dec.decode_value(rt, raw)
    assert value is not None
    assert value["members"][0]["subscription"].get("user_data_decoded") == decoded
    assert (_version, value, _error, _layout) == _pure_value(rt, raw)


# ---------------------------------------------------------------- values straight to JSON


def _stdlib_json(fields: Any) -> bytes:
    """The record JSON of decoded fields, by the standard library (bytes as base64)."""
    import base64

    def default(obj: Any) -> str:
        return base64.b64encode(obj).decode("ascii")

    return json.dumps(fields, separators=(",", ":"), ensure_ascii=False, default=default).encode()


def _assert_json_is_the_fields_text(type_id: int, raw: bytes) -> bool:
    """ValueDecoder.json gives the text of what the interpreter decodes, or nothing; True
    when it gave text."""
    expect = _pure_value(RECORD_TYPES[type_id], raw)
    with compiled(True):
        vd = dec.native_value_decoder()
        got = vd.json(type_id, raw)
        decoded = vd(type_id, raw)
    if got is None:
        return False
    version, fields, error, layout = expect
    assert (error, layout) == (None, None)
    assert decoded is not None  # never text where the compiled decoder gives up
    assert got == (version, _stdlib_json(fields))
    return True


@_NEEDS_EXT
def test_value_json_by_hand() -> None:
    # OffsetCommitValue v1: offset, metadata, commit_timestamp, expire_timestamp
    meta = 'q"\\\n\x01\u00e9'.encode()
    raw = struct.pack(">hq", 1, 5) + struct.pack(">h", len(meta)) + meta + struct.pack(">qq", 7, -1)
    with compiled(True):
        got = dec.native_value_decoder().json(1, raw)
    assert got == (
        1,
        b'{"offset":5,"metadata":"q\\"\\\\\\n\\u0001\xc3\xa9",'
        b'"commit_timestamp":7,"expire_timestamp":-1}',
    )
    with compiled(True):
        vd = dec.native_value_decoder()
        assert vd.json(1, raw[:-1]) is None  # cut short: the Python path says what is wrong
        bad_utf8 = struct.pack(">hqh", 1, 5, 1) + b"\xff" + struct.pack(">qq", 7, -1)
        assert vd.json(1, bad_utf8) is None


@_NEEDS_EXT
@pytest.mark.skipif(not FIXTURES.is_dir(), reason="fixtures not present")
def test_value_json_on_every_fixture_value() -> None:
    written = 0
    for rec in LocalEngine(skip_corrupt=True).segment_records(find_segments(_fixture_dirs())):
        raw = rec._pending[1] if rec._pending is not None else None
        if raw is None or rec.key_type is None:
            continue
        written += _assert_json_is_the_fields_text(rec.key_type, raw)
    assert written > 0


@_NEEDS_EXT
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_value_json_on_group_metadata_and_mutations(data: st.DataObject) -> None:
    raw = _group_value(data)
    _assert_json_is_the_fields_text(2, raw)
    cut = data.draw(st.integers(0, len(raw)))
    mutated = bytearray(raw[:cut])
    for where, mask in data.draw(
        st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), max_size=3)
    ):
        if mutated:
            mutated[where % len(mutated)] ^= mask
    _assert_json_is_the_fields_text(2, bytes(mutated))


@_NEEDS_EXT
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(type_id=st.sampled_from(sorted(RECORD_TYPES)), data=st.data())
def test_value_json_on_every_value_table(type_id: int, data: st.DataObject) -> None:
    rt = RECORD_TYPES[type_id]
    lo, hi = rt.value.valid
    version = data.draw(st.integers(lo, hi))
    if type_id == 2:
        raw = _group_value(data)
    else:
        fields = data.draw(_struct(rt.value.struct, version))
        raw = wire.INT16.pack(version) + layouts.encode_message(rt.value, version, fields)
    raw += data.draw(st.sampled_from([b"", b"", b"\x00"]))
    _assert_json_is_the_fields_text(type_id, raw)


@_NEEDS_EXT
def test_each_compiled_type_shows_the_garbage_collector_what_it_holds() -> None:
    """ext_types.h traverses each type through its table of owned references: every object a
    Reader, ValueDecoder, Scanner, LineWriter and CsvWriter holds is one it reports."""
    import gc

    import crc32c

    ext = native.get()
    values = dec.native_value_decoder()

    def fallback(b: bytes, p: int, e: int) -> None:
        return None

    program: tuple[Any, Any] = ((), ())
    held = {
        ext.Reader(program, fallback, False): [program, fallback],
        ext.LineWriter(dec.DecodedRecord, dec._SCANNER_SLOTS, values): [dec.DecodedRecord, values],
        ext.CsvWriter(dec.DecodedRecord, dec._SCANNER_SLOTS, values): [dec.DecodedRecord, values],
    }
    scanner = dec.native_scanner()
    held[scanner] = [dec.DecodedRecord, dec._KEY_CACHE, dec.decode_key, crc32c.crc32c, values]
    for obj, refs in held.items():
        seen = gc.get_referents(obj)
        for ref in refs:
            assert any(s is ref for s in seen), (type(obj).__name__, ref)
    assert len(gc.get_referents(scanner)) == 6  # the record type names too
    (tables,) = gc.get_referents(values)  # ValueDecoder: (values, subscription, assignment)
    assert isinstance(tables, tuple) and len(tables) == 3
