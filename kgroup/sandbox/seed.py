"""Demo data for the sandbox: topics, records with known timestamps, and two groups with lag.

- `orders` (3 partitions: 40, 30, 20 records) and `payments` (2 partitions: 10, 10 records);
  record i of partition p has timestamp 2026-01-01T00:00:00Z + i minutes + p seconds.
- `billing`: an Empty group (no members) with committed offsets, so lag shows for a stopped group.
- `shipping`: an active group: one member (a background process) subscribed to `orders` that
  committed offsets and then holds its partitions without consuming.
- `dispatch`: when the broker offers KIP-848 (ConsumerGroupHeartbeat), an active consumer-protocol
  group (`group.protocol=consumer`): one member subscribed to `payments`, committed as below.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

from kgroup.core.models import TopicPartition

BASE_TIMESTAMP_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def _per_partition(values: dict[str, list[int]]) -> dict[TopicPartition, int]:
    """`{topic: [value of partition 0, of partition 1, ...]}` as TopicPartition -> value."""
    return {TopicPartition(t, p): v for t, vs in values.items() for p, v in enumerate(vs)}


TOPICS: dict[str, int] = {"orders": 3, "payments": 2}
RECORDS_PER_PARTITION = _per_partition({"orders": [40, 30, 20], "payments": [10, 10]})
EMPTY_GROUP = "billing"
# lag 10, 0, 15 on orders; 0, 6 on payments
EMPTY_GROUP_OFFSETS = _per_partition({"orders": [30, 30, 5], "payments": [10, 4]})
ACTIVE_GROUP = "shipping"
ACTIVE_GROUP_TOPICS = ["orders"]
ACTIVE_GROUP_OFFSETS = _per_partition({"orders": [35, 20, 20]})  # lag 5, 10, 0

KIP848_GROUP = "dispatch"
KIP848_GROUP_TOPICS = ["payments"]
KIP848_GROUP_OFFSETS = _per_partition({"payments": [7, 10]})  # lag 3, 0
CONSUMER_GROUP_HEARTBEAT_KEY = 68  # KIP-848's ConsumerGroupHeartbeat API


def kip848_support(admin) -> tuple[bool, str]:
    """Whether the broker offers KIP-848 consumer groups (ApiVersions lists
    ConsumerGroupHeartbeat), and why not when it does not."""
    wire = admin.wire
    if wire is None:
        return False, "cannot read the broker's ApiVersions with this client configuration"
    versions = wire.api_versions()
    if CONSUMER_GROUP_HEARTBEAT_KEY not in versions:
        return False, "the broker does not offer ConsumerGroupHeartbeat (KIP-848)"
    return True, ""


def record_timestamp(tp: TopicPartition, index: int) -> int:
    """The timestamp (ms) of record `index` of partition `tp` in the demo data."""
    return BASE_TIMESTAMP_MS + index * 60_000 + tp.partition * 1_000


def demo_records() -> Iterator[object]:
    from kgroup.core.clients import SeedRecord

    for tp, count in RECORDS_PER_PARTITION.items():
        for index in range(count):
            yield SeedRecord(
                tp.topic,
                tp.partition,
                record_timestamp(tp, index),
                key=f"{tp.topic}-{index}".encode(),
                value=f'{{"n": {index}}}'.encode(),
            )


def seed(admin, engine: str = "tansu") -> dict[str, object]:
    """Create the demo data on the cluster behind `admin`; safe to run twice."""
    from kgroup.core.clients import commit_as_empty_group, create_topics, produce_one_per_request

    created = create_topics(admin, TOPICS)
    ends = admin.list_offsets(list(RECORDS_PER_PARTITION), "latest")
    produced = 0
    if all(ends[tp].offset == 0 for tp in RECORDS_PER_PARTITION):
        produced = produce_one_per_request(admin, demo_records())
    elif any(ends[tp].offset != n for tp, n in RECORDS_PER_PARTITION.items()):
        from kgroup.core.errors import SafetyRefusal

        raise SafetyRefusal(
            "the topics orders/payments already hold other data",
            hint="seed a fresh sandbox: kgroup sandbox stop && kgroup sandbox start",
        )
    commit_as_empty_group(admin, EMPTY_GROUP, EMPTY_GROUP_OFFSETS)
    return {"topics_created": created, "records_produced": produced}


def start_active_member(bootstrap: str, engine: str, wait_s: float = 30.0) -> int:
    """Start the background member of the active group; returns its PID once it committed."""
    return start_member(
        bootstrap, engine, ACTIVE_GROUP, ACTIVE_GROUP_TOPICS, ACTIVE_GROUP_OFFSETS, wait_s=wait_s
    )


def start_kip848_member(bootstrap: str, engine: str, wait_s: float = 30.0) -> int:
    """Start the background KIP-848 member of `dispatch`; returns its PID once it committed."""
    return start_member(
        bootstrap,
        engine,
        KIP848_GROUP,
        KIP848_GROUP_TOPICS,
        KIP848_GROUP_OFFSETS,
        wait_s=wait_s,
        protocol="consumer",
    )


def start_member(
    bootstrap: str,
    engine: str,
    group: str,
    topics: list[str],
    commit: dict[TopicPartition, int],
    *,
    wait_s: float = 30.0,
    protocol: str = "classic",
) -> int:
    """Start a real member of `group` in the background (`python -m kgroup.sandbox.member`);
    returns its PID once it joined and committed `commit`."""
    from kgroup.core.errors import KafkaOperationError

    ready = os.path.join(tempfile.mkdtemp(prefix="kgroup-member-"), "ready")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kgroup.sandbox.member",
            "--bootstrap",
            bootstrap,
            "--group",
            group,
            "--topics",
            ",".join(topics),
            "--commit",
            ",".join(f"{tp.topic}:{tp.partition}={o}" for tp, o in commit.items()),
            "--engine",
            engine,
            "--ready-file",
            ready,
            "--protocol",
            protocol,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + wait_s
    while not os.path.exists(ready):
        if process.poll() is not None:
            err = process.stderr.read().decode(errors="replace").strip() if process.stderr else ""
            raise KafkaOperationError(
                f"the member of {group} exited early: {err.splitlines()[-1:]}"
            )
        if time.monotonic() > deadline:
            process.kill()
            raise KafkaOperationError(f"the member did not join {group} in {wait_s:g} s")
        time.sleep(0.1)
    if process.stderr:
        process.stderr.close()
    return process.pid
