"""Write a small sample `__consumer_offsets` log directory for `make demo` and the docs.

Everything is made by kgroup's encoder (`kgroup.offsets.encode`) from OFFSETS_FORMAT.md: a classic
consumer group (GroupMetadataValue v3, OffsetCommitValue v3, an expired offset's tombstone), a
Kafka 4.1 commit (value v4 with a topicId tag), a KIP-848 consumer group (types 3, 4, 5, 8), a
transactional commit with its COMMIT marker, and a gzip-compressed batch.

Usage: python scripts/sample_offsets.py DIR
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from kgroup.offsets import encode as enc
from kgroup.offsets.replay import partition_for

PARTITIONS = 50
T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z
ORDERS_ID = "MKXx1fIkQy2J9jXHhK8m1w"


def _classic(group: str, ts: int) -> list[bytes]:
    members = [
        {
            "member_id": f"consumer-{group}-{i}-4f1d",
            "group_instance_id": None,
            "client_id": f"consumer-{group}-{i}",
            "client_host": f"/10.0.0.{i + 1}",
            "rebalance_timeout": 300000,
            "session_timeout": 45000,
            "subscription": {
                "version": 3,
                "topics": ["orders"],
                "user_data": None,
                "owned_partitions": [],
                "generation_id": -1,
                "rack_id": None,
            },
            "assignment": {
                "version": 3,
                "assigned_partitions": [{"topic": "orders", "partitions": [i, i + 2]}],
                "user_data": None,
            },
        }
        for i in range(2)
    ]
    meta = enc.encode_value(
        2,
        3,
        {
            "protocol_type": "consumer",
            "generation": 4,
            "protocol": "range",
            "leader": members[0]["member_id"],
            "current_state_timestamp": ts,
            "members": members,
        },
    )
    out = [
        enc.encode_batch([(enc.encode_key(2, {"group": group}), meta)], base_offset=0, timestamp=ts)
    ]
    commits = [
        enc.offset_commit(
            group, "orders", p, 1000 + 10 * p, commit_timestamp=ts + 5000, leader_epoch=3
        )
        for p in range(4)
    ]
    out.append(enc.encode_batch(commits, base_offset=1, timestamp=ts + 5000))
    later = [
        enc.offset_commit(
            group, "orders", p, 1100 + 10 * p, commit_timestamp=ts + 65000, leader_epoch=3
        )
        for p in range(4)
    ]
    out.append(enc.encode_batch(later, base_offset=5, timestamp=ts + 65000, codec_id=1))
    key, _ = enc.offset_commit(group, "payments", 0, 0)
    out.append(enc.encode_batch([(key, None)], base_offset=9, timestamp=ts + 70000))
    v4 = enc.offset_commit(
        group,
        "orders",
        0,
        1200,
        version=4,
        commit_timestamp=ts + 90000,
        leader_epoch=4,
        topic_id=ORDERS_ID,
    )
    out.append(enc.encode_batch([v4], base_offset=10, timestamp=ts + 90000))
    pid = 4001
    txn = enc.offset_commit(group, "orders", 1, 1250, commit_timestamp=ts + 95000)
    out.append(
        enc.encode_batch(
            [txn],
            base_offset=11,
            timestamp=ts + 95000,
            producer_id=pid,
            producer_epoch=0,
            transactional=True,
        )
    )
    out.append(
        enc.encode_control_batch(
            "COMMIT",
            base_offset=12,
            timestamp=ts + 95100,
            producer_id=pid,
            producer_epoch=0,
            coordinator_epoch=2,
        )
    )
    return out


def _kip848(group: str, ts: int) -> list[bytes]:
    member = "oA4hP2yRSrmTPlLq0bVq3g"
    records = [
        (enc.encode_key(3, {"group_id": group}), enc.encode_value(3, 0, {"epoch": 7})),
        (
            enc.encode_key(4, {"group_id": group}),
            enc.encode_value(
                4,
                0,
                {
                    "topics": [
                        {
                            "topic_id": ORDERS_ID,
                            "topic_name": "orders",
                            "num_partitions": 4,
                            "partition_metadata": [],
                        }
                    ]
                },
            ),
        ),
        (
            enc.encode_key(5, {"group_id": group, "member_id": member}),
            enc.encode_value(
                5,
                0,
                {
                    "instance_id": None,
                    "rack_id": None,
                    "client_id": "rdkafka",
                    "client_host": "/10.0.0.9",
                    "subscribed_topic_names": ["orders"],
                    "subscribed_topic_regex": None,
                    "rebalance_timeout_ms": 300000,
                    "server_assignor": "uniform",
                },
            ),
        ),
        (
            enc.encode_key(8, {"group_id": group, "member_id": member}),
            enc.encode_value(
                8,
                0,
                {
                    "member_epoch": 7,
                    "previous_member_epoch": 6,
                    "state": 0,
                    "assigned_partitions": [{"topic_id": ORDERS_ID, "partitions": [0, 1, 2, 3]}],
                    "partitions_pending_revocation": [],
                },
            ),
        ),
    ]
    return [
        enc.encode_batch([kv], base_offset=i, timestamp=ts + i * 10) for i, kv in enumerate(records)
    ]


def write_sample(directory: str) -> list[str]:
    """Write the sample partitions into `directory`; returns the partition directories."""
    plan = {"billing-service": _classic, "shipping-service": _kip848}
    written = []
    for group, build in plan.items():
        part = partition_for(group, PARTITIONS)
        d = os.path.join(directory, f"__consumer_offsets-{part}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "00000000000000000000.log"), "wb") as fh:
            for batch in build(group, T0):
                fh.write(batch)
        written.append(d)
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    for path in write_sample(sys.argv[1]):
        print(path)
