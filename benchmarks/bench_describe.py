"""describe at scale on the sandbox broker (tansu), whole `kgroup` processes.

Builds 500 groups x 10 partitions (50 topics of 10 partitions, group i commits the 10 partitions of
topic i % 50), then measures:
- `kgroup describe --all-groups -o json`: wall time (median of 3; target <= 3 s) and the Kafka
  requests sent per API (from `--verbose`; target: independent of the group count);
- `kgroup describe GROUP -o json` for one group: wall time, median of 11 (target <= 400 ms).
The same request counts for 50 groups are printed, to show they do not grow with groups.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from kgroup.core.admin import GroupAdmin
from kgroup.core.clients import SeedRecord, create_topics, produce_one_per_request
from kgroup.core.config import ClusterConfig
from kgroup.sandbox.broker import start_tansu, stop_process

GROUPS = 500
TOPICS = 50
PARTITIONS = 10


def kgroup(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kgroup", *args], capture_output=True, text=True, check=False
    )


def timed(*args: str, runs: int) -> tuple[float, subprocess.CompletedProcess[str]]:
    times = []
    result = None
    for _ in range(runs):
        started = time.perf_counter()
        result = kgroup(*args)
        times.append(time.perf_counter() - started)
        if result.returncode != 0:
            raise SystemExit(f"kgroup {' '.join(args)} failed: {result.stderr}")
    assert result is not None
    return statistics.median(times), result


def request_counts(*args: str) -> str:
    result = kgroup("-v", *args)
    match = re.search(r"requests sent: (.*)", result.stderr)
    return match.group(1) if match else "(not reported)"


def seed(bootstrap: str) -> None:
    """GROUPS groups with committed offsets on TOPICS topics of PARTITIONS partitions (shared by
    bench_check.py)."""
    admin = GroupAdmin(ClusterConfig(bootstrap_servers=bootstrap, timeout_s=30))
    topics = {f"bench-{t:02d}": PARTITIONS for t in range(TOPICS)}
    create_topics(admin, topics)
    produce_one_per_request(
        admin,
        (
            SeedRecord(topic, p, 1_767_225_600_000 + i, None, b"x")
            for topic in topics
            for p in range(PARTITIONS)
            for i in range(2)
        ),
    )
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition

    futures = []
    for g in range(GROUPS):
        topic = f"bench-{g % TOPICS:02d}"
        request = [
            ConsumerGroupTopicPartitions(
                f"bench-group-{g:03d}",
                [TopicPartition(topic, p, g % 3) for p in range(PARTITIONS)],
            )
        ]
        futures.append(admin.admin.alter_consumer_group_offsets(request)[request[0].group_id])
    for future in futures:
        future.result()


def main() -> int:
    import compileall

    # Measure what an installed kgroup does: with bytecode compiled (pip does this on install;
    # PYTHONDONTWRITEBYTECODE in some environments would otherwise recompile every run).
    compileall.compile_dir(os.path.join(os.path.dirname(__file__), "..", "kgroup"), quiet=1)
    state = start_tansu()
    bootstrap = state.bootstrap
    try:
        seed(bootstrap)

        wall, result = timed("-b", bootstrap, "describe", "--all-groups", "-o", "json", runs=3)
        import json

        groups = json.loads(result.stdout)["groups"]
        rows = sum(len(g["partitions"]) for g in groups)
        print(
            f"describe --all-groups: {len(groups)} groups, {rows} partition rows, "
            f"median wall {wall:.2f} s (target <= 3 s)"
        )
        print(
            f"  requests ({GROUPS} groups): "
            + request_counts("-b", bootstrap, "describe", "--all-groups", "-o", "json")
        )
        print(
            "  requests (50 groups):  "
            + request_counts(
                "-b", bootstrap, "describe", "--match", "^bench-group-0[0-4]", "-o", "json"
            )
        )
        one, _ = timed("-b", bootstrap, "describe", "bench-group-007", "-o", "json", runs=11)
        print(f"describe one group -o json: median wall {one * 1000:.0f} ms (target <= 400 ms)")
    finally:
        stop_process(state.pid, state.binary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
