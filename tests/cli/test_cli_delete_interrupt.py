"""`kgroup delete`: Ctrl-C or SIGTERM during DeleteGroups, through a real `kgroup` process
against the scripted cluster of tests/unit/wire/fakeshare.py.

Before, the interrupt ended the run bare ("kgroup: interrupted", or killed by SIGTERM) without
saying which groups Kafka had already deleted; now each group has its row (`deleted`,
`not_deleted`, `unknown`) and the exit code is 130 / 143.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from kgroup.core.errors import KafkaOperationError
from kgroup.core.wire.error_codes import COORDINATOR_LOAD_IN_PROGRESS
from tests.cli.test_cli_reset_fence import kgroup_env
from tests.cli.test_cli_streams_internal_topics import chl, deletes, interrupt, make, rep, statuses
from tests.unit.wire.fakeshare import DELETE_GROUPS


def start_delete(cluster, tmp_path, *args: str) -> subprocess.Popen:
    command = [sys.executable, "-m", "kgroup", "-b", cluster.address, "--timeout", "20"]
    command += ["delete", "app3", "app4", *args, "-o", "json"]
    return subprocess.Popen(
        command, env=kgroup_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def held_cluster():
    """app3 is deleted by the first DeleteGroups, app4 answered COORDINATOR_LOAD_IN_PROGRESS;
    the retry for app4 (the second DeleteGroups) hangs."""
    return make(
        ("app3", "app4"),
        hold_delete_groups=2,
        delete_group_answers={"app4": [COORDINATOR_LOAD_IN_PROGRESS]},
    )


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupt_during_delete_groups_reports_each_group(tmp_path, sig, code) -> None:
    made = held_cluster()
    try:
        process = start_delete(made, tmp_path)
        assert made.groups_held.wait(30), process.communicate(timeout=5)
        stdout, stderr = interrupt(process, sig, code)
    finally:
        made.close()
    asked = [r["groups_names"] for key, r in made.requests if key == DELETE_GROUPS.key]
    assert asked == [["app3", "app4"], ["app4"]]
    rows = {r["group"]: r for r in json.loads(stdout)["groups"]}
    assert {g: r["status"] for g, r in rows.items()} == {"app3": "deleted", "app4": "unknown"}
    assert rows["app4"]["message"].startswith("unknown whether deleted")
    name = "SIGTERM" if sig == signal.SIGTERM else "SIGINT"
    assert f"interrupted ({name}) while deleting groups" in stderr
    assert "kgroup list" in stderr


def test_an_interrupt_during_delete_groups_deletes_no_internal_topic(tmp_path) -> None:
    made = held_cluster()
    try:
        process = start_delete(made, tmp_path, "--delete-all-internal-topics")
        assert made.groups_held.wait(30), process.communicate(timeout=5)
        stdout, stderr = interrupt(process, signal.SIGINT, 130)
    finally:
        made.close()
    assert deletes(made) == []
    rows = {r["group"]: r for r in json.loads(stdout)["groups"]}
    assert {g: r["status"] for g, r in rows.items()} == {"app3": "deleted", "app4": "unknown"}
    assert statuses(rows["app3"]) == dict.fromkeys((rep("app3"), chl("app3")), "not_deleted")
    assert "interrupted (SIGINT) while deleting groups" in stderr


def test_a_deletion_progress_tells_answered_asked_and_never_asked() -> None:
    """The one rule for groups (DeleteGroups) and topics (DeleteTopics) an interrupt left."""
    from kgroup.core.wire.delete_topics import DeletionProgress

    error = KafkaOperationError("boom")
    progress = DeletionProgress(asked={"c"}, answered={"a": None, "b": error})
    outcome = {name: progress.outcome(name) for name in ("a", "b", "c", "d")}
    assert outcome == {"a": None, "b": error, "c": "unknown", "d": "not_deleted"}
