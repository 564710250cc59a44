"""Describe + committed offsets of N groups: WireClient (batched) against librdkafka (per group).

Starts a tansu sandbox broker on a free port (or uses KGROUP_BENCH_BOOTSTRAP), commits offsets
for N groups x P partitions with librdkafka, then times, on a fresh client each:
  wire:      WireClient.describe_groups(all) + WireClient.committed_offsets(all)
  librdkafka: GroupAdmin.describe_groups(all) + GroupAdmin.committed_offsets(g) for each group
and prints wall times and the WireClient's requests per API. Target (issue 3): requests
independent of the group count (one per coordinator and batch of 1000), describe of 500 groups
well under 3 s.

    python benchmarks/bench_wire.py [GROUPS] [PARTITIONS]
"""

from __future__ import annotations

import os
import sys
import time
import uuid


def seed(bootstrap: str, groups: int, partitions: int) -> list[str]:
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    tag = uuid.uuid4().hex[:6]
    topic = f"bench-wire-{tag}"
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(30)
    names = [f"bench-wire-{tag}-{i:04d}" for i in range(groups)]
    futures = []
    for index, group in enumerate(names):
        offsets = [TopicPartition(topic, p, index + p) for p in range(partitions)]
        futures += admin.alter_consumer_group_offsets(
            [ConsumerGroupTopicPartitions(group, offsets)], request_timeout=60
        ).values()
    for future in futures:
        future.result()
    return names


def main() -> int:
    groups = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    partitions = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    from kgroup.core.admin import GroupAdmin
    from kgroup.core.config import ClusterConfig
    from kgroup.core.wire.client import WireClient

    state = None
    bootstrap = os.environ.get("KGROUP_BENCH_BOOTSTRAP")
    if not bootstrap:
        from kgroup.sandbox.broker import start_tansu

        os.environ.setdefault("XDG_STATE_HOME", f"/tmp/kgroup-bench-{os.getpid()}")
        state = start_tansu()
        bootstrap = state.bootstrap
    try:
        names = seed(bootstrap, groups, partitions)
        config = ClusterConfig(bootstrap_servers=bootstrap, timeout_s=30)

        started = time.perf_counter()
        cpu = time.process_time()
        with WireClient(config) as client:
            described = client.describe_groups(names)
            middle = time.perf_counter()
            offsets = client.committed_offsets(names)
            ended = time.perf_counter()
            counts = dict(sorted(client.request_counts.items()))
        cpu = time.process_time() - cpu
        assert all(d.error is None for d in described.values())
        assert sum(len(o) for o in offsets.values() if isinstance(o, dict)) == groups * partitions
        print(
            f"wire: {groups} groups x {partitions} partitions: describe "
            f"{1000 * (middle - started):.0f} ms + committed offsets "
            f"{1000 * (ended - middle):.0f} ms = "
            f"{1000 * (ended - started):.0f} ms wall (including connect), {1000 * cpu:.0f} ms "
            f"CPU (this process: encode, decode, sockets); requests {counts}"
        )

        admin = GroupAdmin(config)
        started = time.perf_counter()
        admin.describe_groups(names)
        middle = time.perf_counter()
        for name in names:
            admin.committed_offsets(name)
        ended = time.perf_counter()
        print(
            f"librdkafka: describe {1000 * (middle - started):.0f} ms + committed offsets "
            f"{1000 * (ended - middle):.0f} ms = {1000 * (ended - started):.0f} ms wall "
            f"(one DescribeGroups-family request per group, one call per group for offsets)"
        )
    finally:
        if state is not None:
            from kgroup.sandbox.broker import stop_process

            stop_process(state.pid, state.binary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
