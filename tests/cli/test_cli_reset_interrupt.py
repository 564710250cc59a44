"""Ctrl-C and SIGTERM during `reset-offsets --execute` (issue 24.2), and no fence member left
behind (issue 24.5): real signals sent to a real `kgroup` process while the scripted coordinator
(tests/unit/wire/fakecoordinator.py, a fake: no Kafka here) holds the request of a chosen phase.

After planning, an interruption prints one line per group saying what is known of its offsets,
still writes the `-o json` document, and exits 130 (SIGINT) or 143 (SIGTERM, 128 + 15)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgroup.protocol import messages as api_table
from tests.cli.test_cli_reset_fence import start_reset, wait_for
from tests.unit.wire.fakecoordinator import CoordinatorCluster

START = {("orders", 0): 2, ("orders", 1): 2}
TARGET = {("orders", 0): 9, ("orders", 1): 9}


@pytest.fixture()
def cluster() -> Iterator[CoordinatorCluster]:
    made = CoordinatorCluster(
        initial_delay_s=0.2,
        topics={"orders": 2},
        offsets={g: dict(START) for g in ("g0", "g1", "g2")},
    )
    yield made
    made.close()


def interrupt(process: subprocess.Popen, sig: int = signal.SIGINT) -> tuple[str, str]:
    process.send_signal(sig)
    stdout, stderr = process.communicate(timeout=30)
    assert "Traceback" not in stderr, stderr
    return stdout, stderr


def group_lines(stderr: str) -> dict[str, str]:
    lines = [line.removeprefix("kgroup: ") for line in stderr.splitlines()]
    return {line.split(":")[0]: line for line in lines if line.startswith("g")}


def members_left(cluster: CoordinatorCluster, group: str) -> list[str]:
    state = cluster.group(group)
    return [*state.members, *state.pending]


def test_ctrl_c_during_the_join_says_not_committed_and_leaves(cluster, tmp_path) -> None:
    held = cluster.pause(api_table.JOIN_GROUP, when=lambda: bool(cluster.group("g0").pending))
    process = start_reset(cluster, tmp_path, "g0")
    assert held.reached.wait(30), process.communicate(timeout=5)
    stdout, stderr = interrupt(process)
    assert process.returncode == 130, stderr
    assert group_lines(stderr)["g0"] == "g0: not committed (interrupted): nothing changed"
    outcome = json.loads(stdout)["groups"][0]
    assert (outcome["status"], outcome["backup"]) == ("interrupted", None)
    assert cluster.committed("g0") == START
    # 24.5: the member id from MEMBER_ID_REQUIRED left (LeaveGroup), nothing stays behind
    assert [g for g, _member in cluster.leaves] == ["g0"]
    held.release.set()
    wait_for(lambda: members_left(cluster, "g0") == [])


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupted_after_the_commit_says_committed_not_verified(
    cluster, tmp_path, sig, code
) -> None:
    held = cluster.pause(
        api_table.OFFSET_FETCH, when=lambda: bool(cluster.member_commits)
    )  # read-back
    process = start_reset(cluster, tmp_path, "g0")
    assert held.reached.wait(30), process.communicate(timeout=5)
    stdout, stderr = interrupt(process, sig)
    assert process.returncode == code, stderr
    outcome = json.loads(stdout)["groups"][0]
    assert outcome["status"] == "committed_unverified"
    backup = outcome["backup"]
    assert Path(backup).is_file()
    assert group_lines(stderr)["g0"] == (
        f"g0: committed, not verified; backup {backup}; undo with: kgroup undo g0 --backup {backup}"
    )
    assert cluster.committed("g0") == TARGET
    assert members_left(cluster, "g0") == []  # the fence left on its own connection


def test_ctrl_c_after_the_read_back_says_committed_and_verified(cluster, tmp_path) -> None:
    held = cluster.pause(api_table.DESCRIBE_GROUPS, when=lambda: bool(cluster.member_commits))
    process = start_reset(cluster, tmp_path, "g0")
    assert held.reached.wait(30), process.communicate(timeout=5)
    stdout, stderr = interrupt(process)
    assert process.returncode == 130, stderr
    assert json.loads(stdout)["groups"][0]["status"] == "committed"
    assert group_lines(stderr)["g0"].startswith("g0: committed and verified; backup ")
    assert members_left(cluster, "g0") == []


def test_ctrl_c_during_the_commit_says_unknown_all_or_nothing(cluster, tmp_path) -> None:
    held = cluster.pause(api_table.OFFSET_COMMIT)
    process = start_reset(cluster, tmp_path, "g0")
    assert held.reached.wait(30), process.communicate(timeout=5)
    stdout, stderr = interrupt(process)
    assert process.returncode == 130, stderr
    assert json.loads(stdout)["groups"][0]["status"] == "unknown"
    assert "g0: unknown whether committed (all of it or none); backup " in stderr


def test_ctrl_c_in_a_bulk_reset_reports_every_group(cluster, tmp_path) -> None:
    held = cluster.pause(
        api_table.JOIN_GROUP, when=lambda: bool(cluster.group("g1").pending), group="g1"
    )
    process = start_reset(cluster, tmp_path, "g0", "g1", "g2")
    assert held.reached.wait(30), process.communicate(timeout=5)
    wait_for(lambda: {g for g, _m, _o in cluster.member_commits} == {"g0", "g2"})
    wait_for(lambda: members_left(cluster, "g0") == members_left(cluster, "g2") == [])
    stdout, stderr = interrupt(process)
    assert process.returncode == 130, stderr
    statuses = [(o["group"], o["status"]) for o in json.loads(stdout)["groups"]]
    assert statuses == [("g0", "committed"), ("g1", "interrupted"), ("g2", "committed")]
    lines = group_lines(stderr)
    assert lines["g1"] == "g1: not committed (interrupted): nothing changed"
    assert lines["g0"].startswith("g0: committed and verified; backup ")
    assert cluster.committed("g1") == START
    assert "g1" in [g for g, _member in cluster.leaves]  # its pending member left
    held.release.set()
    wait_for(lambda: members_left(cluster, "g1") == [])


def dead_pid() -> int:
    """A pid no process has: above the kernel's pid_max (a pid of a process that just ended can
    be reused within seconds on a busy machine with pid_max 32768)."""
    try:
        pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    except OSError:
        pid_max = 4_194_304
    return pid_max + 4242


def test_a_fence_member_left_by_a_killed_run_of_this_host_is_removed(cluster, tmp_path) -> None:
    """Issue 24.5: after SIGKILL the fence member stays until Kafka expires it; a later run on
    the same host sees its pid is gone, removes it (LeaveGroup by member id) and says so."""
    import socket
    import uuid

    label = f"kgroup-reset-offsets pid {dead_pid()} on {socket.gethostname()}"
    stray = f"{label}-{uuid.uuid4()}"
    cluster.add_stray_member("g0", stray, label, session_s=600)
    process = start_reset(cluster, tmp_path, "g0")
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    assert f"g0: removed fence member {stray}, left behind by kgroup run pid" in stderr
    assert "which is gone" in stderr
    assert json.loads(stdout)["groups"][0]["status"] == "committed"
    assert ("g0", stray) in cluster.leaves and cluster.committed("g0") == TARGET


def test_a_fence_member_of_another_host_is_refused_with_its_expiry(cluster, tmp_path) -> None:
    label = "kgroup-reset-offsets pid 4242 on some-other-host"
    cluster.add_stray_member("g0", f"{label}-0f0e0d0c-0b0a-0908-0706-050403020100", label, 600)
    process = start_reset(cluster, tmp_path, "g0")
    _stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 4, stderr
    assert "another kgroup run is changing the offsets of group g0" in stderr
    assert "if that run is gone, Kafka drops its member once its session (6 s" in stderr
    assert cluster.committed("g0") == START and cluster.leaves == []


@pytest.mark.parametrize("second", [signal.SIGINT, signal.SIGTERM])
def test_a_second_signal_while_stopping_still_reports_every_group(
    cluster, tmp_path, second
) -> None:
    """Ctrl-C pressed twice (or SIGTERM after it) while kgroup waits for a commit under way: the
    wait ends at once, yet every group's line and the JSON are still written, and the fence of a
    group held in its join leaves."""
    commit = cluster.pause(api_table.OFFSET_COMMIT, group="g0")
    join = cluster.pause(
        api_table.JOIN_GROUP, when=lambda: bool(cluster.group("g1").pending), group="g1"
    )
    process = start_reset(cluster, tmp_path, "g0", "g1")
    assert commit.reached.wait(30), process.communicate(timeout=5)
    assert join.reached.wait(30), process.communicate(timeout=5)
    process.send_signal(signal.SIGINT)
    time.sleep(0.5)  # inside the grace period, waiting for g0's commit
    stdout, stderr = interrupt(process, second)
    assert process.returncode in (130, 143), stderr
    statuses = [(o["group"], o["status"]) for o in json.loads(stdout)["groups"]]
    assert statuses == [("g0", "unknown"), ("g1", "interrupted")]
    lines = group_lines(stderr)
    assert lines["g0"].startswith("g0: unknown whether committed")
    assert lines["g1"] == "g1: not committed (interrupted): nothing changed"
    join.release.set()
    commit.release.set()
    wait_for(lambda: members_left(cluster, "g1") == [])
