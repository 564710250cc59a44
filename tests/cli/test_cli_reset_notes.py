"""What `reset-offsets --execute` says on stderr around the fence, through a real `kgroup` process
against the scripted coordinator (tests/unit/wire/fakecoordinator.py, a fake: no Kafka here):
the assign() warning only for a group without members (issue 23.4), and the type flip of an empty
KIP-848 group while kgroup holds it (issue 23.5)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

from tests.cli.test_cli_reset_fence import kgroup_env
from tests.unit.wire.fakecoordinator import CoordinatorCluster
from tests.unit.wire.fakegroups import FakeConsumerGroup

# The fake serves no `__consumer_offsets` to read a group's last commit from: this process
# answers that one reading with "5 s ago", the rest is the real kgroup.
RECENT_COMMIT = """
import sys, time
import kgroup.reset.liveness as liveness
liveness.last_commit_ms = lambda *a, **k: int(time.time() * 1000) - 5000
from kgroup.cli.app import run
sys.exit(run(sys.argv[1:]))
"""


def reset(cluster, tmp_path, group: str, *, code: str | None = None):
    args = ["-b", cluster.address, "--timeout", "10", "reset-offsets", group, "--all-topics"]
    args += ["--to-offset", "9", "--execute", "-o", "json"]
    command = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "kgroup"]
    command += [] if code else args
    return subprocess.run(
        command, env=kgroup_env(tmp_path), capture_output=True, text=True, timeout=60
    )


def cluster_of(**kwargs) -> CoordinatorCluster:
    return CoordinatorCluster(
        initial_delay_s=0.1,
        topics={"orders": 1},
        offsets={"gkip": {("orders", 0): 2}},
        **kwargs,
    )


def test_no_assign_warning_for_a_group_with_members(tmp_path) -> None:
    cluster = cluster_of()
    try:
        cluster.add_stray_member("gkip", "c1-x", "consumer-1", session_s=60)
        cluster.add_stray_member("gkip", "c2-y", "consumer-2", session_s=60)
        result = reset(cluster, tmp_path, "gkip", code=RECENT_COMMIT)
        assert result.returncode == 4, result.stderr
        assert "has 2 active member(s)" in result.stderr
        assert "no member" not in result.stderr and "assign()" not in result.stderr
    finally:
        cluster.close()


def test_the_assign_warning_stays_for_a_group_without_members(tmp_path) -> None:
    cluster = cluster_of()
    try:
        result = reset(cluster, tmp_path, "gkip", code=RECENT_COMMIT)
        assert result.returncode == 0, result.stderr
        assert re.search(
            r"gkip: warning: no member, but an offset was committed \d s ago", result.stderr
        )
        assert json.loads(result.stdout)["groups"][0]["status"] == "committed"
    finally:
        cluster.close()


def test_an_empty_kip848_group_turned_classic_by_the_fence_is_said(tmp_path) -> None:
    cluster = cluster_of(consumer_groups={"gkip": FakeConsumerGroup(members=(), state="Empty")})
    try:
        result = reset(cluster, tmp_path, "gkip")
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["groups"][0]["status"] == "committed"
        assert "gkip" not in cluster.consumer_groups  # Kafka made it classic (the fake does)
        notes = [line for line in result.stderr.splitlines() if "KIP-848" in line]
        assert len(notes) == 1 and "classic" in notes[0], result.stderr
        assert cluster.committed("gkip") == {("orders", 0): 9}
    finally:
        cluster.close()


def test_a_classic_group_gets_no_such_note(tmp_path) -> None:
    cluster = cluster_of()
    try:
        started = time.monotonic()
        result = reset(cluster, tmp_path, "gkip")
        assert result.returncode == 0 and "KIP-848" not in result.stderr
        assert time.monotonic() - started < 60
    finally:
        cluster.close()


def test_describe_marks_a_kgroup_fence_member(tmp_path) -> None:
    """Issue 24.5: describe --members / --state say a fence member is kgroup's, not a consumer."""
    cluster = cluster_of()
    try:
        label = "kgroup-reset-offsets pid 4242 on otherhost"
        member = f"{label}-0f0e0d0c-0b0a-0908-0706-050403020100"
        cluster.add_stray_member("gkip", member, label, session_s=600)
        cluster.add_stray_member("gkip", "app-1", "billing-app", session_s=600)
        for view in ("--members", "--state"):
            result = subprocess.run(
                [sys.executable, "-m", "kgroup", "-b", cluster.address, "describe", "gkip", view],
                env=kgroup_env(tmp_path),
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert result.returncode == 0, result.stderr
            notes = [line for line in result.stdout.splitlines() if "fence" in line]
            assert notes == [
                f"gkip: {member}: kgroup reset fence of pid 4242 on otherhost, not a consumer: "
                "it holds the group while that run changes offsets (if the run is gone, the next "
                "reset on otherhost removes it, or Kafka after its session)"
            ], result.stdout
    finally:
        cluster.close()
