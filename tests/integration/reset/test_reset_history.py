"""`undo` walks back through the reset history; what reset and undo write (issue 24 items 1, 7,
10, 12, 17), against the session's broker. Offsets are read back with an OffsetFetch of the
test's own, not taken from kgroup's output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import admin_for, commit_offsets, make_topic, run_kgroup

pytestmark = pytest.mark.integration


def committed(bootstrap: str, group: str) -> dict[int, int]:
    offsets = admin_for(bootstrap).committed_offsets_or_none(group)
    return {tp.partition: value.offset for tp, value in offsets.items()}


@pytest.fixture()
def one(kafka_broker, unique, isolated_state, tmp_path):
    """A topic of 2 partitions with 20 records each; an empty group committed at 2, 2."""
    topic, group = f"h-{unique}", f"hist-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [20, 20])
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 2, (topic, 1): 2})
    env = {"XDG_STATE_HOME": str(isolated_state), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    return kafka_broker.bootstrap, topic, group, env


def history(bootstrap: str, group: str, env: dict[str, str]) -> list[dict]:
    listed = run_kgroup("-b", bootstrap, "undo", "--list", group, "-o", "json", env=env)
    return json.loads(listed.stdout)["backups"]


def test_three_resets_and_three_undos_walk_back_to_the_start(one) -> None:
    bootstrap, topic, group, env = one
    for offset in (5, 8, 11):
        run_kgroup(
            "-b", bootstrap, "reset-offsets", group, "--topic", topic,
            "--to-offset", str(offset), "--execute", env=env,
        )  # fmt: skip
        assert committed(bootstrap, group) == {0: offset, 1: offset}
    rows = history(bootstrap, group, env)
    assert [r["history"] for r in rows] == ["in effect", "in effect", "next undo"]
    for expected in (8, 5, 2):
        run_kgroup("-b", bootstrap, "undo", group, "--execute", env=env)
        assert committed(bootstrap, group) == {0: expected, 1: expected}
    rows = history(bootstrap, group, env)
    resets, undos = rows[:3], rows[3:]
    assert [r["history"] for r in resets] == ["undone"] * 3
    assert [r["undoes"] for r in undos] == [r["file"] for r in reversed(resets)]
    assert [r["undone_by"] for r in resets] == [
        os.path.basename(u["file"]) for u in reversed(undos)
    ]
    assert not any(r["next_undo"] for r in rows)
    for reset, undo in zip(resets, reversed(undos), strict=True):
        assert undo["history"] == f"undo of {os.path.basename(reset['file'])}"
        assert undo["strategy"] == f"undo of restore {os.path.basename(reset['file'])}"
    table = run_kgroup("-b", bootstrap, "undo", "--list", group, env=env).stdout.splitlines()
    assert "HISTORY" in table[0] and len(table) == 7
    assert all("  undone  " in line for line in table[1:4])
    for line, reset in zip(table[4:], reversed(resets), strict=True):
        assert f"  undo of {os.path.basename(reset['file'])}  " in line
    fourth = run_kgroup("-b", bootstrap, "undo", group, "--execute", env=env, expect=3)
    assert f"nothing left to undo for group {group}" in fourth.stderr
    assert committed(bootstrap, group) == {0: 2, 1: 2}


def test_a_new_reset_after_an_undo_is_the_next_undo(one) -> None:
    bootstrap, topic, group, env = one
    reset = ["-b", bootstrap, "reset-offsets", group, "--topic", topic, "--execute"]
    run_kgroup(*reset, "--to-offset", "5", env=env)
    run_kgroup(*reset, "--to-offset", "8", env=env)
    run_kgroup("-b", bootstrap, "undo", group, "--execute", env=env)  # back to 5
    run_kgroup(*reset, "--to-offset", "12", env=env)
    run_kgroup("-b", bootstrap, "undo", group, "--execute", env=env)
    assert committed(bootstrap, group) == {0: 5, 1: 5}
    run_kgroup("-b", bootstrap, "undo", group, "--execute", env=env)
    assert committed(bootstrap, group) == {0: 2, 1: 2}


def run_printed(line: str, bootstrap: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run an `Undo with:` command through a POSIX shell exactly as printed, `kgroup` being
    this Python's kgroup on the test broker."""
    command = line.removeprefix("Undo with: ")
    script = 'kgroup() { "$KGROUP_PY" -m kgroup -b "$KGROUP_B" "$@"; }\n' + command + "\n"
    full = {**os.environ, **env, "KGROUP_PY": sys.executable, "KGROUP_B": bootstrap}
    return subprocess.run(
        ["sh", "-c", script], capture_output=True, text=True, env=full, timeout=120
    )


