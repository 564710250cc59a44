"""The Spark engine (local[2]) gives the local engine's results row for row: the record stream,
--latest, --as-of and --summary, on the real fixtures and a few MB of generated segments."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgroup.scan.api import LocalScan, segment_scope_order
from kgroup.scan.local import DecodeFilter, LocalEngine, find_segments, type_ids_for
from tests.scan_data import GROUPS, T0, write_segments

pytestmark = pytest.mark.spark

FIXTURES = Path("/work/shared/fixtures/consumer-offsets-segments")
FIXTURE_DIRS = sorted(
    str(p) for p in FIXTURES.glob("*/__consumer_offsets-*") if any(p.glob("*.log"))
)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return [str(write_segments(tmp_path_factory.mktemp("scan") / "logs"))]


@pytest.fixture(scope="module")
def generated_records(generated: list[str]) -> list[dict]:
    """The local engine's record stream of the generated segments (computed once)."""
    inputs = find_segments(generated)
    eng = LocalEngine(skip_corrupt=True)
    return [r.to_dict() for r in eng.plain(eng.segment_records(inputs))]


def _pair(
    spark_session, paths: list[str], flt: DecodeFilter = DecodeFilter(), split: int = 1 << 20
):
    from kgroup.scan.spark import SparkScan

    inputs = find_segments(paths)
    eng = LocalEngine(flt, skip_corrupt=True)
    local = LocalScan(eng, lambda: eng.segment_records(inputs), segment_scope_order(inputs))
    spark = SparkScan(spark_session, flt, inputs=inputs, skip_corrupt=True, split_bytes=split)
    return local, spark


def _dicts(recs) -> list[dict]:
    return [r.to_dict() for r in recs]


def test_generated_segments_all_views(
    spark_session, generated: list[str], generated_records: list[dict]
) -> None:
    local, spark = _pair(spark_session, generated, split=256 * 1024)
    records = generated_records
    assert len(records) > 40_000
    assert _dicts(spark.records()) == records
    latest = _dicts(local.latest())
    assert any(r["transactional"] for r in latest)  # committed transactional offsets survive
    assert _dicts(spark.latest()) == latest
    assert spark.summary() == local.summary()
    assert local.stats.open_transactions and sorted(spark.stats.open_transactions) == sorted(
        local.stats.open_transactions
    )


def test_generated_as_of_one_group(spark_session, generated: list[str]) -> None:
    flt = DecodeFilter(groups=frozenset({GROUPS[3]}), type_ids=type_ids_for("offset"))
    local, spark = _pair(spark_session, generated, flt)
    when = T0 + 2_000_000
    expected = _dicts(local.as_of(when))
    assert expected and all(r["key"]["group"] == GROUPS[3] for r in expected)
    assert _dicts(spark.as_of(when)) == expected


@pytest.mark.skipif(not FIXTURE_DIRS, reason="shared fixtures not present")
def test_real_fixtures_all_views(spark_session) -> None:
    local, spark = _pair(spark_session, FIXTURE_DIRS)
    assert _dicts(spark.records()) == _dicts(local.records())
    assert _dicts(spark.latest()) == _dicts(local.latest())
    assert spark.summary() == local.summary()
    assert [p.describe() for p in spark.stats.problems] == [
        p.describe() for p in local.stats.problems
    ]
    when = T0  # every fixture was written before 2026
    assert _dicts(spark.as_of(when)) == _dicts(local.as_of(when))


def test_parquet_out_holds_the_record_stream(
    spark_session, generated: list[str], generated_records: list[dict], tmp_path: Path
) -> None:
    from kgroup.scan.rows import row_to_record

    _local, spark = _pair(spark_session, generated)
    out = spark.write(str(tmp_path / "out"), "records")
    table = spark_session.read.parquet(out).orderBy("file_index", "position", "offset").toArrow()
    assert [row_to_record(r).to_dict() for r in table.to_pylist()] == generated_records
    assert spark.stats.emitted == len(generated_records)


def test_parquet_out_of_corrupt_input(spark_session, generated: list[str], tmp_path: Path) -> None:
    """A flipped byte: without --skip-corrupt the job fails naming file and byte, and --out is
    left as it was; with it, the problem is reported and every other record is written."""
    import shutil

    from kgroup.core.errors import CorruptInputError
    from kgroup.scan.spark import SparkScan

    logs = tmp_path / "logs"
    shutil.copytree(generated[0], logs)
    victim = sorted(logs.glob("__consumer_offsets-*/*.log"))[0]
    data = bytearray(victim.read_bytes())
    data[200] ^= 0xFF  # inside the first batch's records: its CRC no longer matches
    victim.write_bytes(bytes(data))
    inputs = find_segments([str(logs)])

    strict = SparkScan(spark_session, DecodeFilter(), inputs=inputs)
    with pytest.raises(CorruptInputError) as caught:
        strict.write(str(tmp_path / "strict"), "records")
    assert victim.name in caught.value.message and "CRC-32C" in caught.value.message
    assert not (tmp_path / "strict").exists()

    eng = LocalEngine(skip_corrupt=True)
    expected = [r.to_dict() for r in eng.plain(eng.segment_records(inputs))]
    lenient = SparkScan(spark_session, DecodeFilter(), inputs=inputs, skip_corrupt=True)
    out = lenient.write(str(tmp_path / "lenient"), "records")
    assert [p.describe() for p in lenient.stats.problems] == [
        p.describe() for p in eng.stats.problems
    ]
    assert lenient.stats.emitted == len(expected)
    import pyarrow.parquet as pq

    from kgroup.scan.rows import row_to_record

    table = pq.read_table(out)  # part-00000.parquet, ... hold the records in input order
    assert [row_to_record(r).to_dict() for r in table.to_pylist()] == expected


def test_registered_data_source_gives_the_same_rows(spark_session, generated: list[str]) -> None:
    """`spark.read.format("kgroup_segments")` (what a Spark user reads) equals the frames the
    CLI runs through mapInArrow, for the record stream and a replayed view."""
    _local, spark = _pair(spark_session, generated, split=512 * 1024)
    order = ["file_index", "position", "offset"]
    via_source = spark.source_frame("records").orderBy(order).toArrow()
    via_tasks = spark.frame("records").orderBy(order).toArrow()
    assert via_source.num_rows > 40_000
    assert via_source.equals(via_tasks)
    latest_order = ["log_partition", "offset", "record_type", "error"]
    assert (
        spark.source_frame("latest").orderBy(latest_order).toArrow()
        == spark.frame("latest").orderBy(latest_order).toArrow()
    )
