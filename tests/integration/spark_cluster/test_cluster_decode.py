"""`kgroup decode --spark-master spark://...` on a real standalone cluster (master + 2 workers)
gives the local engine's results row for row: the record stream to `--out` (Parquet, byte-range
splits), `--summary`, `--latest`, `--as-of`, on the shared fixtures and generated segments; the
executors decode with kgroup's compiled codec, shipped to them when their Python lacks kgroup."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.helpers import run_kgroup
from tests.integration.spark_cluster.conftest import cluster_args
from tests.scan_data import T0

pytestmark = [pytest.mark.spark_cluster, pytest.mark.spark]

SPLIT = "spark.sql.files.maxPartitionBytes=256k"
NOTHING_SHIPPED = re.compile(
    r"kgroup: spark: the executors' Python \(.+\) imports kgroup \S+ "
    r"with its compiled codec: nothing shipped"
)


def local_json(paths: list[str], *view: str) -> list[dict]:
    doc = json.loads(
        run_kgroup(
            "-o",
            "json",
            "decode",
            "--segments",
            *paths,
            "--skip-corrupt",
            "--engine",
            "local",
            *view,
        ).stdout
    )
    return doc.get("records", doc.get("groups"))


def cluster_json(cluster, paths: list[str], *view: str, env=None) -> tuple[list[dict], str]:
    result = run_kgroup(
        "-o",
        "json",
        "decode",
        "--segments",
        *paths,
        "--skip-corrupt",
        *cluster_args(cluster),
        *view,
        env=env,
        timeout=240,
    )
    doc = json.loads(result.stdout)
    return doc.get("records", doc.get("groups")), result.stderr


def parquet_records(out: Path) -> list[dict]:
    import pyarrow.parquet as pq

    from kgroup.scan.rows import row_to_record

    files = sorted(out.glob("part-*.parquet"))
    return [row_to_record(r).to_dict() for f in files for r in pq.read_table(f).to_pylist()]


def test_record_stream_out_equals_local_engine(spark_cluster, small_segments, tmp_path) -> None:
    expected = [
        json.loads(line)
        for line in run_kgroup(
            "-o",
            "jsonl",
            "decode",
            "--segments",
            *small_segments,
            "--skip-corrupt",
            "--engine",
            "local",
        ).stdout.splitlines()
    ]
    out = tmp_path / "records"
    result = run_kgroup(
        "decode",
        "--segments",
        *small_segments,
        "--skip-corrupt",
        *cluster_args(spark_cluster, SPLIT),
        "--out",
        str(out),
        timeout=240,
    )
    assert NOTHING_SHIPPED.search(result.stderr), result.stderr
    names = sorted(p.name for p in out.iterdir())
    parts = [n for n in names if n.startswith("part-")]
    assert names == ["_SUCCESS", *parts]
    assert parts == [f"part-{i:05d}.parquet" for i in range(len(parts))]
    # 256 KiB splits: more tasks than segment files, each cut at batch boundaries
    logs = sum(len(list(Path(p).glob("*.log"))) for p in small_segments)
    assert len(parts) > logs
    assert len(expected) > 40_000
    assert parquet_records(out) == expected


@pytest.mark.parametrize("view", [["--summary"], ["--latest"]], ids=["summary", "latest"])
def test_replayed_views_equal_local_engine(spark_cluster, small_segments, view) -> None:
    expected = local_json(small_segments, *view)
    got, stderr = cluster_json(spark_cluster, small_segments, *view)
    assert NOTHING_SHIPPED.search(stderr), stderr
    assert expected and got == expected


def test_executors_without_kgroup_get_it_shipped_with_the_compiled_codec(
    spark_cluster, small_segments, foreign_python
) -> None:
    """Executors whose Python has no kgroup: it is shipped as a spark.archives zip with its
    compiled extensions (same Python), the probe confirms they load, and --as-of is right."""
    when = str(T0 + 2_000_000)
    expected = local_json(small_segments, "--as-of", when)
    got, stderr = cluster_json(
        spark_cluster, small_segments, "--as-of", when, env={"PYSPARK_PYTHON": foreign_python}
    )
    assert (
        f"the executors' Python ({foreign_python}, " in stderr
        and "has no kgroup: shipped kgroup" in stderr
        and "spark.archives) with its compiled codec" in stderr
    ), stderr
    assert expected and got == expected
