"""README's table of reset statuses is the one kgroup.reset.apply.STATUSES holds: every status a
result can have, each with the exit code of a run where every group ended so."""

from __future__ import annotations

import re
from pathlib import Path

from kgroup.reset.apply import EXIT_COMMITTED_AT_RISK, STATUSES

README = Path(__file__).resolve().parents[3] / "README.md"


def readme_statuses() -> dict[str, str]:
    rows = re.findall(r"^\s*\| `(\w+)` \| ([^|]+) \|", README.read_text(), flags=re.M)
    return {status: code.strip() for status, code in rows}


def test_readme_lists_every_status_with_its_exit_code() -> None:
    listed = readme_statuses()
    assert {s: listed.get(s) for s in STATUSES} == {s: code for s, (code, _m) in STATUSES.items()}


def test_the_exit_codes_table_names_the_new_codes() -> None:
    from tests.unit.test_exit_codes_table import readme_exit_table

    rows = readme_exit_table()
    assert rows[EXIT_COMMITTED_AT_RISK] == {"CommittedAtRisk"}
    assert 143 in rows
    text = " ".join(README.read_text().split())
    assert (
        "| 143 | terminated | SIGTERM (128 + 15, as shells report it) ending `reset-offsets" in text
    )


def test_a_landed_commit_shows_its_partitions_in_the_table() -> None:
    from kgroup.render.reset import execution_output
    from kgroup.reset.apply import ExecutionReport, GroupOutcome
    from kgroup.reset.model import GroupPlan, PlanRow

    plans = [GroupPlan(g, (PlanRow(g, "orders", 0, 1, 2, 0, 9),), "to-offset 2") for g in "ab"]
    report = ExecutionReport(
        [
            GroupOutcome("a", "committed_at_risk", 1, "/b/a.json", "joined", 8),
            GroupOutcome("b", "refused", 0, None, "active", 4),
        ]
    )
    rows = execution_output(plans, report).rows
    assert [(r["group"], r["status"], r["partitions"]) for r in rows] == [
        ("a", "committed_at_risk", 1),
        ("b", "refused", 0),
    ]
