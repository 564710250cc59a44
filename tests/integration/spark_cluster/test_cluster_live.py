"""`kgroup decode --live` on the standalone cluster: the executors read a copy of the offsets
topic on the session's broker with confluent-kafka, and the client secret given to kgroup
appears in none of Spark's records of the run (master and worker logs, executor logs, the
event log, which holds the application's environment page and its SQL plan strings)."""

from __future__ import annotations

import json
import uuid

import pytest

from kgroup.offsets import encode as enc
from kgroup.offsets.replay import partition_for
from tests.helpers import admin_for, run_kgroup
from tests.integration.spark_cluster.conftest import cluster_args
from tests.integration.spark_cluster.logfiles import settled_files
from tests.integration.spark_cluster.test_cluster_decode import parquet_records

pytestmark = [pytest.mark.spark_cluster, pytest.mark.spark, pytest.mark.integration]

PARTITIONS = 3


@pytest.fixture()
def offsets_copy(kafka_broker, unique: str) -> tuple[str, str]:
    """A topic of `__consumer_offsets` records (tansu has no `__consumer_offsets` itself)."""
    from kgroup.core.clients import SeedRecord, create_topics, produce_one_per_request

    topic = f"offsets-copy-{unique}"
    admin = admin_for(kafka_broker.bootstrap)
    create_topics(admin, {topic: PARTITIONS})
    ts = 1_767_225_600_000
    records = []
    for i in range(6):
        group = f"g{i}-{unique}"
        p = partition_for(group, PARTITIONS)
        for n in range(4):
            key, value = enc.offset_commit(group, "orders", n, 100 * i + n, commit_timestamp=ts)
            records.append(SeedRecord(topic, p, ts + n, key, value))
        tomb = enc.offset_commit(group, "orders", 3, 0)[0]
        records.append(SeedRecord(topic, p, ts + 9, tomb, None))  # type: ignore[arg-type]
    produce_one_per_request(admin, records)
    return kafka_broker.bootstrap, topic


def test_live_out_on_the_cluster_keeps_the_secret(spark_cluster, offsets_copy, tmp_path) -> None:
    bootstrap, topic = offsets_copy
    secret = f"kgroup-test-pw-{uuid.uuid4().hex}"
    common = ["-b", bootstrap, "-X", f"sasl.password={secret}"]
    live = ["decode", "--live", "--offsets-topic", topic]
    expected = [
        json.loads(line)
        for line in run_kgroup(
            *common, "-o", "jsonl", *live, "--engine", "local"
        ).stdout.splitlines()
    ]
    events = tmp_path / "events"
    events.mkdir()
    out = tmp_path / "out"
    result = run_kgroup(
        *common,
        *live,
        *cluster_args(
            spark_cluster,
            "spark.eventLog.enabled=true",
            f"spark.eventLog.dir=file://{events}",
            "spark.eventLog.compress=false",  # Spark 4 compresses it by default
            "spark.eventLog.rolling.enabled=false",
        ),
        "--out",
        str(out),
        timeout=240,
    )
    key = lambda r: (r["partition"], r["offset"])  # noqa: E731
    assert len(expected) == 6 * 5
    assert sorted(parquet_records(out), key=key) == sorted(expected, key=key)
    assert secret not in result.stdout + result.stderr

    logs = [events, spark_cluster.root]  # master.log, worker-N.log, worker-N/app-*/N/std*
    # read once Spark has renamed events/app-*.inprogress (it may do so after kgroup exits)
    files = settled_files(logs)
    event_log = [f for f in files if f.parent == events]
    assert len(event_log) == 1, list(files)
    text = files[event_log[0]].decode(errors="replace")
    # what the environment page and the SQL tab show (positive controls: the right file)
    assert '"Event":"SparkListenerEnvironmentUpdate"' in text
    assert "MapInArrow" in text and "kgroup decode" in text
    assert any(f.name == "stderr" and "app-" in str(f) for f in files)
    leaks = [str(f) for f, data in files.items() if secret.encode() in data]
    assert leaks == []
    assert secret not in json.dumps(spark_cluster.status())  # the master's web UI JSON
