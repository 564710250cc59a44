"""`kgroup decode --segments` on the records of issue #13 that Kafka's readers reject.

Each record is written by hand into a segment; the output must show it as `unknown` with its
raw bytes and the reason (or, for a member's embedded bytes, `raw_base64` with an `error`), as
Kafka's formatter and DumpLogSegments do, never as a decoded value. Exit code 0: bad values are
data, not a failed run (README "decode").
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from kgroup.offsets import encode as enc
from tests.helpers import run_kgroup


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


TS = "00000174876e8000"  # 1600000000000
KEY_NULL_GROUP = h("0001ffff0003666f6f00000001")  # the key: group null
KEY_G_T_0 = h("0001 0001 67 0001 74 00000000")
VALUE_NULL_METADATA = h("0001 0000000000000005 ffff" + TS + TS)  # T1 v1, metadata null
GROUP_KEY = h("0002 0001 67")
# GroupMetadataMessageFormatterTest's member: subscription 0001, assignment 0102
MEMBER = "0001 6d ffff 0001 63 0002 2f68 0000ea60 00002710 00000002 0001 00000002 0102"
GROUP_VALUE = h(
    "0003 0008 636f6e73756d6572 00000001 0005 72616e6765 0001 6d" + TS + "00000001" + MEMBER
)
TARGET_KEY = h("0007 0001 67 0001 6d")
TARGET_NULL = h("0000 00 00")  # T7 TopicPartitions: compact null


def _segments(tmp_path: Path) -> Path:
    d = tmp_path / "__consumer_offsets-3"
    d.mkdir()
    batch = enc.encode_batch(
        [
            (KEY_NULL_GROUP, VALUE_NULL_METADATA),
            (KEY_G_T_0, VALUE_NULL_METADATA),
            (GROUP_KEY, GROUP_VALUE),
            (TARGET_KEY, TARGET_NULL),
        ],
        base_offset=0,
        timestamp=1_600_000_000_000,
    )
    (d / "00000000000000000000.log").write_bytes(batch)
    return d


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def test_rejected_records_are_unknown_with_raw_bytes_and_reason(tmp_path: Path) -> None:
    result = run_kgroup("decode", "--segments", str(_segments(tmp_path)), "-o", "jsonl")
    lines = [json.loads(x) for x in result.stdout.splitlines()]
    assert [x["record_type"] for x in lines] == ["unknown", "unknown", "group_metadata", "unknown"]

    null_group = lines[0]
    assert "key" not in null_group and null_group["value"] is None
    assert null_group["key_raw_base64"] == _b64(KEY_NULL_GROUP)
    assert null_group["value_raw_base64"] == _b64(VALUE_NULL_METADATA)
    assert null_group["error"] == (
        "bad OffsetCommitKey: non-nullable field group was serialized as null at byte 4"
    )

    null_metadata = lines[1]
    assert null_metadata["key"] == {"group": "g", "topic": "t", "partition": 0}
    assert null_metadata["value"] is None and null_metadata["value_version"] == 1
    assert null_metadata["value_raw_base64"] == _b64(VALUE_NULL_METADATA)
    assert null_metadata["error"] == (
        "bad OffsetCommitValue v1: non-nullable field metadata was serialized as null at byte 12"
    )

    member = lines[2]["value"]["members"][0]
    assert member["subscription"] == {
        "raw_base64": "AAE=",
        "error": "topics: truncated length at byte 2",
    }
    assert member["assignment"] == {
        "raw_base64": "AQI=",
        "error": "assignedPartitions: truncated length at byte 2",
    }

    target = lines[3]
    assert target["key"] == {"group_id": "g", "member_id": "m"}
    assert target["value"] is None and target["value_raw_base64"] == _b64(TARGET_NULL)
    assert "non-nullable field topicPartitions was serialized as null" in target["error"]


def test_table_output_shows_them_as_unknown(tmp_path: Path) -> None:
    result = run_kgroup("decode", "--segments", str(_segments(tmp_path)))
    assert result.stdout.count("unknown") >= 3
    assert "4 records" in result.stdout
