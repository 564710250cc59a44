"""`kgroup simulate-assign` through the CLI (CliRunner and one real subprocess)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from kgroup.cli.app import app, run

runner = CliRunner()


def invoke(*args: str, code: int = 0):
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result


def test_textbook_range_table() -> None:
    out = invoke("simulate-assign", "--members", "C0,C1", "--topics", "t0:3,t1:3").stdout
    assert "C0          4  t0:0-1;t1:0-1" in out
    assert "C1          2  t0:2;t1:2" in out
    assert "spread=2" in out


def test_json_document_shape() -> None:
    out = invoke(
        "-o",
        "json",
        "simulate-assign",
        "--members",
        "c1,c2,c3",
        "--topics",
        "orders:6",
        "--strategy",
        "sticky",
        "--events",
        "-c2",
    ).stdout
    doc = json.loads(out)
    assert doc["schema_version"] == 1
    assert doc["strategy"] == "sticky"
    assert [s["event"] for s in doc["steps"]] == ["initial", "-c2"]
    first, second = doc["steps"]
    assert first["assignment"]["c1"] == [["orders", 0], ["orders", 3]]
    # sticky: survivors keep what they had, the leaver's two partitions are reassigned
    for member in ("c1", "c3"):
        assert set(map(tuple, first["assignment"][member])) <= set(
            map(tuple, second["assignment"][member])
        )
    assert second["metrics"]["moved"] == 0
    assert second["metrics"]["reassigned"] == 2


def test_cooperative_shows_both_phases_in_json() -> None:
    doc = json.loads(
        invoke(
            "-o",
            "json",
            "simulate-assign",
            "--members",
            "c1,c2",
            "--topics",
            "t:4",
            "-s",
            "cooperative-sticky",
            "--events",
            "+c3",
        ).stdout
    )
    step = doc["steps"][1]
    assert step["metrics"]["revoked_phase1"] == 1
    assert step["revoke_phase"]["c3"] == []
    assert len(step["assignment"]["c3"]) == 1


def test_compare_csv_has_a_row_per_strategy_and_member() -> None:
    out = invoke(
        "-o", "csv", "simulate-assign", "--members", "a,b", "--topics", "t:2", "--compare"
    ).stdout
    lines = out.strip().splitlines()
    assert lines[0] == "strategy,step,event,member,count,partitions"
    assert len(lines) == 1 + 6 * 2


def test_scenario_file_yaml(tmp_path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "topics:\n  orders: 4\nmembers:\n"
        "  - {id: c1, owned: {orders: [0, 1, 2, 3]}, generation: 2}\n"
        "  - {id: c2}\nevents:\n  - partitions: {topic: orders, count: 6}\n",
        encoding="utf-8",
    )
    doc = json.loads(
        invoke("-o", "json", "simulate-assign", "--scenario", str(path), "-s", "sticky").stdout
    )
    assert len(doc["steps"]) == 2
    assert doc["steps"][1]["metrics"]["partitions"] == 6


def test_usage_errors_exit_2(capsys) -> None:
    assert run(["simulate-assign", "--members", "a"]) == 2
    assert run(["simulate-assign", "--members", "a", "--topics", "t:1", "-s", "nope"]) == 2
    assert run(["simulate-assign", "--members", "a", "--topics", "t:1", "--events", "?x"]) == 2
    capsys.readouterr()
    assert run(["simulate-assign", "--from-group", "g"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--from-group" in err


def test_missing_scenario_file_exits_3(tmp_path) -> None:
    assert run(["simulate-assign", "--scenario", str(tmp_path / "nope.yaml")]) == 3


def test_real_process_stdout_and_exit_code() -> None:
    from helpers import run_kgroup

    result = run_kgroup("simulate-assign", "--members", "c1,c2", "--topics", "t:3", "-o", "jsonl")
    items = [json.loads(line) for line in result.stdout.splitlines()]
    assert {i["member"] for i in items} == {"c1", "c2"}
    bad = run_kgroup("simulate-assign", "--topics", "t:x", "--members", "a", expect=2)
    assert bad.stdout == ""