@pytest.mark.parametrize("name", ["-dash-leading", 'grp "quoted" \'s', "semi;colon $HOME"])
def test_the_undo_line_runs_in_a_shell_as_printed(kafka_broker, unique, isolated_state, name):
    bootstrap = kafka_broker.bootstrap
    topic, group = f"q-{unique}", f"{name}-{unique}"
    make_topic(bootstrap, topic, [10])
    commit_offsets(bootstrap, group, {(topic, 0): 3})
    env = {"XDG_STATE_HOME": str(isolated_state)}
    result = run_kgroup(
        "-b", bootstrap, "reset-offsets", "--group", group, "--topic", topic,
        "--to", "latest", "--execute", env=env,
    )  # fmt: skip
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("Undo with: ")]
    printed = run_printed(line, bootstrap, {**env, "KGROUP_OUTPUT": "json"})
    assert printed.returncode == 0, printed.stderr
    plan = json.loads(printed.stdout)["groups"][0]
    assert plan["group"] == group
    assert [(p["current_offset"], p["new_offset"]) for p in plan["partitions"]] == [(10, 3)]


def test_force_past_the_limits_is_said_in_the_table_json_and_backup(one) -> None:
    bootstrap, topic, group, env = one
    base = ["-b", bootstrap, "reset-offsets", group, "--topic", topic, "--max-skip", "3"]
    dry = run_kgroup(*base, "--to-offset", "9", "--force", env=env)
    assert f"{group}: --force overrides the limit: {topic}:0 skips 7 messages" in dry.stdout
    result = run_kgroup(*base, "--to-offset", "9", "--force", "--execute", "-o", "json", env=env)
    outcome = json.loads(result.stdout)["groups"][0]
    assert outcome["status"] == "committed"
    assert outcome["forced"] == [
        f"{topic}:0 skips 7 messages (limit --max-skip 3)",
        f"{topic}:1 skips 7 messages (limit --max-skip 3)",
    ]
    backup = json.loads(Path(outcome["backup"]).read_text())
    assert backup["groups"][0]["forced"] == outcome["forced"]
    table = run_kgroup(*base, "--to-offset", "14", "--force", "--execute", env=env).stdout
    assert "--force overrode 2 limit violation(s)" in table
    assert f"{group}: committed despite the limits (--force): {topic}:1 skips 5" in table
    within = run_kgroup(*base, "--to-offset", "15", "--execute", "-o", "json", env=env)
    assert json.loads(within.stdout)["groups"][0]["forced"] == []
    assert committed(bootstrap, group) == {0: 15, 1: 15}


def test_a_plan_with_no_partition_is_refused_and_writes_nothing(
    kafka_broker, unique, isolated_state, tmp_path
) -> None:
    bootstrap = kafka_broker.bootstrap
    topic, group = f"e-{unique}", f"newgrp-{unique}"
    make_topic(bootstrap, topic, [10])
    env = {"XDG_STATE_HOME": str(isolated_state)}
    args = ["-b", bootstrap, "reset-offsets", group, "--all-topics", "--to-offset", "4"]
    for extra in ([], ["--execute", "--allow-new-group"]):
        result = run_kgroup(*args, *extra, "--export", str(tmp_path / "p.json"),
                            env=env, expect=3)  # fmt: skip
        assert f"nothing to reset for group(s) {group}" in result.stderr
        assert "committed" not in result.stdout
    assert not (tmp_path / "p.json").exists()
    assert not (isolated_state / "kgroup" / "backups").exists()
    assert committed(bootstrap, group) == {}


def test_an_empty_backup_is_not_undone(one) -> None:
    """Earlier kgroup wrote empty backups for empty plans: undoing one is refused (exit 3)."""
    from kgroup.reset.model import GroupPlan
    from kgroup.reset.planfile import write_plan_file

    bootstrap, _topic, group, env = one
    empty = Path(env["XDG_STATE_HOME"]) / "empty.json"
    empty.parent.mkdir(parents=True, exist_ok=True)
    write_plan_file(empty, [GroupPlan(group, (), "to-offset 4")], kind="backup", created_at_ms=1)
    result = run_kgroup(
        "-b", bootstrap, "undo", group, "--backup", str(empty), "--execute", env=env, expect=3
    )
    assert "holds no partition" in result.stderr
    assert committed(bootstrap, group) == {0: 2, 1: 2}


def test_export_cannot_overwrite_the_backup_an_execute_wrote(one) -> None:
    bootstrap, topic, group, env = one
    base = ["-b", bootstrap, "reset-offsets", group, "--topic", topic]
    result = run_kgroup(*base, "--to", "earliest", "--execute", "-o", "json", env=env)
    backup = Path(json.loads(result.stdout)["groups"][0]["backup"])
    before = backup.read_bytes()
    refused = run_kgroup(*base, "--to", "latest", "--export", str(backup), env=env, expect=4)
    assert str(backup) in refused.stderr
    assert backup.read_bytes() == before and json.loads(before)["kind"] == "backup"
    run_kgroup("-b", bootstrap, "undo", group, "--execute", env=env)
    assert committed(bootstrap, group) == {0: 2, 1: 2}
