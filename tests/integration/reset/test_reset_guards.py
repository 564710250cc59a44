"""Operator mistakes and guardrails of `reset-offsets` / `undo`, as a user meets them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import admin_for, commit_offsets, make_topic, run_kgroup, running_member

pytestmark = pytest.mark.integration


def committed(bootstrap: str, group: str) -> dict[int, int]:
    offsets = admin_for(bootstrap).committed_offsets_or_none(group)
    return {tp.partition: value.offset for tp, value in offsets.items()}


@pytest.fixture()
def grp(kafka_broker, unique, isolated_state, tmp_path):
    """Topic with 30, 30, 20 records; an empty group committed at 30, 30, 5."""
    topic, group = f"g-{unique}", f"guard-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [30, 30, 20])
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 30, (topic, 1): 30, (topic, 2): 5})
    env = {"XDG_STATE_HOME": str(isolated_state), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    return kafka_broker.bootstrap, topic, group, env


def test_backup_file_is_never_overwritten(grp, tmp_path) -> None:
    bootstrap, topic, group, env = grp
    backup = tmp_path / "pre-migration.json"
    base = ["-b", bootstrap, "reset-offsets", group, "--topic", topic, "--execute"]
    run_kgroup(*base, "--to", "earliest", "--backup", str(backup), env=env)
    first = backup.read_bytes()
    result = run_kgroup(*base, "--to", "latest", "--backup", str(backup), env=env, expect=4)
    assert f"backup file {backup} exists already" in result.stderr
    assert backup.read_bytes() == first  # the original 30/30/5 can still be restored
    assert committed(bootstrap, group) == {0: 0, 1: 0, 2: 0}  # the second run changed nothing
    run_kgroup("-b", bootstrap, "undo", group, "--backup", str(backup), "--execute", env=env)
    assert committed(bootstrap, group) == {0: 30, 1: 30, 2: 5}
    unrelated = tmp_path / "notes.json"
    unrelated.write_text("{}")
    run_kgroup(*base, "--to", "latest", "--backup", str(unrelated), env=env, expect=4)
    assert unrelated.read_text() == "{}"


def test_failed_outcome_names_the_backup_it_wrote(grp, monkeypatch) -> None:
    """A commit that fails after the backup was written: the JSON result names the file."""
    from kgroup.core.errors import KafkaOperationError
    from kgroup.core.wire.fence import GroupFence
    from kgroup.render.reset import execution_output
    from kgroup.reset.apply import execute_plans
    from kgroup.reset.gather import ResetScope, build_plans
    from kgroup.reset.strategy import parse_to

    bootstrap, topic, group, env = grp
    monkeypatch.setenv("XDG_STATE_HOME", env["XDG_STATE_HOME"])

    def refuse(self, offsets):
        raise KafkaOperationError("the coordinator lost its log (simulated)")

    monkeypatch.setattr(GroupFence, "commit", refuse)
    admin = admin_for(bootstrap)
    plans = build_plans(admin, ResetScope([group], topics=[topic]), parse_to("earliest"), 1)
    report = execute_plans(admin, plans, backup=None, now_ms=1)
    document = execution_output(plans, report).document["groups"][0]
    assert document["status"] == "failed"
    assert document["backup"] is not None and document["backup"] in document["error"]
    assert json.loads(Path(document["backup"]).read_text())["groups"][0]["group"] == group
    assert committed(bootstrap, group) == {0: 30, 1: 30, 2: 5}


def test_undo_dry_run_predicts_the_refusal_of_execute(grp) -> None:
    bootstrap, topic, group, env = grp
    run_kgroup(
        "-b",
        bootstrap,
        "reset-offsets",
        group,
        "--topic",
        topic,
        "--to",
        "earliest",
        "--execute",
        env=env,
    )
    commit_offsets(bootstrap, group, {(topic, 0): 7})  # someone moved it since
    dry = run_kgroup("-b", bootstrap, "undo", group, env=env, expect=4)
    assert "--execute would refuse" in dry.stderr and "changed since" in dry.stderr
    run_kgroup("-b", bootstrap, "undo", group, "--execute", env=env, expect=4)
    assert committed(bootstrap, group) == {0: 7, 1: 0, 2: 0}


def test_from_file_rows_of_other_groups_only(grp, tmp_path) -> None:
    bootstrap, topic, group, env = grp
    plan = tmp_path / "plan.csv"
    plan.write_text(f"someone-else,{topic},0,3\n")
    result = run_kgroup(
        "-b", bootstrap, "reset-offsets", group, "--from-file", str(plan), env=env, expect=3
    )  # nothing to reset: exit 3 (5 is for failed checks; README exit codes)
    assert "someone-else" in result.stderr and "no rows for" in result.stderr
    plan.write_text(f"someone-else,{topic},0,3\n{group},{topic},1,4\n")
    mixed = run_kgroup(
        "-b", bootstrap, "reset-offsets", group, "--from-file", str(plan), "-o", "json", env=env
    )
    warnings = json.loads(mixed.stdout)["groups"][0]["warnings"]
    assert any("someone-else" in w and "ignored" in w for w in warnings)


def test_max_rewind_and_max_skip_refuse_unless_forced(grp) -> None:
    bootstrap, topic, group, env = grp
    base = ["-b", bootstrap, "reset-offsets", group, "--topic", topic]
    refused = run_kgroup(
        *base, "--shift-by", "-10", "--max-rewind", "5", "--execute", env=env, expect=4
    )
    assert "moves back 10 messages" in refused.stdout + refused.stderr
    assert committed(bootstrap, group) == {0: 30, 1: 30, 2: 5}
    dry = run_kgroup(*base, "--to", "latest", "--max-skip", "10", env=env, expect=4)
    assert "--execute would refuse" in dry.stderr and "skips 15 messages" in dry.stderr
    run_kgroup(*base, "--to", "latest", "--max-skip", "20", "--execute", env=env)
    assert committed(bootstrap, group) == {0: 30, 1: 30, 2: 20}
    config = tmp_path_of(env) / "kgroup"
    config.mkdir(parents=True)
    (config / "reset.properties").write_text("# limits\nmax.rewind=5\n")
    run_kgroup(*base, "--shift-by", "-10", "--execute", env=env, expect=4)
    run_kgroup(*base, "--shift-by", "-10", "--execute", "--force", env=env)
    assert committed(bootstrap, group) == {0: 20, 1: 20, 2: 10}
    bad = run_kgroup(*base, "--shift-by", "-1", "--max-rewind", "soon", env=env, expect=2)
    assert "--max-rewind" in bad.stderr


def tmp_path_of(env: dict[str, str]):
    from pathlib import Path

    return Path(env["XDG_CONFIG_HOME"])


def test_protected_groups_refuse_execute_without_force(grp) -> None:
    bootstrap, topic, group, env = grp
    base = ["-b", bootstrap, "reset-offsets", group, "--topic", topic, "--to", "earliest"]
    protected = {**env, "KGROUP_PROTECTED_GROUPS": "guard-.*"}
    result = run_kgroup(*base, "--execute", env=protected, expect=4)
    assert "protected" in result.stderr and "guard-.*" in result.stderr
    assert committed(bootstrap, group) == {0: 30, 1: 30, 2: 5}
    run_kgroup(*base, "--execute", "--force", env=protected)
    assert committed(bootstrap, group) == {0: 0, 1: 0, 2: 0}


def test_wait_empty_times_out_on_an_active_group(kafka_broker, grp) -> None:
    bootstrap, topic, group, env = grp
    base = ["-b", bootstrap, "reset-offsets", group, "--topic", topic, "--to", "earliest"]
    run_kgroup(*base, "--wait-empty", "1s", env=env)  # empty already: plans at once
    with running_member(kafka_broker, group, topic, {0: 30, 1: 30, 2: 5}):
        result = run_kgroup(*base, "--execute", "--wait-empty", "2s", env=env, expect=4)
        assert "still not empty after 2 s" in result.stderr
    assert committed(bootstrap, group)[2] == 5


def test_undo_of_a_protected_group_refuses_without_force(grp) -> None:
    """An undo is a reset too: a protected group's offsets change only with --force, and the
    dry run says it would refuse (exit 4, as --execute would)."""
    bootstrap, topic, group, env = grp
    run_kgroup(
        "-b", bootstrap, "reset-offsets", group, "--topic", topic, "--to", "earliest",
        "--execute", env=env,
    )  # fmt: skip
    protected = {**env, "KGROUP_PROTECTED_GROUPS": "guard-.*"}
    undo = ["-b", bootstrap, "undo", group]
    dry = run_kgroup(*undo, env=protected, expect=4)
    assert "protected" in dry.stderr and "guard-.*" in dry.stderr
    result = run_kgroup(*undo, "--execute", env=protected, expect=4)
    assert "protected" in result.stderr and "--force" in result.stderr
    assert committed(bootstrap, group) == {0: 0, 1: 0, 2: 0}
    run_kgroup(*undo, "--execute", "--force", env=protected)
    assert committed(bootstrap, group) == {0: 30, 1: 30, 2: 5}
