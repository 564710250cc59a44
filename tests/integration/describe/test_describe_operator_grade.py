"""Issue 12 (D5, D6): `describe --match` that matches nothing, and `--assignments`."""

from __future__ import annotations

import json

import pytest

from tests.helpers import commit_offsets, make_topic, run_kgroup, running_member

pytestmark = pytest.mark.integration


def test_match_without_a_matching_group_exits_3(kafka_broker, unique) -> None:
    topic = f"nomatch-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [1])
    commit_offsets(kafka_broker.bootstrap, f"nomatch-g-{unique}", {(topic, 0): 1})
    pattern = f"^nomatch-{unique}$"
    for output in ("table", "json"):
        result = run_kgroup(
            "-b", kafka_broker.bootstrap, "describe", "--match", pattern, "-o", output, expect=3
        )
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and f"no group matches {pattern}" in lines[0], result.stderr
        assert "No partitions." not in result.stdout
    # a pattern that matches still works
    found = run_kgroup(
        "-b", kafka_broker.bootstrap, "describe", "--match", f"^nomatch-g-{unique}$", "-o", "json"
    )
    assert [g["group"] for g in json.loads(found.stdout)["groups"]] == [f"nomatch-g-{unique}"]


def test_reset_offsets_has_no_match_option() -> None:
    """reset-offsets takes GROUP... or --all-groups only: nothing to fix there (yet)."""
    result = run_kgroup("reset-offsets", "g", "--match", "x", expect=2)
    assert "No such option: --match" in result.stderr


def _members(bootstrap: str, group: str, *args: str) -> tuple[list[dict], str]:
    result = run_kgroup("-b", bootstrap, "describe", group, "--members", *args, "-o", "json")
    (entry,) = json.loads(result.stdout)["groups"]
    return entry["members"], result.stderr


def test_assignments_flag_shows_assignments_without_debug_logging(kafka_broker, unique) -> None:
    topic = f"assign-{unique}"
    group = f"assign-g-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [2, 2])
    with running_member(kafka_broker, group, topic, {0: 1}):
        plain, _ = _members(kafka_broker.bootstrap, group)
        assert plain and all("assignment" not in m for m in plain)

        flagged, stderr = _members(kafka_broker.bootstrap, group, "--assignments")
        assert flagged and all("assignment" in m for m in flagged)
        assert "DEBUG" not in stderr  # the view has its own flag; logging stays off

        table = run_kgroup(
            "-b", kafka_broker.bootstrap, "describe", group, "--members", "--assignments"
        ).stdout
        assert "ASSIGNMENT" in table.splitlines()[0].upper()

        # `-v` keeps working as before (and still turns on debug logging)
        verbose, stderr = _members(kafka_broker.bootstrap, group, "-v")
        assert verbose and all("assignment" in m for m in verbose)
        assert "DEBUG" in stderr or "debug" in stderr.lower()

        # --assignments alone selects the members view
        alone = run_kgroup(
            "-b", kafka_broker.bootstrap, "describe", group, "--assignments", "-o", "json"
        )
        (entry,) = json.loads(alone.stdout)["groups"]
        assert entry["members"] and all("assignment" in m for m in entry["members"])


def test_assignments_with_another_view_is_a_usage_error(kafka_broker, unique) -> None:
    for view in ("--offsets", "--state"):
        result = run_kgroup(
            "-b", kafka_broker.bootstrap, "describe", f"g-{unique}", view, "--assignments", expect=2
        )
        assert "--assignments" in result.stderr and "--members" in result.stderr


def test_help_documents_assignments() -> None:
    text = " ".join(run_kgroup("describe", "--help").stdout.split())
    assert "--assignments" in text
    assert "--members One row per member (--assignments adds" in text
