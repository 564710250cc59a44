"""Bad reset/undo input and `undo --list`, through a real `kgroup` process, with no broker.

Usage errors must come before any broker is contacted: the tests point kgroup at
`127.0.0.1:1`, where nothing listens, so a broker call would exit 6 instead of 2.
"""

from __future__ import annotations

import json
import os

import pytest

from tests.helpers import run_kgroup

NO_BROKER = ("-b", "127.0.0.1:1", "--timeout", "2")


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


# --- 1. exactly one reset strategy ---------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "first", "second"),
    [
        (["--to", "earliest", "--to", "latest"], "--to earliest", "--to latest"),
        (["--to", "earliest", "--to", "earliest"], "--to earliest", "--to earliest"),
        (["--shift-by", "1", "--shift-by", "-1"], "--shift-by 1", "--shift-by -1"),
        (["--to-offset", "3", "--to-offset", "5"], "--to-offset 3", "--to-offset 5"),
        (["--to-timestamp", "1", "--to-timestamp", "2"], "--to-timestamp 1", "--to-timestamp 2"),
        (["--by-duration", "2h", "--by-duration", "1d"], "--by-duration 2h", "--by-duration 1d"),
        (
            ["--to-datetime", "2026-05-01T10:00:00Z", "--to-datetime", "2026-05-02T10:00:00Z"],
            "--to-datetime 2026-05-01T10:00:00Z",
            "--to-datetime 2026-05-02T10:00:00Z",
        ),
        (
            ["--from-file", "a.csv", "--from-file", "b.csv"],
            "--from-file a.csv",
            "--from-file b.csv",
        ),
        (["--to", "earliest", "--shift-by", "-2"], "--to earliest", "--shift-by -2"),
        (["--shift-by=-2", "--to-offset", "7"], "--to-offset 7", "--shift-by -2"),
        (
            ["--to-datetime", "2026-05-01T10:00:00Z", "--by-duration", "PT30M"],
            "--to-datetime 2026-05-01T10:00:00Z",
            "--by-duration PT30M",
        ),
    ],
)
def test_two_strategies_are_a_usage_error_naming_both(
    isolated_state, args: list[str], first: str, second: str
) -> None:
    result = run_kgroup(*NO_BROKER, "reset-offsets", "g", "--topic", "t", *args, expect=2)
    line = one_line(result.stderr)
    assert "give exactly one reset strategy" in line
    assert f"got {first} and {second}" in line
    assert result.stdout == ""


def test_three_strategies_are_all_named(isolated_state) -> None:
    result = run_kgroup(
        *NO_BROKER,
        "reset-offsets",
        "g",
        "--topic",
        "t",
        "--to",
        "latest",
        "--to-offset",
        "1",
        "--to-offset",
        "2",
        expect=2,
    )
    assert "got --to latest, --to-offset 1 and --to-offset 2" in one_line(result.stderr)


def test_no_strategy_is_a_usage_error(isolated_state) -> None:
    result = run_kgroup(*NO_BROKER, "reset-offsets", "g", "--topic", "t", expect=2)
    assert "give exactly one reset strategy" in one_line(result.stderr)


def test_values_with_spaces_are_quoted_in_the_error(isolated_state) -> None:
    result = run_kgroup(
        *NO_BROKER,
        "reset-offsets",
        "g",
        "--topic",
        "t",
        "--from-file",
        "my plan.csv",
        "--to",
        "",
        expect=2,
    )
    assert "got --to '' and --from-file 'my plan.csv'" in one_line(result.stderr)


@pytest.mark.parametrize("shift", [["--shift-by", "-1"], ["--shift-by=-1"], ["--to-offset", "3"]])
def test_one_strategy_still_parses_and_reaches_the_broker(isolated_state, shift) -> None:
    # exit 6: the options were accepted and kgroup went on to ask the (absent) cluster.
    run_kgroup(*NO_BROKER, "reset-offsets", "g", "--topic", "t", *shift, expect=6)


def test_help_says_each_strategy_takes_one_value() -> None:
    text = " ".join(run_kgroup("reset-offsets", "--help").stdout.split())
    for shown in (
        "--to earliest|latest|none|current",
        "--to-datetime TIME",
        "--to-timestamp MS",
        "--by-duration DURATION",
        "--to-offset N",
        "--shift-by N",
        "--from-file FILE",
    ):
        assert shown in text
    assert "..." not in text.split("--to ", 1)[1].split("--dry-run", 1)[0]


# --- 2. empty or blank group names ------------------------------------------------------------


BLANK = ["", "  "]


@pytest.mark.parametrize("name", BLANK)
@pytest.mark.parametrize(
    "command",
    [
        ["describe", "{}"],
        ["describe", "ok", "{}"],
        ["reset-offsets", "{}", "--topic", "t", "--to", "earliest"],
        ["reset-offsets", "ok", "{}", "--topic", "t", "--to", "earliest", "--execute"],
        ["undo", "{}"],
        ["undo", "{}", "--execute"],
        ["delete", "{}"],
        ["delete", "ok", "{}"],
        ["delete-offsets", "{}", "--topic", "t"],
        ["simulate-assign", "--from-group", "{}"],
    ],
    ids=lambda c: "-".join(c) if isinstance(c, list) else repr(c),
)
def test_blank_group_names_are_a_usage_error(isolated_state, command, name) -> None:
    args = [name if a == "{}" else a for a in command]
    result = run_kgroup(*NO_BROKER, *args, expect=2)
    line = one_line(result.stderr)
    assert "group name" in line
    assert ("must not be empty" in line) if name == "" else ("blank" in line)
    assert result.stdout == ""


