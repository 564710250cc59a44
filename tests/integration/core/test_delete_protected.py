"""Protected groups for `kgroup delete` and `kgroup delete-offsets`, as a user sees them.

Patterns come from KGROUP_PROTECTED_GROUPS (comma-separated regexes) and
$XDG_CONFIG_HOME/kgroup/protected-groups (one regex per line); a match is a full match.
A protected group is refused with exit 4 before the cluster is contacted, unless --force.
Every run gets its own XDG_CONFIG_HOME, so a protected-groups file of the user running the
tests cannot change the outcome.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import admin_for, commit_offsets, make_topic, run_kgroup

UNREACHABLE = "127.0.0.1:1"


def _env(config_home: Path, patterns: str | None = None) -> dict[str, str]:
    env = {"XDG_CONFIG_HOME": str(config_home)}
    if patterns is not None:
        env["KGROUP_PROTECTED_GROUPS"] = patterns
    return env


def _committed(bootstrap: str, group: str) -> dict[tuple[str, int], int]:
    offsets = admin_for(bootstrap).committed_offsets_or_none(group) or {}
    return {(tp.topic, tp.partition): v.offset for tp, v in offsets.items()}


def _assert_refusal_names_pattern(stderr: str, group: str, pattern: str) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert group in lines[0]
    assert f"'{pattern}'" in lines[0]
    assert "--force" in lines[0]
    assert "Traceback" not in stderr


# ---------------------------------------------------------------------------------------------
# Refusals that must not need the cluster at all


@pytest.mark.parametrize(
    "command",
    [["delete"], ["delete-offsets", "--topic", "t"]],
    ids=["delete", "delete-offsets"],
)
def test_refused_before_any_broker_call(tmp_path, command) -> None:
    """An unreachable bootstrap would exit 6 after the timeout: exit 4 at once proves no call."""
    result = run_kgroup(
        "-b",
        UNREACHABLE,
        "--timeout",
        "5",
        command[0],
        "prod-x",
        *command[1:],
        env=_env(tmp_path, "prod-.*"),
        expect=4,
    )
    _assert_refusal_names_pattern(result.stderr, "prod-x", "prod-.*")
    assert result.seconds < 5


def test_pattern_is_a_full_match(tmp_path) -> None:
    """'prod' does not protect 'prod-x': the request goes to the (unreachable) cluster."""
    result = run_kgroup(
        "-b",
        UNREACHABLE,
        "--timeout",
        "1",
        "delete-offsets",
        "prod-x",
        "--topic",
        "t",
        env=_env(tmp_path, "prod"),
        expect=6,
    )
    assert "protected" not in result.stderr


def test_bad_protected_regex_is_a_usage_error(tmp_path) -> None:
    result = run_kgroup(
        "-b", UNREACHABLE, "delete", "prod-x", env=_env(tmp_path, "prod-("), expect=2
    )
    assert "KGROUP_PROTECTED_GROUPS" in result.stderr


# ---------------------------------------------------------------------------------------------
# Against the session's broker


@pytest.mark.integration
def test_delete_refuses_a_protected_group_and_keeps_it(kafka_broker, unique, tmp_path) -> None:
    bootstrap = kafka_broker.bootstrap
    topic, group, other = f"prot-{unique}", f"prod-{unique}", f"dev-{unique}"
    make_topic(bootstrap, topic, [3])
    commit_offsets(bootstrap, group, {(topic, 0): 2})
    commit_offsets(bootstrap, other, {(topic, 0): 1})

    result = run_kgroup(
        "-b",
        bootstrap,
        "delete",
        group,
        other,
        "-o",
        "json",
        env=_env(tmp_path, "staging-.*, prod-.*"),
        expect=4,
    )
    rows = {r["group"]: r for r in json.loads(result.stdout)["groups"]}
    assert rows[group]["status"] == "refused"
    assert "'prod-.*'" in rows[group]["message"]
    assert rows[other]["status"] == "deleted"
    _assert_refusal_names_pattern(result.stderr, group, "prod-.*")
    assert _committed(bootstrap, group) == {(topic, 0): 2}
    assert _committed(bootstrap, other) == {}


@pytest.mark.integration
def test_delete_with_force_deletes_a_protected_empty_group(kafka_broker, unique, tmp_path) -> None:
    bootstrap = kafka_broker.bootstrap
    topic, group = f"prot-{unique}", f"prod-{unique}"
    make_topic(bootstrap, topic, [3])
    commit_offsets(bootstrap, group, {(topic, 0): 2})

    result = run_kgroup(
        "-b",
        bootstrap,
        "delete",
        group,
        "--force",
        "-o",
        "json",
        env=_env(tmp_path, "prod-.*"),
    )
    assert json.loads(result.stdout)["groups"] == [
        {"group": group, "status": "deleted", "message": None}
    ]
    assert _committed(bootstrap, group) == {}


@pytest.mark.integration
def test_protected_groups_file_under_xdg_config_home(kafka_broker, unique, tmp_path) -> None:
    bootstrap = kafka_broker.bootstrap
    topic, group = f"prot-{unique}", f"payments-{unique}"
    make_topic(bootstrap, topic, [3])
    commit_offsets(bootstrap, group, {(topic, 0): 1})
    config = tmp_path / "kgroup"
    config.mkdir()
    (config / "protected-groups").write_text(
        "# groups nobody deletes by accident\n\n  payments-[0-9a-f]+  \n"
    )

    refused = run_kgroup("-b", bootstrap, "delete", group, env=_env(tmp_path), expect=4)
    _assert_refusal_names_pattern(refused.stderr, group, "payments-[0-9a-f]+")
    assert _committed(bootstrap, group) == {(topic, 0): 1}

    offsets_refused = run_kgroup(
        "-b",
        bootstrap,
        "delete-offsets",
        group,
        "--topic",
        topic,
        env=_env(tmp_path),
        expect=4,
    )
    _assert_refusal_names_pattern(offsets_refused.stderr, group, "payments-[0-9a-f]+")
    assert _committed(bootstrap, group) == {(topic, 0): 1}

    run_kgroup("-b", bootstrap, "delete", group, "--force", env=_env(tmp_path))
    assert _committed(bootstrap, group) == {}


@pytest.mark.integration
def test_delete_offsets_refuses_a_protected_group(kafka_broker, unique, tmp_path) -> None:
    bootstrap = kafka_broker.bootstrap
    topic, group = f"prot-{unique}", f"prod-{unique}"
    make_topic(bootstrap, topic, [2, 3])
    commit_offsets(bootstrap, group, {(topic, 0): 1, (topic, 1): 2})

    result = run_kgroup(
        "-b",
        bootstrap,
        "delete-offsets",
        group,
        "--topic",
        f"{topic}:0",
        env=_env(tmp_path, "prod-.*"),
        expect=4,
    )
    assert result.stdout == ""
    _assert_refusal_names_pattern(result.stderr, group, "prod-.*")
    assert _committed(bootstrap, group) == {(topic, 0): 1, (topic, 1): 2}
