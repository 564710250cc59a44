"""`kgroup decode --segments` of record type 15, ShareGroupStatePartitionMetadataValue, in each
layout Kafka's files have had (issue #26).

The bytes are laid out by hand from Kafka's
group-coordinator/src/main/resources/common/message/ShareGroupStatePartitionMetadataValue.json
(validVersions "0", flexibleVersions "0+": compact arrays and strings, a tagged-field count
after every struct):

- at apache/kafka 25002b6a64b07c60e5777685732620ad6df6bbd5 (the newest): InitializingTopics,
  InitializedTopics ([]TopicPartitionsInfo: TopicId uuid, TopicName string, Partitions []int32,
  CreateTimestamp int64), DeletingTopics ([]TopicInfo: TopicId, TopicName);
- at 7e11ea85e0c7aafa334fe9bebfc278c88c0ae5ad (the 4.0 layout): InitializedTopics and
  DeletingTopics, TopicPartitionsInfo without CreateTimestamp;
- trunk between them (apache/kafka#19339): InitializingTopics, TopicPartitionsInfo without
  CreateTimestamp.

Each must come out with the fields its own layout gives, and never as another layout.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from kgroup.offsets import encode as enc
from tests.helpers import run_kgroup


def h(text: str) -> bytes:
    return bytes.fromhex("".join(text.split()))


def topic_id(hex16: str) -> str:
    """A uuid as Kafka prints it: URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(h(hex16)).decode().rstrip("=")


KEY = h("000f 0002 7367")  # record type 15, GroupId "sg" (int16 length: keys are never flexible)

A = "6f1c3b3b5e1a4f6d8e2c1a2b3c4d5e6f"  # "orders"
B = "0a1b2c3d4e5f40718293a4b5c6d7e8f9"  # "payments"
C = "f0e1d2c3b4a5968778695a4b3c2d1e0f"  # "old"
TS_A = "0000019685b5b400"  # 1746000000000
TS_B = "0000019685b5c788"  # 1746000005000

ORDERS = A + "07 6f7264657273" + "03 00000000 00000001"  # TopicName "orders", Partitions [0, 1]
PAYMENTS = B + "09 7061796d656e7473" + "02 00000002"  # "payments", [2]
OLD = C + "04 6f6c64" + "00"  # TopicInfo: "old", tagged fields 0

NEWEST = h(
    "0000"  # value version 0
    "02" + ORDERS + TS_A + "00"  # InitializingTopics: 1; CreateTimestamp; tagged fields 0
    "02" + PAYMENTS + TS_B + "00"  # InitializedTopics: 1
    "02"
    + OLD  # DeletingTopics: 1
    + "00"  # tagged fields: 0
)
KAFKA_4_0 = h(
    "0000"
    "02" + PAYMENTS + "00"  # InitializedTopics: 1 (no CreateTimestamp)
    "02"
    + OLD  # DeletingTopics: 1
    + "00"
)
TRUNK = h(
    "0000"
    "02" + ORDERS + "00"  # InitializingTopics: 1 (no CreateTimestamp)
    "02" + PAYMENTS + "00"  # InitializedTopics: 1
    "01"  # DeletingTopics: empty
    "00"
)

ORDERS_JSON = {"topic_id": topic_id(A), "topic_name": "orders", "partitions": [0, 1]}
PAYMENTS_JSON = {"topic_id": topic_id(B), "topic_name": "payments", "partitions": [2]}
OLD_JSON = {"topic_id": topic_id(C), "topic_name": "old"}


def _decode(tmp_path: Path, *values: bytes) -> list[dict[str, Any]]:
    d = tmp_path / "__consumer_offsets-7"
    d.mkdir()
    batch = enc.encode_batch([(KEY, v) for v in values], base_offset=0, timestamp=1_746_000_000_000)
    (d / "00000000000000000000.log").write_bytes(batch)
    result = run_kgroup("decode", "--segments", str(d), "-o", "jsonl")
    assert result.code == 0, result.stderr
    lines = [json.loads(x) for x in result.stdout.splitlines()]
    assert len(lines) == len(values)
    for line in lines:
        assert line["record_type"] == "share_group_state_partition_metadata", line
        assert line["key"] == {"group_id": "sg"}
        assert "error" not in line and "value_raw_base64" not in line, line
    return lines


def test_newest_layout_with_create_timestamps(tmp_path: Path) -> None:
    (line,) = _decode(tmp_path, NEWEST)
    assert line["value"] == {
        "initializing_topics": [{**ORDERS_JSON, "create_timestamp": 1_746_000_000_000}],
        "initialized_topics": [{**PAYMENTS_JSON, "create_timestamp": 1_746_000_005_000}],
        "deleting_topics": [OLD_JSON],
    }
    assert "layout" not in line  # read as its own version says


def test_kafka_4_0_layout(tmp_path: Path) -> None:
    (line,) = _decode(tmp_path, KAFKA_4_0)
    assert line["value"] == {"initialized_topics": [PAYMENTS_JSON], "deleting_topics": [OLD_JSON]}
    assert line["layout"] == "kafka-4.0"


def test_trunk_layout_is_not_read_with_a_create_timestamp(tmp_path: Path) -> None:
    (line,) = _decode(tmp_path, TRUNK)
    assert line["value"] == {
        "initializing_topics": [ORDERS_JSON],
        "initialized_topics": [PAYMENTS_JSON],
        "deleting_topics": [],
    }
    assert line["layout"] == "kafka-trunk"


def test_the_three_layouts_in_one_segment(tmp_path: Path) -> None:
    """Each earlier layout gets its own reader (not the first earlier layout's, reused)."""
    lines = _decode(tmp_path, TRUNK, KAFKA_4_0, NEWEST, TRUNK)
    assert [x.get("layout") for x in lines] == [
        "kafka-trunk",
        "kafka-4.0",
        None,
        "kafka-trunk",
    ]
    assert lines[0]["value"] == lines[3]["value"]
    assert "create_timestamp" not in json.dumps(lines[0]["value"])
    assert "create_timestamp" not in json.dumps(lines[1]["value"])