# --- 3. undo --list ---------------------------------------------------------------------------


def _plan(group: str, partitions: int, strategy: str):
    from kgroup.reset.model import GroupPlan, PlanRow

    rows = tuple(PlanRow(group, "orders", p, 10, 5, 0, 20) for p in range(partitions))
    return GroupPlan(group, rows, strategy)


def _write_backups(state) -> dict[str, str]:
    """Backups as reset-offsets --execute names them, written out of time order."""
    from kgroup.reset.planfile import write_plan_file

    directory = state / "kgroup" / "backups"
    directory.mkdir(parents=True)
    files = {}
    for name, group, parts, created in (
        ("billing-20260502T100000000Z.json", "billing", 3, 1_777_716_000_000),
        ("orders-app-20260501T100000000Z.json", "orders-app", 2, 1_777_629_600_000),
        ("billing-20260501T120000000Z.json", "billing", 1, 1_777_636_800_000),
    ):
        path = directory / name
        write_plan_file(
            path, [_plan(group, parts, "undo of to earliest")], kind="backup", created_at_ms=created
        )
        files[name] = str(path)
    broken = directory / "billing-20260503T100000000Z.json"
    broken.write_text("{not json\n")
    os.utime(broken, (1_777_802_400, 1_777_802_400))  # 2026-05-03T10:00:00Z
    files["broken"] = str(broken)
    return files


def test_undo_list_needs_no_cluster_and_lists_oldest_first(isolated_state) -> None:
    files = _write_backups(isolated_state)
    result = run_kgroup("undo", "--list")  # no -b, no env, no sandbox
    lines = result.stdout.strip().splitlines()
    assert lines[0].split() == [
        "CREATED",
        "GROUP",
        "PARTITIONS",
        "STRATEGY",
        "HISTORY",
        "FILE",
        "ERROR",
    ]
    body = lines[1:]
    assert len(body) == 4
    assert body[0].startswith("2026-05-01T10:00:00.000Z")
    assert "orders-app" in body[0] and files["orders-app-20260501T100000000Z.json"] in body[0]
    assert body[1].startswith("2026-05-01T12:00:00.000Z")
    assert body[2].startswith("2026-05-02T10:00:00.000Z") and "undo of to earliest" in body[2]
    assert files["broken"] in body[3] and "invalid JSON" in body[3]
    assert "sandbox" not in result.stderr


def test_undo_list_json_filtered_by_group(isolated_state) -> None:
    files = _write_backups(isolated_state)
    document = json.loads(run_kgroup("-o", "json", "undo", "--list", "billing").stdout)
    assert document["schema_version"] == 1
    backups = document["backups"]
    assert [b["created"] for b in backups] == [
        "2026-05-01T12:00:00.000Z",
        "2026-05-02T10:00:00.000Z",
        "2026-05-03T10:00:00.000Z",
    ]
    assert backups[0] == {
        "created": "2026-05-01T12:00:00.000Z",
        "group": "billing",
        "partitions": 1,
        "strategy": "undo of to earliest",
        "history": "in effect",
        "file": files["billing-20260501T120000000Z.json"],
        "error": None,
        "undoes": None,
        "undone_by": None,
        "next_undo": False,
    }
    assert backups[1]["partitions"] == 3
    assert backups[2]["file"] == files["broken"] and backups[2]["error"]
    assert {b["group"] for b in backups[:2]} == {"billing"}


def test_undo_list_jsonl_and_csv(isolated_state) -> None:
    _write_backups(isolated_state)
    jsonl = run_kgroup("-o", "jsonl", "undo", "--list", "orders-app").stdout.strip().splitlines()
    assert [json.loads(line)["group"] for line in jsonl] == ["orders-app"]
    csv_lines = run_kgroup("undo", "--list", "-o", "csv").stdout.strip().splitlines()
    assert csv_lines[0] == "created,group,partitions,strategy,history,file,error"
    assert len(csv_lines) == 5


@pytest.mark.parametrize("make_dir", [False, True])
def test_undo_list_with_no_backups(isolated_state, make_dir: bool) -> None:
    if make_dir:
        (isolated_state / "kgroup" / "backups").mkdir(parents=True)
    result = run_kgroup("undo", "--list")
    assert "No backups" in result.stdout
    assert str(isolated_state / "kgroup" / "backups") in result.stdout
    document = json.loads(run_kgroup("undo", "--list", "-o", "json").stdout)
    assert document["schema_version"] == 1 and document["backups"] == []


def test_undo_list_of_a_group_without_backups(isolated_state) -> None:
    _write_backups(isolated_state)
    result = run_kgroup("undo", "--list", "nobody")
    assert "No backups of group nobody" in result.stdout


def test_undo_without_group_or_list_is_a_usage_error(isolated_state) -> None:
    result = run_kgroup(*NO_BROKER, "undo", expect=2)
    assert "undo needs GROUP (or --list)" in one_line(result.stderr)


@pytest.mark.parametrize("extra", [["--execute"], ["--backup", "x.json"]])
def test_undo_list_refuses_execute_and_backup(isolated_state, extra) -> None:
    result = run_kgroup(*NO_BROKER, "undo", "--list", *extra, expect=2)
    line = one_line(result.stderr)
    assert "--list" in line and extra[0] in line
