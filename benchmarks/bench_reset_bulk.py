"""Bulk `reset-offsets --all-groups --execute` against a coordinator that delays joins as Kafka.

A FAKE coordinator (tests/unit/wire/fakecoordinator.py: a scripted broker speaking Kafka's
JoinGroup/SyncGroup/LeaveGroup/OffsetCommit/DescribeGroups bytes, with classic group membership
as Kafka's GroupMetadataManager keeps it), not Apache Kafka: no Kafka runs on these machines. It
holds the first join of an empty group for `group.initial.rebalance.delay.ms`, 3 s as Kafka's
default (KGROUP_BENCH_JOIN_DELAY_S changes it). It runs in this process; kgroup runs as a whole
`python -m kgroup` process, as a user runs it.

Target (issue 23.1): 200 groups in < 10 s, every group fenced (its commit made by its fencing
member), backed up and verified, in the groups' order. Serial fencing would need 200 x 3 s =
10 minutes. Run by hand: `python benchmarks/bench_reset_bulk.py` (KGROUP_BENCH_GROUPS changes 200).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tests.unit.wire.fakecoordinator import CoordinatorCluster

GROUPS = int(os.environ.get("KGROUP_BENCH_GROUPS", "200"))
DELAY_S = float(os.environ.get("KGROUP_BENCH_JOIN_DELAY_S", "3"))
PARTITIONS = 4
TARGET_S = 10.0


def main() -> int:
    root = os.path.join(os.path.dirname(__file__), "..")
    cluster = CoordinatorCluster(
        initial_delay_s=DELAY_S,
        topics={"orders": PARTITIONS},
        offsets={
            f"bulk-{i:03d}": {("orders", p): 2 for p in range(PARTITIONS)} for i in range(GROUPS)
        },
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGROUP_")}
    env["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="kgroup-bench-reset-")
    env["XDG_CONFIG_HOME"] = env["XDG_STATE_HOME"]
    env["PYTHONPATH"] = os.path.abspath(root)
    command = [sys.executable, "-m", "kgroup", "-b", cluster.address, "--timeout", "30"]
    command += ["reset-offsets", "--all-groups", "--all-topics", "--to-offset", "9"]
    command += ["--execute", "-o", "json"]
    try:
        started = time.perf_counter()
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
        wall = time.perf_counter() - started
    finally:
        cluster.close()
    if result.returncode != 0:
        print(result.stderr, file=sys.stderr)
        return 1
    outcomes = json.loads(result.stdout)["groups"]
    names = [o["group"] for o in outcomes]
    fenced = {g for g, _member, _offsets in cluster.member_commits}
    ok = (
        names == sorted(cluster.offsets)
        and all(o["status"] == "committed" and o["fenced"] for o in outcomes)
        and all(o["verified_partitions"] == PARTITIONS and o["backup"] for o in outcomes)
        and fenced == set(names)
        and not cluster.admin_commits
    )
    joins = sorted(when for _g, _m, when in cluster.joins)
    print(f"fake coordinator (not Kafka), join delay {DELAY_S:g} s, {PARTITIONS} partitions/group")
    print(
        f"{GROUPS} groups: {wall:.1f} s wall (serial would be >= {GROUPS * DELAY_S:.0f} s); "
        f"joins answered over {joins[-1] - joins[0]:.1f} s; all fenced, backed up, verified, "
        f"in order: {ok}; target < {TARGET_S:g} s"
    )
    return 0 if ok and wall < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
