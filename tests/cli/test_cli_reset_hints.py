"""The commands `reset-offsets --execute` prints in its messages run in a shell as printed.

A commit that landed at risk (a consumer joined while kgroup held the group: committed_at_risk,
exit 8) names the backup and the `kgroup undo` and `kgroup describe` commands to use. Group names
may hold blanks and shell characters (`a b`, `x;rm`): each command is run here through `sh`
exactly as printed, as tests/integration/reset/test_reset_history.py does for "Undo with:".
Against the scripted coordinator of tests/unit/wire/fakecoordinator.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli_reset_fence import kgroup_env, run_with_joiner
from tests.unit.wire.fakecoordinator import CoordinatorCluster


def run_printed(command: str, cluster: CoordinatorCluster, tmp_path: Path):
    """`command` through a POSIX shell, `kgroup` being this Python's kgroup on `cluster`."""
    script = 'kgroup() { "$KGROUP_PY" -m kgroup -b "$KGROUP_B" "$@"; }\n' + command + "\n"
    env = {
        **kgroup_env(tmp_path),
        "KGROUP_PY": sys.executable,
        "KGROUP_B": cluster.address,
        "KGROUP_OUTPUT": "json",
    }
    return subprocess.run(
        ["sh", "-c", script], capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path
    )


@pytest.mark.parametrize("group", ["a b", "x;touch pwned", "-dash $HOME"])
def test_the_commands_of_a_commit_at_risk_run_in_a_shell_as_printed(tmp_path, group) -> None:
    cluster = CoordinatorCluster(
        initial_delay_s=0.3, topics={"orders": 2}, offsets={group: {("orders", 0): 2}}
    )
    try:
        code, stdout, stderr, _done = run_with_joiner(cluster, tmp_path, "billing-app", group)
        assert code == 8, stderr
        (outcome,) = json.loads(stdout)["groups"]
        error = outcome["error"]
        undo = error.split("undo with: ", 1)[1]
        (describe,) = re.findall(r"`(kgroup describe [^`]*)`", error)
        described = run_printed(describe, cluster, tmp_path)
        assert described.returncode == 0, described.stderr
        assert [g["group"] for g in json.loads(described.stdout)["groups"]] == [group]
        planned = run_printed(undo, cluster, tmp_path)
    finally:
        cluster.close()
    assert planned.returncode == 0, planned.stderr
    (plan,) = json.loads(planned.stdout)["groups"]
    assert plan["group"] == group
    assert [(p["current_offset"], p["new_offset"]) for p in plan["partitions"]] == [(9, 2)]
    assert not (tmp_path / "pwned").exists()
    assert outcome["backup"] in undo or os.path.basename(outcome["backup"]) in undo


@pytest.mark.parametrize("group", ["a b", "x;touch pwned", "-dash $HOME"])
def test_the_undo_list_command_of_an_empty_backup_runs_in_a_shell_as_printed(
    tmp_path, group
) -> None:
    """`undo` of a backup holding no partition (exit 3) says `kgroup undo --list GROUP` shows
    the group's backups: printed unquoted, `a b` ran as two arguments (exit 2) and `x;touch
    pwned` ran a second command."""
    from kgroup.reset.model import GroupPlan
    from kgroup.reset.planfile import write_plan_file

    cluster = CoordinatorCluster(topics={"orders": 2}, offsets={group: {("orders", 0): 2}})
    empty = tmp_path / "empty.json"
    write_plan_file(empty, [GroupPlan(group, (), "to-offset 4")], kind="backup", created_at_ms=1)
    try:
        command = [sys.executable, "-m", "kgroup", "-b", cluster.address, "undo"]
        refused = subprocess.run(
            [*command, "--backup", str(empty), "--", group],
            capture_output=True,
            text=True,
            env=kgroup_env(tmp_path),
            timeout=120,
        )
        assert refused.returncode == 3, refused.stderr
        (listing,) = re.findall(r"`(kgroup undo --list [^`]*)`", refused.stderr)
        listed = run_printed(listing, cluster, tmp_path)
    finally:
        cluster.close()
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["backups"] == []  # none in the default directory
    assert not (tmp_path / "pwned").exists()
