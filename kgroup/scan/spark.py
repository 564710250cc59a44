"""The Spark scan engine: `kgroup decode` on PySpark, `local[*]` or a cluster.

Source of truth: CLI.md `kgroup decode` for the views. The engine is split by job:

- `kgroup.scan.spark_session`: starting the session (Java, JVM options, the class-data sharing
  archive, the executors' Python, kgroup made importable on a cluster's executors);
- `kgroup.scan.spark_sources`: scan planning and the readers the tasks run (the registered
  Python data sources `kgroup_segments` and `kgroup_topic`);
- `kgroup.scan.spark_output`: `--out` as Parquet (part files written by the tasks, committed by
  the driver);
- `kgroup.scan.spark_jobs`: Spark job failures as kgroup errors, task progress on stderr;
- this module: `SparkScan`, and the names imported from here elsewhere (`start_session`,
  `java_problem`, `cds_archive_path`, the data sources, `translate`, the filter as JSON).

These modules are the only ones that import pyspark; the CLI imports them only when the Spark
engine runs. The record stream's task size follows `spark.sql.files.maxPartitionBytes` when it
is set.

`SparkScan` (the engine behind `kgroup decode --engine spark`) plans the same input partitions
on the driver and runs the readers' `read()` through `range(n).mapInArrow(...)`, one input
partition per task: the rows of the data sources without their per-query planning round
trips. With `--out`, the record stream's tasks write Parquet part files themselves
(`kgroup.scan.parquet_out`) instead of sending rows to Spark's JVM writer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from kgroup.core.errors import UsageError
from kgroup.offsets import replay as rp
from kgroup.offsets import segments as seg
from kgroup.offsets.decode import DecodedRecord
from kgroup.scan import rows as rw
from kgroup.scan import summary as sm
from kgroup.scan.api import LiveSpec
from kgroup.scan.local import DecodeFilter, ScanStats, SegmentInput
from kgroup.scan.ranges import SPLIT_BYTES
from kgroup.scan.spark_jobs import TaskProgress, TaskReport, spark_errors, translate
from kgroup.scan.spark_output import claim_out_dir, summary_table, write_record_parts
from kgroup.scan.spark_session import cds_archive_path, java_problem, start_session
from kgroup.scan.spark_sources import (
    SEGMENTS_FORMAT,
    SPLIT_RECORDS,
    TOPIC_FORMAT,
    SegmentReader,
    SegmentSource,
    TopicReader,
    TopicSource,
    ViewOptions,
    filter_from_json,
    filter_to_json,
    read_task,
)

__all__ = [
    "SegmentSource",
    "SparkScan",
    "TopicSource",
    "cds_archive_path",
    "filter_from_json",
    "filter_to_json",
    "java_problem",
    "session_split_bytes",
    "start_session",
    "translate",
]


MAX_PARTITION_BYTES = "spark.sql.files.maxPartitionBytes"


def session_split_bytes(spark: Any) -> int:
    """Segment bytes per record-stream task: the session's spark.sql.files.maxPartitionBytes
    when set (`--spark-conf spark.sql.files.maxPartitionBytes=64m`), else SPLIT_BYTES (Spark's
    default of that setting)."""
    try:
        text = spark.conf.get(MAX_PARTITION_BYTES, None)
        if text is None:
            return SPLIT_BYTES
        utils = spark.sparkContext._jvm.org.apache.spark.network.util.JavaUtils
        return max(int(utils.byteStringAsBytes(str(text))), 1)
    except Exception as exc:
        raise UsageError(
            f"{MAX_PARTITION_BYTES}: not a size ({exc.__class__.__name__})",
            hint=f"--spark-conf {MAX_PARTITION_BYTES}=64m",
        ) from exc


@dataclass(eq=False)
class SparkScan:
    """The Spark engine behind the `Scan` interface (kgroup.scan.api), on segment `inputs` or
    a `live` topic (exactly one). `split_bytes` None: the session's (`session_split_bytes`)."""

    spark: Any
    flt: DecodeFilter
    _: KW_ONLY
    inputs: list[SegmentInput] | None = None
    live: LiveSpec | None = None
    skip_corrupt: bool = False
    on_problem: Callable[[seg.Problem], None] | None = None
    tasks: TaskReport | None = None  # where Spark's finished tasks are reported
    split_bytes: int | None = None
    stats: ScanStats = field(init=False, default_factory=ScanStats)

    def __post_init__(self) -> None:
        if (self.inputs is None) == (self.live is None):
            raise UsageError("give segment inputs or a live topic")
        if self.split_bytes is None:
            self.split_bytes = session_split_bytes(self.spark)
        if self.inputs is not None:
            self.stats.files = len(self.inputs)
            self.stats.bytes = sum(i.size for i in self.inputs)

    # ------------------------------------------------------------ frames

    def frame(self, view: str = "records", as_of: int | None = None) -> Any:
        """The DataFrame of a view (lazy), in the schema of the data sources.

        Built as `range(n).mapInArrow(...)` over the input partitions the readers plan here
        on the driver, each task calling the reader's `read()`: the same rows as
        `spark.read.format(SEGMENTS_FORMAT | TOPIC_FORMAT)`, without the round trips to
        Python planning workers a Python data source costs every query (~5 s of start-up
        on 2 cores, benchmarks/bench_spark.py).
        """
        opts = ViewOptions(view, self.flt, as_of, self.skip_corrupt)
        reader = self._reader(opts)
        parts = reader.partitions()
        ids = self.spark.range(0, len(parts), 1, max(len(parts), 1))
        return ids.mapInArrow(read_task(reader, parts), opts.schema)

    def source_frame(self, view: str = "records", as_of: int | None = None) -> Any:
        """The same DataFrame read through the registered Python data source."""
        opts: dict[str, str] = {
            "view": view,
            "filter": filter_to_json(self.flt),
            "skip_corrupt": str(self.skip_corrupt).lower(),
        }
        if as_of is not None:
            opts["as_of"] = str(as_of)
        if self.live is not None:
            live = self.live
            opts.update(
                props=json.dumps(live.props),
                topic=live.topic,
                partitions=json.dumps(list(live.partitions)) if live.partitions else "",
                timeout_s=str(live.timeout_s),
            )
            return self.spark.read.format(TOPIC_FORMAT).options(**opts).load()
        opts["inputs"] = json.dumps(
            [[i.path, i.source, i.partition, i.size] for i in self.inputs or []]
        )
        opts["split_bytes"] = str(self.split_bytes)
        return self.spark.read.format(SEGMENTS_FORMAT).options(**opts).load()

    def _reader(self, opts: ViewOptions) -> SegmentReader | TopicReader:
        if self.live is not None:
            return TopicReader(self.live, opts, SPLIT_RECORDS)
        return SegmentReader(self.inputs or [], opts, self.split_bytes)

    def _report(self, problem_rows: Iterable[dict[str, Any]]) -> None:
        for row in problem_rows:
            doc = json.loads(row["error"])
            problem = seg.Problem(row["source"], row["position"], doc["kind"], doc["message"])
            self.stats.problems.append(problem)
            if self.on_problem is not None:
                self.on_problem(problem)

    def _collect(self, df: Any) -> list[dict[str, Any]]:
        with spark_errors(), TaskProgress(self.spark, self.tasks):
            return df.toArrow().to_pylist()

    # ------------------------------------------------------------ views

    def records(self) -> Iterator[DecodedRecord]:
        """The record stream in input order (streamed to the driver partition by partition)."""
        df = self.frame("records")
        with spark_errors(), TaskProgress(self.spark, self.tasks):
            for row in df.toLocalIterator(prefetchPartitions=True):
                d = row.asDict()
                if d["record_type"] == rw.PROBLEM and d["key_json"] is None:
                    self._report([d])
                    continue
                self.stats.emitted += 1
                yield rw.row_to_record(d)

    def _replayed(self, view: str, as_of: int | None) -> list[dict[str, Any]]:
        rows, problems, open_txns = rw.split_notes(self._collect(self.frame(view, as_of)))
        self._report(problems)
        self.stats.open_transactions = [
            (
                r["log_partition"] if r["log_partition"] is not None else r["source"],
                r["producer_id"],
                r["offset"],
            )
            for r in open_txns
        ]
        # one scope per task; a key found in several scopes (inputs of several clusters
        # mixed) keeps the value of the scope read last, as the local replay mostly does
        rows.sort(key=lambda r: r["file_index"])
        chosen: dict[Any, tuple[dict[str, Any], DecodedRecord]] = {}
        for row in rows:
            rec = rw.row_to_record(row)
            chosen[rp.record_identity(rec)] = (row, rec)
        ordered = sorted(chosen.values(), key=lambda pair: rp._sort_key(pair[1]))
        self.stats.emitted += len(ordered)
        self._rows = [row for row, _rec in ordered]
        return [rec for _row, rec in ordered]

    def latest(self) -> list[DecodedRecord]:
        return self._replayed("latest", None)

    def as_of(self, when: int) -> list[DecodedRecord]:
        return self._replayed("as_of", when)

    def summary(self) -> list[dict[str, Any]]:
        rows = self._collect(self.frame("summary"))
        for row in rows:
            if row["problem_json"] is not None:
                source, position, kind, message = json.loads(row["problem_json"])
                self._report(
                    [
                        {
                            "source": source,
                            "position": position,
                            "error": json.dumps({"kind": kind, "message": message}),
                        }
                    ]
                )
        parts = [
            (row["scope_order"], sm.Partial.from_json(json.loads(row["partial_json"])))
            for row in rows
            if row["partial_json"] is not None
        ]
        parts.sort(key=lambda pair: pair[0])
        out = sm.merge_partials(p for _o, p in parts)
        self.stats.emitted += len(out)
        return out

    # ------------------------------------------------------------ --out

    def write(self, out: str, view: str, as_of: int | None = None) -> str:
        """Write a view as Parquet into the directory `out` (new, or empty).

        The record stream is written by the scan tasks themselves (`parquet_out`); the
        replayed views (latest, as-of, summary) come to the driver first, as for printing.
        """
        if view == "records":
            return self._write_records(out)
        claim_out_dir(out)
        import pyarrow as pa

        if view == "summary":
            table = summary_table(self.summary())
        else:
            self._replayed(view, as_of)
            table = pa.Table.from_pylist(self._rows, schema=rw.arrow_schema())
        with spark_errors():
            self.spark.createDataFrame(table).coalesce(1).write.parquet(out)
        return out

    def _write_records(self, out: str) -> str:
        opts = ViewOptions("records", self.flt, None, self.skip_corrupt)
        parts: list[Any] = self._reader(opts).partitions()
        results = write_record_parts(self.spark, parts, opts, self.live, out, self.tasks)
        for r in sorted(results, key=lambda r: r["index"]):
            for source, position, kind, message in json.loads(r["problems"]):
                problem = seg.Problem(source, position, kind, message)
                self.stats.problems.append(problem)
                if self.on_problem is not None:
                    self.on_problem(problem)
            self.stats.emitted += r["rows"]
        return out
