"""`kgroup simulate-assign` through the CLI (CliRunner and one real subprocess)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from kgroup.assign import STRATEGIES
from kgroup.cli.app import app, run
from kgroup.cli.assign import ALL_STRATEGIES

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
    (doc,) = doc["strategies"]  # one shape for one strategy or several
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
    step = doc["strategies"][0]["steps"][1]
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


def test_the_command_offers_exactly_the_strategies_the_engines_have() -> None:
    # two copies of the list: --strategy and --compare read the CLI's, get_assignor the other
    assert ALL_STRATEGIES == STRATEGIES


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
    (sim,) = doc["strategies"]
    assert len(sim["steps"]) == 2
    assert sim["steps"][1]["metrics"]["partitions"] == 6


def test_usage_errors_exit_2(capsys) -> None:
    assert run(["simulate-assign", "--members", "a"]) == 2
    assert run(["simulate-assign", "--members", "a", "--topics", "t:1", "-s", "nope"]) == 2
    assert run(["simulate-assign", "--members", "a", "--topics", "t:1", "--events", "?x"]) == 2
    capsys.readouterr()
    assert run(["simulate-assign", "--from-group", "g", "--members", "a"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--from-group" in err


def test_missing_scenario_file_exits_3(tmp_path) -> None:
    assert run(["simulate-assign", "--scenario", str(tmp_path / "nope.yaml")]) == 3


def test_real_process_stdout_and_exit_code() -> None:
    from helpers import run_kgroup

    result = run_kgroup("simulate-assign", "--members", "c1,c2", "--topics", "t:3", "-o", "jsonl")
    items = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(i["strategy"], i["step"]) for i in items] == [("range", 0)]
    assert set(items[0]["assignment"]) == {"c1", "c2"}
    bad = run_kgroup("simulate-assign", "--topics", "t:x", "--members", "a", expect=2)
    assert bad.stdout == ""


# --- --from-group, with the cluster call replaced by a fixed snapshot --------------------------


def _snapshot(protocol: str | None, members: int = 2):
    from kgroup.core.models import GroupDescription, GroupSnapshot, MemberDescription, TopicMetadata

    def sub(topic: str) -> bytes:  # ConsumerProtocolSubscription v0: [topic], userData null
        return b"\x00\x00" + b"\x00\x00\x00\x01" + b"\x00\x01" + topic.encode() + b"\xff" * 4

    def assigned(topic: str, parts: list[int]) -> bytes:  # ConsumerProtocolAssignment v0
        body = b"".join(p.to_bytes(4, "big") for p in parts)
        return (
            b"\x00\x00\x00\x00\x00\x01\x00\x01"
            + topic.encode()
            + len(parts).to_bytes(4, "big")
            + body
            + b"\xff" * 4
        )

    owned = [[0, 1, 2], [3, 4, 5]]
    group = GroupDescription(
        "g",
        "Stable",
        "classic",
        "consumer",
        protocol,
        members=tuple(
            MemberDescription(
                f"c{i + 1}", raw_metadata=sub("t"), raw_assignment=assigned("t", owned[i])
            )
            for i in range(members)
        ),
    )
    return GroupSnapshot(group, {"t": TopicMetadata("t", 6)})


def _fake_cluster(monkeypatch, snapshot=None, error=None) -> None:
    import kgroup.core.group_snapshot as core

    def fake(admin, group_id):
        if error is not None:
            raise error
        return snapshot

    monkeypatch.setattr(core, "snapshot_group", fake)


def test_from_group_runs_the_groups_own_assignor(monkeypatch) -> None:
    _fake_cluster(monkeypatch, _snapshot("roundrobin"))
    args = ["-b", "127.0.0.1:9", "-o", "json", "simulate-assign", "--from-group", "g"]
    (doc,) = json.loads(invoke(*args, "--events", "+c3").stdout)["strategies"]
    assert doc["strategy"] == "roundrobin"
    first, second = doc["steps"]
    # roundrobin over t:0-5 in member order: c1 0,2,4; c2 1,3,5 (the group held 0-2 and 3-5)
    assert first["assignment"] == {
        "c1": [["t", 0], ["t", 2], ["t", 4]],
        "c2": [["t", 1], ["t", 3], ["t", 5]],
    }
    # kept: c1 keeps 0 and 2, c2 keeps 3 and 5
    assert first["metrics"]["previously_owned"] == 6 and first["metrics"]["kept"] == 4
    assert second["assignment"]["c3"] == [["t", 2], ["t", 5]]


def test_from_group_with_an_unknown_assignor_needs_strategy(monkeypatch, capsys) -> None:
    _fake_cluster(monkeypatch, _snapshot("my-assignor"))
    assert run(["-b", "127.0.0.1:9", "simulate-assign", "--from-group", "g"]) == 2
    err = capsys.readouterr().err
    assert "'my-assignor'" in err and "--strategy" in err
    assert run(["-b", "127.0.0.1:9", "simulate-assign", "--from-group", "g", "-s", "range"]) == 0


def test_from_group_unknown_or_empty_group_exits_3(monkeypatch, capsys) -> None:
    from kgroup.core.errors import NotFoundError

    _fake_cluster(monkeypatch, error=NotFoundError("group g does not exist"))
    assert run(["-b", "127.0.0.1:9", "simulate-assign", "--from-group", "g"]) == 3
    _fake_cluster(monkeypatch, _snapshot("range", members=0))
    assert run(["-b", "127.0.0.1:9", "simulate-assign", "--from-group", "g"]) == 3
    assert "nothing to simulate" in capsys.readouterr().err
