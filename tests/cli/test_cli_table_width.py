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


def test_decode_table_of_the_readme_demo_fits_120_columns(tmp_path) -> None:
    """Issue #24 item 16: the README's demo records (group billing-service, KEY orders-N) fit a
    120-column terminal: the source and value columns give up their 24-cell word floor (down to
    12) when that is what makes the table fit; key and number cells stay whole."""
    d = tmp_path / "__consumer_offsets-39"
    d.mkdir()
    batches = [
        enc.encode_batch(
            [
                enc.offset_commit(
                    "billing-service",
                    "orders",
                    p,
                    1200 + p,
                    commit_timestamp=BASE_MS + p,
                    leader_epoch=4,
                )
            ],
            base_offset=7 + p,
            timestamp=BASE_MS + p,
        )
        for p in range(4)
    ]
    (d / "00000000000000000000.log").write_bytes(b"".join(batches))
    shown = run_in_pty("decode", "--segments", str(d), "--latest", columns=120)
    assert shown.code == 0, shown.stderr
    assert max(len(line) for line in shown.lines) <= 120, shown.screen
    for p in range(4):
        assert_row(shown.lines, str(7 + p), "2026-01-01T00:00:00.00" + f"{p}Z")
        assert_row(shown.lines, "offset_commit", "billing-service", f"orders-{p}")


def test_undo_list_fits_80_columns(isolated_state) -> None:
    """Issue #24 item 16: `undo --list` on an 80-column terminal fits it: strategy, file and
    error wrap; created, group and partitions stay whole. Piped, every row is one line."""
    from tests.cli.test_cli_reset_input import _write_backups

    files = _write_backups(isolated_state)
    env = {"XDG_STATE_HOME": str(isolated_state)}
    shown = run_in_pty("undo", "--list", columns=80, env=env)
    assert shown.code == 0, shown.stderr
    assert max(len(line) for line in shown.lines) <= 80, shown.screen
    assert shown.lines[0].split() == [
        "CREATED",
        "GROUP",
        "PARTITIONS",
        "STRATEGY",
        "HISTORY",
        "FILE",
        "ERROR",
    ]
    assert_row(shown.lines, "2026-05-01T10:00:00.000Z", "orders-app", "2")
    assert_row(shown.lines, "2026-05-02T10:00:00.000Z", "billing", "3")
    # the FILE column, read down: every path whole once unwrapped
    start, end = shown.lines[0].index("FILE"), shown.lines[0].index("ERROR")
    column = "".join(line[start:end].strip() for line in shown.lines[2:])
    assert all(path in column for path in files.values()), column
