"""`reset-offsets --to-committed-at TIME --segments DIR`: restore from the history a real Apache
Kafka 4.1 broker wrote (`/work/shared/fixtures/kafka-4.1/every-record-type`, see its README).

Expected offsets are Kafka's own decoding of the records (`expected.jsonl`, from
`kafka-dump-log --offsets-decoder`), looked up by their place in the log, never kgroup's.
A dry run with --segments needs no cluster: these tests run without a broker.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kgroup.offsets import encode as enc
from tests.helpers import run_kgroup

FIXTURE = (
    Path(os.environ.get("KGROUP_KAFKA41_FIXTURES", "/work/shared/fixtures/kafka-4.1"))
    / "every-record-type"
)

pytestmark = pytest.mark.skipif(
    not FIXTURE.is_dir(), reason=f"the Kafka 4.1 fixture is not at {FIXTURE}"
)


def kafka(partition_dir: str, offset: int) -> dict:
    """The record at `offset` of `partition_dir`, as Kafka's dump-log decoded it."""
    with open(FIXTURE / "expected.jsonl", encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            if doc["partition_dir"] == partition_dir and doc["offset"] == offset:
                return doc
    raise AssertionError(f"no record {partition_dir}@{offset} in expected.jsonl")


def restore(group: str, when: str | int, *scope: str, expect: int = 0, env=None) -> tuple:
    """A JSON dry run; (rows by (topic, partition), the group document, stderr)."""
    result = run_kgroup(
        "-o", "json", "reset-offsets", group, "--to-committed-at", str(when),
        "--segments", str(FIXTURE), *(scope or ("--all-topics",)), expect=expect, env=env,
    )  # fmt: skip
    if expect != 0:
        return {}, {}, result.stderr
    doc = json.loads(result.stdout)["groups"][0]
    rows = {(r["topic"], r["partition"]): r for r in doc["partitions"]}
    return rows, doc, result.stderr


def offset_of(partition_dir: str, offset: int) -> int:
    return kafka(partition_dir, offset)["value"]["data"]["offset"]


def test_a_classic_group_goes_back_to_its_commits_before_a_reset() -> None:
    # classic-range committed at __consumer_offsets-1@3/@4; kgroup reset it at @26/@27
    before_reset = kafka("__consumer_offsets-1", 26)["timestamp"] - 1
    rows, doc, _err = restore("classic-range", before_reset)
    assert {k: r["new_offset"] for k, r in rows.items()} == {
        ("orders", 2): offset_of("__consumer_offsets-1", 3),
        ("payments", 3): offset_of("__consumer_offsets-1", 4),
    }
    commit_ms = kafka("__consumer_offsets-1", 3)["value"]["data"]["commitTimestamp"]
    from kgroup.reset.timespec import format_utc_ms

    assert rows[("orders", 2)]["from"] == (
        f"commit {format_utc_ms(commit_ms)} (__consumer_offsets-1@3)"
    )
    assert doc["timestamp_ms"] == before_reset
    after, _doc, _err = restore("classic-range", kafka("__consumer_offsets-1", 27)["timestamp"])
    assert after[("orders", 2)]["new_offset"] == offset_of("__consumer_offsets-1", 26)


def test_a_kip848_group_is_restored_as_of_the_time() -> None:
    when = kafka("__consumer_offsets-2", 25)["timestamp"]
    rows, _doc, _err = restore("kip848-uniform", when)
    assert {k: r["new_offset"] for k, r in rows.items()} == {
        ("orders", 5): offset_of("__consumer_offsets-2", 22),
        ("payments", 0): offset_of("__consumer_offsets-2", 23),
        ("payments", 1): offset_of("__consumer_offsets-2", 24),
        ("orders", 1): offset_of("__consumer_offsets-2", 25),
    }


def test_an_aborted_transactional_commit_does_not_count() -> None:
    # txn-group: @25/@26 committed by the COMMIT marker @27; @28 dropped by the ABORT @29
    assert kafka("__consumer_offsets-4", 27)["control"].startswith("endTxnMarker: COMMIT")
    assert kafka("__consumer_offsets-4", 29)["control"].startswith("endTxnMarker: ABORT")
    after_abort = kafka("__consumer_offsets-4", 29)["timestamp"] + 1
    rows, doc, _err = restore("txn-group", after_abort, "--topic", "orders:0-2")
    assert {k: r["new_offset"] for k, r in rows.items()} == {
        ("orders", 0): offset_of("__consumer_offsets-4", 25),
        ("orders", 1): offset_of("__consumer_offsets-4", 26),
    }
    assert any("1 partition(s) left out" in w and "orders:2" in w for w in doc["warnings"])


def test_a_transactional_commit_counts_only_from_its_commit_marker() -> None:
    written = kafka("__consumer_offsets-4", 26)["timestamp"]
    marker = kafka("__consumer_offsets-4", 27)["timestamp"]
    assert written < marker
    rows, doc, _err = restore("txn-group", written, "--topic", "orders:0-1")
    assert rows == {}
    assert any("2 partition(s) left out" in w for w in doc["warnings"])


def test_a_deleted_offset_is_not_restored_and_is_listed() -> None:
    # to-delete-offsets: orders:0-5 committed @17-@22; orders:0,1 deleted (tombstones @23/@24)
    assert kafka("__consumer_offsets-1", 23)["value"] is None
    after_delete = kafka("__consumer_offsets-1", 24)["timestamp"] + 1
    rows, doc, _err = restore("to-delete-offsets", after_delete, "--topic", "orders:0-5")
    assert sorted(rows) == [("orders", p) for p in range(2, 6)]
    assert all(r["new_offset"] == offset_of("__consumer_offsets-1", 19) for r in rows.values())
    assert any("left out" in w and "orders:0, orders:1" in w for w in doc["warnings"])
    before_delete = kafka("__consumer_offsets-1", 23)["timestamp"] - 1
    rows, _doc, _err = restore("to-delete-offsets", before_delete, "--topic", "orders:0-1")
    assert rows[("orders", 0)]["new_offset"] == offset_of("__consumer_offsets-1", 17)


def test_the_table_shows_where_each_offset_came_from_and_needs_no_cluster() -> None:
    when = kafka("__consumer_offsets-1", 26)["timestamp"] - 1
    result = run_kgroup(
        "reset-offsets", "classic-range", "--to-committed-at", str(when),
        "--segments", str(FIXTURE), "--all-topics",
        env={"KGROUP_BOOTSTRAP_SERVERS": "127.0.0.1:1"},  # nothing listens: never asked
    )  # fmt: skip
    assert "FROM" in result.stdout
    assert "(__consumer_offsets-1@3)" in result.stdout
    assert "Dry run: nothing was committed" in result.stdout


def test_export_writes_a_plan_that_from_file_reads(tmp_path: Path) -> None:
    when = kafka("__consumer_offsets-1", 26)["timestamp"] - 1
    plan = tmp_path / "plan.json"
    run_kgroup(
        "reset-offsets", "classic-range", "--to-committed-at", str(when),
        "--segments", str(FIXTURE), "--all-topics", "--export", str(plan),
    )  # fmt: skip
    from kgroup.reset.planfile import read_plan_file

    rows = read_plan_file(str(plan)).strategy().rows
    assert {(r.group, r.topic, r.partition, r.offset) for r in rows} == {
        ("classic-range", "orders", 2, offset_of("__consumer_offsets-1", 3)),
        ("classic-range", "payments", 3, offset_of("__consumer_offsets-1", 4)),
    }


# ---------------------------------------------------------------- refusals


def test_an_unknown_group_exits_3() -> None:
    _rows, _doc, err = restore("no-such-group", 1795772720000, expect=3)
    assert "group no-such-group has no record in the segments" in err
    assert "Traceback" not in err


def test_a_time_in_the_future_exits_2() -> None:
    _rows, _doc, err = restore("classic-range", "2099-01-01T00:00:00Z", expect=2)
    assert "is in the future" in err


def test_a_time_before_the_history_exits_5_and_plans_nothing() -> None:
    first = kafka("__consumer_offsets-1", 0)["timestamp"]
    _rows, _doc, err = restore("classic-range", first - 60_000, expect=5)
    assert "TIME is before the history (__consumer_offsets-1 begins at" in err
    assert "nothing planned" in err


def test_a_bad_time_and_history_options_without_the_strategy_exit_2() -> None:
    _rows, _doc, err = restore("classic-range", "yesterday", expect=2)
    assert "neither a time nor a duration" in err
    result = run_kgroup(
        "reset-offsets", "g", "--to", "earliest", "--segments", str(FIXTURE), "--all-topics",
        expect=2,
    )  # fmt: skip
    assert "--segments applies to --to-committed-at only" in result.stderr
    _rows, _doc, err = restore(
        "classic-range", "2h", "--engine", "hadoop", "--all-topics", expect=2
    )
    assert "unknown engine 'hadoop'" in err


T0 = 1_767_225_600_000


def _compacted(root: Path) -> Path:
    """A compacted copy of one group's partition, as Kafka's cleaner leaves it: the batch that
    held g's commit of orders:2 at T0+1s kept only its later record (offsets 0-1, one record),
    so what g had on orders:1 before cannot be told; orders:0's commit at T0+2s stays."""
    part = root / "__consumer_offsets-0"
    part.mkdir(parents=True)
    first = enc.encode_batch(
        [enc.offset_commit("g", "orders", 2, 7, commit_timestamp=T0 + 1_000)],
        base_offset=0,
        timestamp=T0 + 1_000,
        offset_deltas=[1],  # offset 0 (an older commit) was removed
    )
    second = enc.encode_batch(
        [enc.offset_commit("g", "orders", 0, 42, commit_timestamp=T0 + 2_000)],
        base_offset=2,
        timestamp=T0 + 2_000,
    )
    (part / "00000000000000000000.log").write_bytes(first + second)
    return root


def test_where_compaction_removed_records_the_partition_is_refused_never_guessed(
    tmp_path: Path,
) -> None:
    logs = _compacted(tmp_path / "logs")
    args = ("-o", "json", "reset-offsets", "g", "--segments", str(logs))
    args += ("--to-committed-at", str(T0 + 2_500))
    ok = run_kgroup(*args, "--topic", "orders:0")
    assert json.loads(ok.stdout)["groups"][0]["partitions"][0]["new_offset"] == 42
    refused = run_kgroup(*args, "--topic", "orders:0-1", expect=5)
    assert "the history does not reach back for 1 partition(s) (orders:1)" in refused.stderr
    assert "were removed (compaction or retention" in refused.stderr
    everything = json.loads(run_kgroup(*args, "--all-topics").stdout)["groups"][0]
    assert [r["partition"] for r in everything["partitions"]] == [0, 2]
    assert any("--all-topics cannot list a partition whose every record is gone" in w
               for w in everything["warnings"])  # fmt: skip


@pytest.mark.spark
@pytest.mark.parametrize(
    ("group", "when"),
    [("classic-range", 1_795_772_710_000), ("txn-group", 1_795_772_730_000)],
)
def test_spark_plans_what_the_local_engine_plans(spark_session, capsys, group, when) -> None:
    from kgroup.cli.app import run

    docs = []
    for engine in ("local", "spark"):
        args = ["-o", "json", "reset-offsets", group, "--to-committed-at", str(when)]
        args += ["--segments", str(FIXTURE), "--topic", "orders:0-5", "--engine", engine]
        assert run(args) == 0
        docs.append(json.loads(capsys.readouterr().out))
    assert docs[0] == docs[1]
    assert docs[0]["groups"][0]["partitions"]  # a real restore, not two empty plans


def test_a_corrupt_segment_exits_7_with_a_hint_reset_offsets_can_follow(tmp_path: Path) -> None:
    # a CRC mismatch in classic-range's partition: never skipped (an offset behind a bad batch
    # could be the one in force at TIME), and the hint names no option reset-offsets lacks
    logs = tmp_path / "logs" / "__consumer_offsets-1"
    logs.mkdir(parents=True)
    (segment,) = (FIXTURE / "__consumer_offsets-1").glob("*.log")
    data = bytearray(segment.read_bytes())
    data[900] ^= 0xFF
    (logs / segment.name).write_bytes(bytes(data))
    result = run_kgroup(
        "reset-offsets", "classic-range", "--to-committed-at", "1h",
        "--segments", str(tmp_path / "logs"), "--all-topics", expect=7,
    )  # fmt: skip
    assert "CRC-32C mismatch" in result.stderr
    assert "pass --skip-corrupt" not in result.stderr
    assert "`kgroup decode --segments DIR --skip-corrupt`" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr
