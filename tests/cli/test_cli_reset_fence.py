"""`reset-offsets --execute` through a real `kgroup` process against a scripted coordinator that
holds classic groups as Kafka's does (tests/unit/wire/fakecoordinator.py, a fake: no Kafka runs
here): what the status says about the offsets when something joins while kgroup holds the group.

Kafka accepts the holder's commit while a joiner waits (PreparingRebalance keeps the generation;
ClassicGroup.validateOffsetCommit refuses only in CompletingRebalance), and holds the joiner's
JoinGroup until the holder left or its rebalance timeout passed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgroup.protocol import messages as api_table
from tests.unit.wire.fakecoordinator import CoordinatorCluster

GROUP = "billing"


@pytest.fixture()
def cluster() -> Iterator[CoordinatorCluster]:
    made = CoordinatorCluster(
        initial_delay_s=0.3,
        topics={"orders": 2},
        offsets={GROUP: {("orders", 0): 2, ("orders", 1): 2}},
    )
    yield made
    made.close()


def kgroup_env(tmp_path: Path, name: str = "host-a") -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGROUP_")}
    env.pop("NO_COLOR", None)
    env["XDG_STATE_HOME"] = str(tmp_path / name)
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return env


def start_reset(cluster, tmp_path, *groups: str, target: int = 9, name: str = "host-a"):
    command = [sys.executable, "-m", "kgroup", "-b", cluster.address, "--timeout", "10"]
    command += ["reset-offsets", *groups, "--all-topics", "--to-offset", str(target)]
    command += ["--execute", "-o", "json"]
    return subprocess.Popen(
        command,
        env=kgroup_env(tmp_path, name),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def join_in_background(
    cluster, client_id: str, group: str = GROUP
) -> tuple[threading.Thread, list]:
    """A member with `client_id` joining `group` from this test (blocks until its join answers)."""
    from kgroup.core.wire.fence import GroupFence
    from tests.helpers import admin_for

    admin = admin_for(cluster.address, timeout_s=10)
    fence = GroupFence(admin.wire, group, session_ms=6000)
    real_open = fence._open

    def open_as(timeout_s=None):
        connection = real_open(timeout_s)
        connection.client_id = client_id
        return connection

    fence._open = open_as  # type: ignore[method-assign]
    done: list = []

    def run() -> None:
        try:
            fence.acquire()
            done.append("held")
        except Exception as exc:  # refused: someone else stayed
            done.append(exc)
        finally:
            fence.release()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, done


def wait_for(predicate, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def run_with_joiner(cluster, tmp_path, client_id: str, group: str = GROUP):
    held = cluster.pause(api_table.OFFSET_COMMIT)  # the fenced commit: kgroup holds the group alone
    process = start_reset(cluster, tmp_path, "--group", group)
    assert held.reached.wait(20), process.communicate(timeout=5)
    thread, done = join_in_background(cluster, client_id, group)
    wait_for(lambda: len(cluster.group(group).members) == 2)
    held.release.set()
    stdout, stderr = process.communicate(timeout=30)
    thread.join(15)
    return process.returncode, stdout, stderr, done


def test_another_kgroup_run_joining_meanwhile_does_not_turn_a_landed_commit_into_refused(
    cluster, tmp_path
) -> None:
    """Issue 23.3: the other run (a kgroup fence member) waits, then refuses on its own
    compare-and-set; it never overwrites. The run whose commit landed says committed, exit 0."""
    code, stdout, stderr, done = run_with_joiner(
        cluster, tmp_path, "kgroup-reset-offsets pid 999999 on other-host"
    )
    outcome = json.loads(stdout)["groups"][0]
    assert (code, outcome["status"]) == (0, "committed"), stderr
    assert outcome["error"] is None
    assert cluster.committed(GROUP) == {("orders", 0): 9, ("orders", 1): 9}
    assert done == ["held"]  # the other one got the group after kgroup left it


def test_a_consumer_joining_meanwhile_is_a_distinct_status_not_refused(cluster, tmp_path) -> None:
    """The commit landed: never `refused` (exit 4, "nothing changed"); committed_at_risk, exit 8,
    naming the member and the backup to undo with."""
    code, stdout, stderr, _done = run_with_joiner(cluster, tmp_path, "billing-app")
    outcome = json.loads(stdout)["groups"][0]
    assert cluster.committed(GROUP) == {("orders", 0): 9, ("orders", 1): 9}
    assert (code, outcome["status"]) == (8, "committed_at_risk"), stderr
    assert "billing-app" in outcome["error"] and outcome["backup"]
    assert Path(outcome["backup"]).is_file()
    assert "Traceback" not in stderr


def test_refused_means_nothing_was_written(cluster, tmp_path) -> None:
    """A run that meets another kgroup run's fence refuses (exit 4) and writes nothing."""
    from tests.helpers import admin_for

    admin = admin_for(cluster.address, timeout_s=10)
    from kgroup.core.wire.fence import GroupFence

    with GroupFence(admin.wire, GROUP, session_ms=6000):
        process = start_reset(cluster, tmp_path, GROUP, name="host-b")
        stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 4, stderr
    assert json.loads(stdout)["groups"][0]["status"] == "refused"
    assert cluster.committed(GROUP) == {("orders", 0): 2, ("orders", 1): 2}
    assert cluster.member_commits == [] and cluster.admin_commits == []
