"""The bytes `describe`, `check` and `list` print, pinned in every output mode (issue #29).

The expected texts in golden/fleet_output.json were captured from kgroup before its tables and
documents were streamed (commit "tests: pin ..."), from the constructed results of
fleet_cases.py: streaming must not change a byte of them. Table variants: a pipe (every column
at full width), terminals of 60 and 100 columns without colour, and 80 columns with colour.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.unit.render import fleet_cases as cases

GOLDEN = Path(__file__).parent / "golden" / "fleet_output.json"
MODES = ("json", "jsonl", "csv", "table", "table@60", "table@100", "table@80+color")
CASES = (
    "describe-offsets",
    "describe-offsets-lag-time",
    "describe-members",
    "describe-members-assignments",
    "describe-state",
    "describe-empty",
    "describe-members-failed",
    "check",
    "check-empty",
    "list",
    "list-empty",
)


def _mode(mode: str) -> tuple[str, int | None, bool]:
    """(output mode, terminal width or None, colour) of a MODES entry."""
    if not mode.startswith("table@"):
        return mode, None, False
    spec = mode.removeprefix("table@")
    color = spec.endswith("+color")
    return "table", int(spec.removesuffix("+color")), color


def render_case(case: str, mode: str) -> str:
    """What kgroup prints for `case` in `mode`, through the same renderer entry the CLI uses."""
    from kgroup.render.stream import write_stream

    stream = build_stream(case)
    out_mode, width, color = _mode(mode)
    out = io.StringIO()
    write_stream(stream, out_mode, out, color=color, width=width)
    return out.getvalue()


def build_stream(case: str):
    from kgroup.render.check import check_stream
    from kgroup.render.describe import describe_stream
    from kgroup.render.groups import list_stream

    if case.startswith("describe"):
        view = case.split("-")[1]
        groups = (
            [] if view == "empty" else cases.describe_groups(lag_time=case.endswith("lag-time"))
        )
        if case.endswith("failed"):  # no rows; footer lines wider than the table
            groups = [g for g in groups if g.error]
        return describe_stream(
            iter(groups),
            view="offsets" if view == "empty" else view,
            lag_time=case.endswith("lag-time"),
            assignments=case.endswith("assignments"),
        )
    if case.startswith("check"):
        verdicts = [] if case == "check-empty" else cases.check_verdicts()
        return check_stream(iter(verdicts), cases.CHECK_REQUEST, cases.NOW)
    rows = [] if case == "list-empty" else cases.list_rows()
    return list_stream(iter(rows))


def _golden() -> dict[str, str]:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", CASES)
def test_output_bytes_are_unchanged(case: str, mode: str) -> None:
    assert render_case(case, mode) == _golden()[f"{case} {mode}"]


def test_every_case_and_mode_is_pinned() -> None:
    assert sorted(_golden()) == sorted(f"{c} {m}" for c in CASES for m in MODES)
