"""Encoder -> decoder round trips for every record type and value version (hypothesis)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgroup.offsets import layouts, schema, wire
from kgroup.offsets.decode import decode_kv
from kgroup.offsets.encode import encode_key, encode_value
from kgroup.offsets.schema import RECORD_TYPES, Array, Field, Struct

_INTS = {
    "int8": st.integers(-(2**7), 2**7 - 1),
    "int16": st.integers(-(2**15), 2**15 - 1),
    "uint16": st.integers(0, 2**16 - 1),
    "int32": st.integers(-(2**31), 2**31 - 1),
    "int64": st.integers(-(2**63), 2**63 - 1),
}
_TEXT = st.text(max_size=8)
_UUID = st.binary(min_size=16, max_size=16).map(wire.uuid_to_str)


def _type_strategy(typ: Any, version: int, nullable: bool) -> st.SearchStrategy[Any]:
    if isinstance(typ, str):
        if typ in _INTS:
            base: st.SearchStrategy[Any] = _INTS[typ]
        elif typ == "uuid":
            base = _UUID
        elif typ == "string":
            base = _TEXT
        elif typ == "bytes":
            base = st.binary(max_size=8)
        else:
            raise AssertionError(typ)
    elif isinstance(typ, Array):
        base = st.lists(_type_strategy(typ.of, version, False), max_size=3)
    elif isinstance(typ, Struct):
        base = _struct_strategy(typ, version)
    else:
        raise AssertionError(typ)
    return st.one_of(st.none(), base) if nullable else base


def _struct_strategy(struct: Struct, version: int) -> st.SearchStrategy[dict[str, Any]]:
    required: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for fd in struct.fields:
        if not fd.present(version):
            continue
        if fd.tag is not None:
            # tagged fields are written only when they differ from the default
            strat = _type_strategy(fd.type, version, False)
            optional[fd.key] = strat.filter(lambda v, f=fd: v != f.default)
        else:
            required[fd.key] = _type_strategy(fd.type, version, fd.nullable_in(version))
    return st.fixed_dictionaries(required, optional=optional)


def _cases() -> list[tuple[int, int]]:
    out = []
    for type_id, rt in sorted(RECORD_TYPES.items()):
        lo, hi = rt.value.valid
        for version in range(lo, hi + 1):
            if type_id == 0 and version > 0:
                continue
            out.append((type_id, version))
    return out


CASES = _cases()


def test_every_type_and_version_is_covered() -> None:
    assert {t for t, _ in CASES} == set(range(25))
    assert [v for t, v in CASES if t == 1] == [0, 1, 2, 3, 4]
    assert [v for t, v in CASES if t == 2] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(("type_id", "version"), CASES)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_round_trip(type_id: int, version: int, data: st.DataObject) -> None:
    rt = RECORD_TYPES[type_id]
    key = data.draw(_struct_strategy(rt.key.struct, 0), label="key")
    value = data.draw(_struct_strategy(rt.value.struct, version), label="value")
    if type_id == 2:
        # members' protocol bytes are decoded for known protocol types; keep them opaque here
        value["protocol_type"] = data.draw(st.sampled_from(["", "sr", "kgroup-test"]))
        for m in value["members"]:
            if m["subscription"] is not None:
                m["subscription"] = {"raw_base64": m["subscription"]}
            if m["assignment"] is not None:
                m["assignment"] = {"raw_base64": m["assignment"]}
    rec = decode_kv(encode_key(type_id, key), encode_value(type_id, version, value))
    assert rec.error is None, rec.error
    assert rec.key_type == type_id
    assert rec.record_type == rt.name
    assert rec.key == key
    assert rec.value_version == version
    if rec.layout is not None:
        # an alternate (older) layout parsed the same bytes; that is only legitimate when
        # the newer layout could not, which the round trip of the current layout excludes
        pytest.fail(f"decoded with {rec.layout}")
    assert rec.value == value


_SUB = schema.CONSUMER_PROTOCOL_SUBSCRIPTION
_ASSIGN = schema.CONSUMER_PROTOCOL_ASSIGNMENT


@settings(max_examples=60, deadline=None)
@given(data=st.data(), version=st.integers(0, 3))
def test_consumer_protocol_round_trip_inside_group_metadata(
    data: st.DataObject, version: int
) -> None:
    sub = data.draw(_struct_strategy(_SUB.struct, version))
    assign = data.draw(_struct_strategy(_ASSIGN.struct, version))
    value = {
        "protocol_type": "consumer",
        "generation": 1,
        "protocol": "range",
        "leader": "m",
        "current_state_timestamp": 5,
        "members": [
            {
                "member_id": "m",
                "group_instance_id": None,
                "client_id": "c",
                "client_host": "/h",
                "rebalance_timeout": 1,
                "session_timeout": 2,
                "subscription": {"version": version, **sub},
                "assignment": {"version": version, **assign},
            }
        ],
    }
    rec = decode_kv(encode_key(2, {"group": "g"}), encode_value(2, 3, value))
    assert rec.value == value


@pytest.mark.parametrize("msg", [schema.CONNECT_METADATA, schema.CONNECT_ASSIGNMENT])
@settings(max_examples=30, deadline=None)
@given(data=st.data(), version=st.integers(0, 2))
def test_connect_protocol_round_trip(
    msg: schema.Message, data: st.DataObject, version: int
) -> None:
    fields = data.draw(_struct_strategy(msg.struct, version))
    raw = layouts.encode_message(msg, version, fields)
    decoded, pos = layouts.read_message(msg, version, raw)
    assert pos == len(raw)
    assert decoded == fields


def test_field_table_spelling_follows_kafka() -> None:
    assert schema.snake("commitTimestamp") == "commit_timestamp"
    assert schema.snake("RebalanceTimeoutMs") == "rebalance_timeout_ms"
    assert schema.snake("GroupId") == "group_id"
    fields: list[Field] = list(schema.OFFSET_COMMIT_VALUE.fields)
    assert [f.key for f in fields] == [
        "offset",
        "leader_epoch",
        "metadata",
        "commit_timestamp",
        "expire_timestamp",
        "topic_id",
    ]


def test_duplicate_record_types_are_refused() -> None:
    rt = RECORD_TYPES[1]
    with pytest.raises(ValueError, match="duplicate"):
        schema._index((rt, rt))
