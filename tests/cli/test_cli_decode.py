"""`kgroup decode` through a real process: outputs, filters and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgroup.offsets import encode as enc
from tests.helpers import run_kgroup

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "consumer-offsets-segments"
if not FIXTURES.is_dir():
    FIXTURES = Path("/work/shared/fixtures/consumer-offsets-segments")
ZEY = FIXTURES / "zeydozer_go-case" / "__consumer_offsets-45"


def _partition(tmp_path: Path, batches: list[bytes]) -> Path:
    d = tmp_path / "__consumer_offsets-7"
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(b"".join(batches))
    return d


def _commit(offset: int, committed: int, ts: int) -> bytes:
    return enc.encode_batch(
        [enc.offset_commit("g", "t", 0, committed, commit_timestamp=ts)],
        base_offset=offset,
        timestamp=ts,
    )


@pytest.mark.skipif(not ZEY.is_dir(), reason="shared fixtures not present")
def test_jsonl_records_follow_the_cli_contract() -> None:
    result = run_kgroup("decode", "--segments", str(ZEY), "-o", "jsonl")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 4
    commit = lines[1]
    assert commit["source"] == "__consumer_offsets-45/00000000000000000000.log"
    assert commit["record_type"] == "offset_commit"
    assert commit["key"] == {"group": "node-api-group", "topic": "item-events", "partition": 0}
    assert commit["value_version"] == 3
    assert set(commit["value"]) == {"offset", "leader_epoch", "metadata", "commit_timestamp"}
    # KafkaJS's "v1" subscription lacks ownedPartitions: Kafka rejects it, kept raw (issue #13)
    assert "ownedPartitions" in lines[0]["value"]["members"][0]["subscription"]["error"]
    assert result.stderr == ""


@pytest.mark.skipif(not ZEY.is_dir(), reason="shared fixtures not present")
def test_json_document_and_table() -> None:
    doc = json.loads(run_kgroup("decode", str(ZEY), "--type", "offset", "-o", "json").stdout)
    assert doc["schema_version"] == 1
    assert [r["value"]["offset"] for r in doc["records"]] == [1, 2, 3]
    assert doc["summary"]["problems"] == []
    table = run_kgroup("decode", "--segments", str(ZEY), "--latest").stdout
    assert "item-events-0" in table and "offset=3" in table and "offset=2" not in table


def test_corrupt_batch_exits_7_naming_file_and_position(tmp_path: Path) -> None:
    good = _commit(0, 5, 1000)
    bad = bytearray(_commit(1, 6, 2000))
    bad[-2] ^= 0x40
    d = _partition(tmp_path, [good, bytes(bad), _commit(2, 7, 3000)])
    result = run_kgroup("decode", "--segments", str(d), "-o", "jsonl", expect=7)
    assert "__consumer_offsets-7/00000000000000000000.log" in result.stderr
    assert f"at byte {len(good)}" in result.stderr
    assert "CRC-32C mismatch" in result.stderr
    assert "--skip-corrupt" in result.stderr
    skipped = run_kgroup("decode", "--segments", str(d), "-o", "jsonl", "--skip-corrupt")
    assert [json.loads(x)["offset"] for x in skipped.stdout.splitlines()] == [0, 2]
    assert f"at byte {len(good)}" in skipped.stderr


def test_torn_tail_is_a_note_not_a_failure(tmp_path: Path) -> None:
    d = _partition(tmp_path, [_commit(0, 5, 1000), _commit(1, 6, 2000)[:25]])
    result = run_kgroup("decode", "--segments", str(d), "-o", "jsonl")
    assert len(result.stdout.splitlines()) == 1
    assert "25 trailing bytes" in result.stderr


def test_as_of_since_until(tmp_path: Path) -> None:
    d = _partition(tmp_path, [_commit(0, 5, 1_000), _commit(1, 6, 2_000), _commit(2, 7, 3_000)])
    as_of = run_kgroup(
        "decode",
        "--segments",
        str(d),
        "--group",
        "g",
        "--as-of",
        "1970-01-01T00:00:02.5Z",
        "-o",
        "jsonl",
    )
    assert [json.loads(x)["value"]["offset"] for x in as_of.stdout.splitlines()] == [6]
    window = run_kgroup("decode", str(d), "--since", "2000", "--until", "2999", "-o", "jsonl")
    # plain integers below 1e11 are epoch seconds: 2000 s is after every record here
    assert window.stdout == ""
    window = run_kgroup(
        "decode",
        str(d),
        "--since",
        "1970-01-01T00:00:02Z",
        "--until",
        "1970-01-01T00:00:02Z",
        "-o",
        "jsonl",
    )
    assert [json.loads(x)["offset"] for x in window.stdout.splitlines()] == [1]


def test_out_dir_writes_jsonl(tmp_path: Path) -> None:
    d = _partition(tmp_path, [_commit(0, 5, 1_000), _commit(1, 6, 2_000)])
    result = run_kgroup("decode", str(d), "--out", str(tmp_path / "out"), "-o", "json")
    doc = json.loads(result.stdout)
    assert doc["summary"]["records"] == 2
    lines = (tmp_path / "out" / "part-00000.jsonl").read_text().splitlines()
    assert [json.loads(x)["value"]["offset"] for x in lines] == [5, 6]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("decode",), "say where to read from"),
        (("decode", "x", "--engine", "local", "--spark-master", "local[2]"), "Spark engine"),
        (("decode", "--live", "somewhere"), "takes no PATH"),
        (("decode", "x", "--latest", "--as-of", "0"), "one of --latest, --as-of and --summary"),
        (("decode", "x", "--summary", "--latest"), "one of --latest, --as-of and --summary"),
        (("decode", "x", "--since", "2026-05-01T10:00:00"), "no time zone"),
        (("decode", "x", "--type", "nope"), "unknown record type"),
    ],
)
def test_usage_errors_exit_2(args: tuple[str, ...], needle: str) -> None:
    result = run_kgroup(*args, expect=2)
    assert needle in result.stderr
    assert result.stdout == ""


def test_missing_path_exits_3(tmp_path: Path) -> None:
    result = run_kgroup("decode", "--segments", str(tmp_path / "nope"), expect=3)
    assert "no such file or directory" in result.stderr


@pytest.mark.parametrize("view", [[], ["--latest"], ["--summary"]])
def test_json_on_corrupt_input_is_a_closed_document_with_an_error(
    tmp_path: Path, view: list[str]
) -> None:
    """Issue #24 item 6: exit 7, and stdout is still one valid JSON document: the records read
    before the corruption, the summary, and an `error` naming file, byte and reason."""
    good = _commit(0, 5, 1000)
    bad = bytearray(_commit(1, 6, 2000))
    bad[-2] ^= 0x40
    d = _partition(tmp_path, [good, bytes(bad), _commit(2, 7, 3000)])
    result = run_kgroup("decode", "--segments", str(d), *view, "-o", "json", expect=7)
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == 1
    assert f"00000000000000000000.log at byte {len(good)}" in doc["error"]
    assert "CRC-32C mismatch" in doc["error"]
    assert "summary" in doc
    if not view:
        assert [r["offset"] for r in doc["records"]] == [0]
    assert "CRC-32C mismatch" in result.stderr
