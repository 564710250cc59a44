"""Tables on a narrow terminal keep every header and number whole (issue 12, B1), and
`simulate-assign` has one JSON shape (B3). Real processes; decode reads segments from disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgroup.offsets import encode as enc
from tests.helpers import run_kgroup
from tests.ptyrun import run_in_pty

GROUP = "billing-reconciliation-service"
TOPIC = "payments.settlement.events"
BASE_MS = 1_767_225_600_000


def _segments(tmp_path: Path) -> Path:
    """Offset commits of a long-named group, one with a long metadata string."""
    d = tmp_path / "__consumer_offsets-17"
    d.mkdir()
    batches = [
        enc.encode_batch(
            [
                enc.offset_commit(
                    GROUP,
                    TOPIC,
                    partition,
                    1_000_000 + partition,
                    commit_timestamp=BASE_MS + partition,
                    metadata="consumer=" + "x" * 90 if partition == 2 else "",
                )
            ],
            base_offset=12_345_670 + partition,
            timestamp=BASE_MS + partition,
        )
        for partition in range(3)
    ]
    (d / "00000000000000000000.log").write_bytes(b"".join(batches))
    return d


def assert_row(lines: list[str], *tokens: str) -> None:
    """Some line holds `tokens` whole, in this order, as whitespace-separated words."""
    for line in lines:
        words = line.split()
        for start in range(len(words) - len(tokens) + 1):
            if tuple(words[start : start + len(tokens)]) == tokens:
                return
    raise AssertionError(f"no line holds {tokens}:\n" + "\n".join(lines))


@pytest.mark.parametrize("columns", [80, 120])
def test_decode_latest_keeps_every_column_on_a_narrow_terminal(tmp_path, columns) -> None:
    seg = _segments(tmp_path)
    shown = run_in_pty("decode", "--segments", str(seg), "--latest", columns=columns)
    assert shown.code == 0, shown.stderr
    header = shown.lines[0].split()
    assert header == ["SOURCE", "OFFSET", "TIME", "TYPE", "GROUP", "KEY", "VALUE"]
    for partition in range(3):
        assert_row(shown.lines, str(12_345_670 + partition))
        assert f"offset={1_000_000 + partition}" in shown.screen
    assert_row(shown.lines, "2026-01-01T00:00:00.000Z", "offset_commit", GROUP, f"{TOPIC}-0")
    # the long value wraps; all of it is still there
    assert "x" * 20 in shown.screen and "…" not in shown.screen
    assert "3 records" in shown.screen


def test_decode_table_in_a_pipe_keeps_one_line_per_record(tmp_path) -> None:
    seg = _segments(tmp_path)
    out = run_kgroup("decode", "--segments", str(seg), "--latest", env={"COLUMNS": "40"}).stdout
    lines = out.splitlines()
    assert len(lines) == 1 + 3 + 1  # header, 3 records, the count
    assert "metadata=consumer=" + "x" * 90 in out or "x" * 90 in lines[3]


def test_no_color_on_a_terminal_still_fits_the_terminal(tmp_path) -> None:
    seg = _segments(tmp_path)
    shown = run_in_pty("--no-color", "decode", "--segments", str(seg), "--latest", columns=120)
    assert shown.code == 0, shown.stderr
    assert "\x1b[" not in shown.screen
    assert "x" * 90 not in shown.screen  # the value wraps as with colour, not one long line
    assert_row(shown.lines, "2026-01-01T00:00:00.002Z", "offset_commit", GROUP, f"{TOPIC}-2")


def _simulate(*args: str) -> str:
    return run_kgroup(
        "simulate-assign", "--members", "c1,c2", "--topics", "t:3", "--events", "+c3", *args
    ).stdout


@pytest.mark.parametrize("strategies", [["-s", "range"], ["-s", "range", "-s", "sticky"]])
def test_simulate_json_has_one_shape_for_one_or_several_strategies(strategies) -> None:
    doc = json.loads(_simulate("-o", "json", *strategies))
    assert set(doc) == {"schema_version", "strategies"}
    assert doc["schema_version"] == 1
    names = [s for s in strategies if s != "-s"]
    assert [s["strategy"] for s in doc["strategies"]] == names
    for sim in doc["strategies"]:
        assert [step["event"] for step in sim["steps"]] == ["initial", "+c3"]
        assert set(sim["steps"][0]["assignment"]) == {"c1", "c2"}


def test_simulate_jsonl_is_one_json_object_per_strategy_and_step() -> None:
    out = _simulate("-o", "jsonl", "-s", "range", "-s", "cooperative-sticky")
    items = [json.loads(line) for line in out.splitlines()]
    assert [(i["strategy"], i["step"], i["event"]) for i in items] == [
        ("range", 0, "initial"),
        ("range", 1, "+c3"),
        ("cooperative-sticky", 0, "initial"),
        ("cooperative-sticky", 1, "+c3"),
    ]
    first = items[0]
    assert first["assignment"] == {"c1": [["t", 0], ["t", 1]], "c2": [["t", 2]]}
    assert first["metrics"]["partitions"] == 3
    assert "revoke_phase" in items[3]  # cooperative: the two phases, as in -o json
