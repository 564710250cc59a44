"""`undo --list`: listing a backup directory from the files alone."""

from __future__ import annotations

import json
import os

from kgroup.reset.backups import COLUMNS, list_backups
from kgroup.reset.model import GroupPlan, PlanRow
from kgroup.reset.planfile import write_plan_file

MAY_1 = 1_777_629_600_000  # 2026-05-01T10:00:00Z


def plan(group: str, partitions: int = 1) -> GroupPlan:
    rows = tuple(PlanRow(group, "orders", p, 10, 5, 0, 20) for p in range(partitions))
    return GroupPlan(group, rows, "undo of to latest")


def test_a_missing_directory_holds_no_backups(tmp_path) -> None:
    assert list_backups(tmp_path / "nope") == []
    assert list_backups(tmp_path / "nope", "g") == []


def test_rows_oldest_first_one_per_group(tmp_path) -> None:
    write_plan_file(tmp_path / "b-2.json", [plan("b", 2)], kind="backup", created_at_ms=MAY_1 + 1)
    write_plan_file(
        tmp_path / "multi.json", [plan("z"), plan("a", 3)], kind="backup", created_at_ms=MAY_1
    )
    rows = list_backups(tmp_path)
    assert all(tuple(row) == COLUMNS for row in rows)
    assert [(r["group"], r["partitions"], r["created"]) for r in rows] == [
        ("a", 3, "2026-05-01T10:00:00.000Z"),
        ("z", 1, "2026-05-01T10:00:00.000Z"),
        ("b", 2, "2026-05-01T10:00:00.001Z"),
    ]
    assert rows[0]["file"] == str(tmp_path / "multi.json")
    assert rows[0]["strategy"] == "undo of to latest" and rows[0]["error"] is None


def test_unreadable_files_are_rows_with_an_error(tmp_path) -> None:
    (tmp_path / "g-1.json").write_text("{oops")
    (tmp_path / "other-1.json").write_text(json.dumps({"schema_version": 99}))
    (tmp_path / "plan.json").write_text(
        json.dumps({"schema_version": 1, "kind": "plan", "groups": []})
    )
    (tmp_path / ".g-1.json.x.tmp").write_text("half-written")
    for i, name in enumerate(("g-1.json", "other-1.json", "plan.json")):
        os.utime(tmp_path / name, (1_777_629_600 + i, 1_777_629_600 + i))
    rows = list_backups(tmp_path)
    assert [r["file"].rsplit("/", 1)[1] for r in rows] == ["g-1.json", "other-1.json", "plan.json"]
    assert rows[0]["created"] == "2026-05-01T10:00:00.000Z"
    assert rows[0]["error"].startswith("line 1: invalid JSON")
    assert "newer" in rows[1]["error"]
    assert rows[2]["error"] == "not a backup (kind plan)"
    assert all(r["group"] is None and r["partitions"] is None for r in rows)


def test_group_filter_keeps_its_unreadable_files_by_name(tmp_path) -> None:
    write_plan_file(tmp_path / "g-1.json", [plan("g")], kind="backup", created_at_ms=MAY_1)
    write_plan_file(tmp_path / "gg-1.json", [plan("gg")], kind="backup", created_at_ms=MAY_1)
    (tmp_path / "g-2.json").write_text("{oops")
    (tmp_path / "gg-2.json").write_text("{oops")
    rows = list_backups(tmp_path, "g")
    assert [(r["group"], r["file"].rsplit("/", 1)[1]) for r in rows] == [
        ("g", "g-1.json"),
        (None, "g-2.json"),
    ]
    assert list_backups(tmp_path, "none") == []


def test_a_file_without_created_at_uses_its_modification_time(tmp_path) -> None:
    path = tmp_path / "g.json"
    write_plan_file(path, [plan("g")], kind="backup", created_at_ms=MAY_1)
    document = json.loads(path.read_text())
    del document["created_at"]
    path.write_text(json.dumps(document))
    os.utime(path, (1_777_716_000, 1_777_716_000))
    assert list_backups(tmp_path)[0]["created"] == "2026-05-02T10:00:00.000Z"
