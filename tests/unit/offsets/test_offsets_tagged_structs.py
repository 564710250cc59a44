"""Tagged struct fields as Kafka 4.x writes them (issue 18, item 2).

Kafka's message generator writes a *tagged* nullable struct with an unsigned-varint marker
inside the tagged field (0 = null, 1 = present; `MessageDataGenerator.generateStructReader`:
`if (_readable.readUnsignedVarint() <= 0)`), not the int8 -1/1 marker of an untagged nullable
struct. The bytes below are laid out by hand from Kafka 4.1's
group-coordinator/src/main/resources/common/message/ConsumerGroupMemberMetadataValue.json
(validVersions "0", flexibleVersions "0+"; ClassicMemberMetadata: tag 0, taggedVersions "0+",
nullableVersions "0+", fields SessionTimeoutMs int32 and SupportedProtocols []ClassicProtocol
{Name string, Metadata bytes}).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from kgroup.offsets import decode as dec
from kgroup.offsets import encode as enc
from kgroup.offsets import layouts, native, schema
from scripts.gen_offsets_codec import build_writer as get_writer
from tests.helpers import run_kgroup
from tests.unit.offsets.test_offsets_speedups import compiled


def h(text: str) -> bytes:
    return bytes.fromhex("".join(text.split()))


MEMBER_KEY = h(
    "0005"  # record type 5: ConsumerGroupMemberMetadataKey
    "0008 7368697070696e67"  # GroupId "shipping" (int16 length: keys are never flexible)
    "0002 6d31"  # MemberId "m1"
)

# Fields before the tagged section, shared by the three records.
HEAD = (
    "0000"  # value version 0
    "00"  # InstanceId: null (compact nullable string, 0 = null)
    "00"  # RackId: null
    "08 72646b61666b61"  # ClientId "rdkafka" (compact: length 7 + 1)
    "0a 2f31302e302e302e31"  # ClientHost "/10.0.0.1" (9 + 1)
    "02 07 6f7264657273"  # SubscribedTopicNames ["orders"] (compact array: 1 + 1)
    "00"  # SubscribedTopicRegex: null
    "000493e0"  # RebalanceTimeoutMs 300000
)

WITH_CLASSIC = h(
    HEAD + "00"  # ServerAssignor: null (a classic member)
    "01"  # tagged fields: 1
    "00"  # tag 0: ClassicMemberMetadata
    "12"  # size 18 (marker + struct)
    "01"  # marker: unsigned varint 1 = present
    "0000afc8"  # SessionTimeoutMs 45000
    "02"  # SupportedProtocols: 1 element
    "06 72616e6765"  # Name "range"
    "04 000102"  # Metadata 3 bytes (compact bytes: 3 + 1)
    "00"  # ClassicProtocol tagged fields: 0
    "00"  # ClassicMemberMetadata tagged fields: 0
)

WITHOUT_CLASSIC = h(
    HEAD + "08 756e69666f726d"  # ServerAssignor "uniform" (a consumer-protocol member)
    "00"  # tagged fields: 0 (ClassicMemberMetadata at its default, null, is not written)
)

NULL_CLASSIC = h(
    HEAD + "08 756e69666f726d"  # ServerAssignor "uniform"
    "01"  # tagged fields: 1
    "00"  # tag 0: ClassicMemberMetadata
    "01"  # size 1
    "00"  # marker: unsigned varint 0 = null
)

COMMON = {
    "instance_id": None,
    "rack_id": None,
    "client_id": "rdkafka",
    "client_host": "/10.0.0.1",
    "subscribed_topic_names": ["orders"],
    "subscribed_topic_regex": None,
    "rebalance_timeout_ms": 300000,
}
CLASSIC = {
    "session_timeout_ms": 45000,
    "supported_protocols": [{"name": "range", "metadata": b"\x00\x01\x02"}],
}
EXPECTED = {
    "with": {**COMMON, "server_assignor": None, "classic_member_metadata": CLASSIC},
    "without": {**COMMON, "server_assignor": "uniform"},
    "null": {**COMMON, "server_assignor": "uniform", "classic_member_metadata": None},
}
RAW = {"with": WITH_CLASSIC, "without": WITHOUT_CLASSIC, "null": NULL_CLASSIC}


PATHS = [
    pytest.param(False, id="python"),
    pytest.param(
        True,
        id="c",
        marks=pytest.mark.skipif(not native.available(), reason="C extension not built"),
    ),
]


@pytest.mark.parametrize("use_c", PATHS)
@pytest.mark.parametrize("case", ["with", "without", "null"])
def test_member_metadata_value_tagged_classic_struct(use_c: bool, case: str) -> None:
    with compiled(use_c):
        rec = dec.decode_kv(MEMBER_KEY, RAW[case])
        assert rec.record_type == "consumer_group_member_metadata", rec.error
        assert rec.error is None
        assert rec.key == {"group_id": "shipping", "member_id": "m1"}
        assert rec.value == EXPECTED[case]


@pytest.mark.parametrize("use_c", PATHS)
def test_compiled_reader_reads_the_tagged_struct_itself(use_c: bool) -> None:
    """The C reader must not give up on these bytes (the parity tests only check equality)."""
    msg = schema.CONSUMER_GROUP_MEMBER_METADATA_VALUE
    with compiled(use_c):
        reader = layouts.get_reader(msg.struct, 0, True)
        for case, raw in RAW.items():
            if use_c:
                assert reader.try_read(raw, 2, len(raw)) == (EXPECTED[case], len(raw)), case
            assert reader(raw, 2, len(raw)) == (EXPECTED[case], len(raw)), case


def test_a_non_marker_byte_is_a_decode_error() -> None:
    """A marker that is neither 0 nor 1 is not what Kafka writes; a multi-byte varint marker
    would still be read by Kafka (`<= 0` null, else present), and so is it here."""
    bad = bytearray(NULL_CLASSIC)
    bad[-1] = 0x01  # present, but no struct bytes within the tagged field's size
    rec = dec.decode_kv(MEMBER_KEY, bytes(bad))
    assert rec.record_type == "unknown"
    assert "sessionTimeoutMs" in (rec.error or "")  # Kafka's spelling (`camelCaseName()`)


def test_encoder_writes_the_bytes_kafka_writes() -> None:
    assert enc.encode_value(5, 0, EXPECTED["with"]) == WITH_CLASSIC
    assert enc.encode_value(5, 0, EXPECTED["without"]) == WITHOUT_CLASSIC
    # null is the default: like Kafka, not written at all
    assert enc.encode_value(5, 0, EXPECTED["null"]) == WITHOUT_CLASSIC


def test_encoder_null_marker_of_a_tagged_struct_is_a_varint_zero() -> None:
    """Inside a tagged field a nullable struct is marked by an unsigned varint: 0 null, 1
    present. Kafka's default is null (never written), so the field is given another default
    here to make the writer write a null."""
    fd = next(
        x
        for x in schema.CONSUMER_GROUP_MEMBER_METADATA_VALUE.fields
        if x.name == "ClassicMemberMetadata"
    )
    table = schema.Struct("T", (dataclasses.replace(fd, default=None),))
    out = bytearray()
    get_writer(table, 0, True)({"classic_member_metadata": None}, out)
    assert bytes(out) == h("01 00 01 00")  # one tag: tag 0, 1 byte, marker 0 (null)
    out = bytearray()
    get_writer(table, 0, True)({"classic_member_metadata": CLASSIC}, out)
    # the same tagged field as in WITH_CLASSIC: tag 0, size 18, marker 01 + the struct
    assert bytes(out) == h("01 00 12") + WITH_CLASSIC[-18:]


def _segment_dir(tmp_path: Path) -> Path:
    d = tmp_path / "__consumer_offsets-12"
    d.mkdir()
    batch = enc.encode_batch(
        [(MEMBER_KEY, RAW["with"]), (MEMBER_KEY, RAW["without"]), (MEMBER_KEY, RAW["null"])],
        base_offset=0,
        timestamp=1_760_000_000_000,
    )
    (d / "00000000000000000000.log").write_bytes(batch)
    return d


def _jsonable(value: dict[str, Any]) -> dict[str, Any]:
    out = json.loads(json.dumps(value, default=lambda b: None))
    if value.get("classic_member_metadata"):
        # bytes print as base64 (CLI.md "decode output records")
        out["classic_member_metadata"]["supported_protocols"][0]["metadata"] = "AAEC"
    return out


def test_decode_segments_cli_reads_kafka_4_1_member_records(tmp_path: Path) -> None:
    d = _segment_dir(tmp_path)
    result = run_kgroup("decode", "--segments", str(d), "-o", "jsonl")
    lines = [json.loads(x) for x in result.stdout.splitlines()]
    assert [x["record_type"] for x in lines] == ["consumer_group_member_metadata"] * 3
    assert [x["offset"] for x in lines] == [0, 1, 2]
    assert all(x["key"] == {"group_id": "shipping", "member_id": "m1"} for x in lines)
    assert [x["value"] for x in lines] == [
        _jsonable(EXPECTED["with"]),
        _jsonable(EXPECTED["without"]),
        _jsonable(EXPECTED["null"]),
    ]
    assert "unknown" not in result.stdout
