"""`kgroup decode --live` against the session's real broker, reading a copy of the offsets topic.

tansu has no `__consumer_offsets` (TEST_ENVIRONMENT.md), so the test writes records made by
kgroup's encoder to a topic of another name and reads it with `--offsets-topic`. Records are
produced one per request, the way the shared helpers do for tansu.
"""

from __future__ import annotations

import json

import pytest

from kgroup.offsets import encode as enc
from kgroup.offsets.replay import partition_for
from tests.helpers import admin_for, run_kgroup

pytestmark = pytest.mark.integration

PARTITIONS = 3


@pytest.fixture()
def offsets_copy(kafka_broker, unique: str) -> tuple[str, str, list[str]]:
    from kgroup.core.clients import SeedRecord, create_topics, produce_one_per_request

    topic = f"offsets-copy-{unique}"
    groups = [f"g1-{unique}", f"g2-{unique}"]
    admin = admin_for(kafka_broker.bootstrap)
    create_topics(admin, {topic: PARTITIONS})
    records = []
    ts = 1_767_225_600_000
    for i, group in enumerate(groups):
        p = partition_for(group, PARTITIONS)
        for n in range(3):
            key, value = enc.offset_commit(
                group, "orders", n, 10 * (i + 1) + n, commit_timestamp=ts
            )
            records.append(SeedRecord(topic, p, ts + n, key, value))
        meta = enc.encode_value(
            2,
            3,
            {
                "protocol_type": "consumer",
                "generation": 1,
                "protocol": "range",
                "leader": "m1",
                "current_state_timestamp": ts,
                "members": [
                    {
                        "member_id": "m1",
                        "group_instance_id": None,
                        "client_id": "c",
                        "client_host": "/127.0.0.1",
                        "rebalance_timeout": 300000,
                        "session_timeout": 45000,
                        "subscription": {
                            "version": 3,
                            "topics": ["orders"],
                            "user_data": None,
                            "owned_partitions": [],
                            "generation_id": 1,
                            "rack_id": None,
                        },
                        "assignment": {
                            "version": 3,
                            "user_data": None,
                            "assigned_partitions": [{"topic": "orders", "partitions": [0, 1, 2]}],
                        },
                    }
                ],
            },
        )
        records.append(SeedRecord(topic, p, ts + 10, enc.encode_key(2, {"group": group}), meta))
        # a tombstone for one offset, as offset expiry writes it
        records.append(
            SeedRecord(topic, p, ts + 20, enc.offset_commit(group, "orders", 2, 0)[0], None)
        )  # type: ignore[arg-type]
    produce_one_per_request(admin, records)
    return kafka_broker.bootstrap, topic, groups


def test_live_decode_reads_every_record(offsets_copy) -> None:
    bootstrap, topic, groups = offsets_copy
    result = run_kgroup(
        "-b", bootstrap, "decode", "--live", "--offsets-topic", topic, "-o", "jsonl"
    )
    recs = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(recs) == 2 * 5
    assert {r["key"]["group"] for r in recs} == set(groups)
    meta = [r for r in recs if r["record_type"] == "group_metadata"]
    assert meta[0]["value"]["members"][0]["assignment"]["assigned_partitions"] == [
        {"topic": "orders", "partitions": [0, 1, 2]}
    ]
    assert all(r["source"].startswith(topic + "-") for r in recs)
    tombstones = [r for r in recs if r["value"] is None]
    assert len(tombstones) == 2


def test_live_group_reads_only_its_partition_and_latest_view(offsets_copy) -> None:
    bootstrap, topic, groups = offsets_copy
    result = run_kgroup(
        "-b",
        bootstrap,
        "decode",
        "--live",
        "--offsets-topic",
        topic,
        "--group",
        groups[1],
        "--latest",
        "--type",
        "offset",
        "-o",
        "jsonl",
    )
    recs = [json.loads(line) for line in result.stdout.splitlines()]
    # partition 2's commit was deleted by the tombstone: the compacted view keeps 0 and 1
    assert [(r["key"]["partition"], r["value"]["offset"]) for r in recs] == [(0, 20), (1, 21)]
    assert {r["partition"] for r in recs} == {partition_for(groups[1], PARTITIONS)}


def test_live_missing_topic_exits_3(kafka_broker, unique: str) -> None:
    result = run_kgroup(
        "-b",
        kafka_broker.bootstrap,
        "decode",
        "--live",
        "--offsets-topic",
        f"no-such-offsets-{unique}",
        expect=3,
    )
    assert f"no-such-offsets-{unique} does not exist" in result.stderr
    assert result.stdout == ""


@pytest.mark.spark
def test_live_spark_source_equals_local_engine(offsets_copy, spark_session, capsys) -> None:
    from kgroup.cli.app import run

    bootstrap, topic, groups = offsets_copy
    for view in ([], ["--latest"], ["--summary"]):
        docs = []
        for engine in ("local", "spark"):
            args = ["-b", bootstrap, "-o", "json", "decode", "--live", "--offsets-topic", topic]
            assert run([*args, "--engine", engine, *view]) == 0
            doc = json.loads(capsys.readouterr().out)
            if "records" in doc:
                doc["records"].sort(key=lambda r: (r["partition"], r["offset"]))
            docs.append(doc.get("records", doc.get("groups")))
        assert docs[0] == docs[1]
        assert docs[0]
    assert {g["group"] for g in docs[1]} == set(groups)


@pytest.mark.spark
def test_live_spark_out_writes_the_records_as_parquet(
    offsets_copy, spark_session, capsys, tmp_path
) -> None:
    """--live --out with Spark: the tasks read the topic with confluent-kafka and write the
    same records the local engine prints, as committed Parquet part files."""
    import pyarrow.parquet as pq

    from kgroup.cli.app import run
    from kgroup.scan.rows import row_to_record

    bootstrap, topic, _groups = offsets_copy
    args = ["-b", bootstrap, "-o", "json", "decode", "--live", "--offsets-topic", topic]
    assert run([*args, "--engine", "local"]) == 0
    expected = json.loads(capsys.readouterr().out)["records"]
    out = tmp_path / "live-out"
    assert run([*args, "--engine", "spark", "--out", str(out)]) == 0
    capsys.readouterr()
    assert (out / "_SUCCESS").exists() and not (out / "_temporary").exists()
    table = pq.read_table(out)
    got = [row_to_record(r).to_dict() for r in table.to_pylist()]
    key = lambda r: (r["partition"], r["offset"])  # noqa: E731
    assert sorted(got, key=key) == sorted(expected, key=key)
    assert len(got) == len(expected) > 0
