"""`kgroup decode --engine spark --out DIR`: the Parquet output of the Spark engine.

The record stream is written by the scan tasks themselves (`parquet_part_task`, one staged
part file per input partition under `_temporary/<job>/`, `kgroup.scan.parquet_out`), then
committed by the driver (`write_record_parts`: part files renamed into place, `_SUCCESS`) or
removed if the job fails. The replayed views (latest, as-of, summary) come to the driver first
and go through Spark's own writer into a fresh directory (`claim_out_dir`). What a killed run
left in `--out` is removed by the next run (`clear_interrupted`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from typing import Any

from kgroup.core.errors import UsageError
from kgroup.core.notes import note
from kgroup.offsets import segments as seg
from kgroup.scan import rows as rw
from kgroup.scan.api import LiveSpec
from kgroup.scan.spark_jobs import TaskProgress, TaskReport, spark_errors
from kgroup.scan.spark_sources import (
    BATCH_ROWS,
    SegmentPartition,
    TopicPartitionRange,
    ViewOptions,
    partition_chunks,
    settle_worker,
    task_engine,
)

PART_STATS_DDL = "`index` int, `path` string, `rows` bigint, `problems` string"


def parquet_part_task(
    parts: list[SegmentPartition] | list[TopicPartitionRange],
    opts: ViewOptions,
    live: LiveSpec | None,
    stage: str,
) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """The mapInArrow function of `SparkScan.write` for the record stream: for each input
    partition index it gets, decode that partition and write its rows as one staged Parquet
    file (kgroup.scan.parquet_out); yields (index, staged path | None, rows, problems JSON).
    A fatal problem without --skip-corrupt raises, which fails the job."""

    def run(ids: Iterator[Any]) -> Iterator[Any]:
        import uuid

        import pyarrow as pa

        from kgroup.scan import parquet_out as po

        settle_worker()
        fs, stage_path = po.resolve(stage)
        schema = rw.arrow_schema()
        for batch in ids:
            for index in batch.column(0).to_pylist():
                problems: list[seg.Problem] = []
                eng = task_engine(opts, problems)
                part = parts[index]
                path = f"{stage_path}/part-{index:05d}-{uuid.uuid4().hex[:12]}.parquet"
                batches = rw.chunk_batches(
                    partition_chunks(eng, part, live),
                    file_index=part.order,
                    skip_control=not opts.flt.wants_control,
                    rows=BATCH_ROWS,
                )
                rows = po.write_part(batches, fs, path, schema)
                doc = json.dumps([[p.source, p.position, p.kind, p.message] for p in problems])
                yield pa.RecordBatch.from_pylist(
                    [
                        {
                            "index": index,
                            "path": path if rows else None,
                            "rows": rows,
                            "problems": doc,
                        }
                    ],
                    schema=pa.schema(
                        [
                            pa.field("index", pa.int32()),
                            pa.field("path", pa.string()),
                            pa.field("rows", pa.int64()),
                            pa.field("problems", pa.string()),
                        ]
                    ),
                )

    return run


def write_record_parts(
    spark: Any,
    parts: list[Any],
    opts: ViewOptions,
    live: LiveSpec | None,
    out: str,
    tasks: TaskReport | None = None,
) -> list[Any]:
    """Write the record stream of the input partitions `parts` as Parquet into `out`: staged
    part files written by the tasks, committed by the driver, or removed if anything fails.
    Returns the tasks' rows (index, path, rows, problems JSON)."""
    import uuid

    from kgroup.scan import parquet_out as po

    job = uuid.uuid4().hex
    clear_interrupted(out)
    fs, root, created = po.prepare(out)
    try:
        # the driver makes the stage; tasks only write files into it, so a task still
        # running after a failed job cannot make it again once it is removed
        fs.create_dir(po.stage_dir(root, job), recursive=True)
        task = parquet_part_task(parts, opts, live, po.stage_uri(out, job))
        ids = spark.range(0, len(parts), 1, max(len(parts), 1))
        with spark_errors(), TaskProgress(spark, tasks):
            results = ids.mapInArrow(task, PART_STATS_DDL).collect() if parts else []
        staged = [(r["index"], r["path"]) for r in results if r["path"] is not None]
        po.commit(fs, root, job, staged, rw.arrow_schema())
    except BaseException:
        po.abort(fs, root, job, remove_root=created)
        raise
    return results


def claim_out_dir(out: str) -> None:
    """Make `out` ready for Spark's own Parquet writer: what an interrupted run left is
    removed, an empty directory too (the writer makes it); a file or a non-empty directory is
    a UsageError."""
    clear_interrupted(out)
    if os.path.isdir(out):
        if os.listdir(out):
            raise UsageError(f"--out {out} is not empty", hint="name a new or empty directory")
        os.rmdir(out)
    elif os.path.exists(out):
        raise UsageError(f"--out {out} is a file", hint="name a new or empty directory")


def clear_interrupted(out: str) -> bool:
    """Remove what a killed run left in `--out` (a directory holding only `_temporary/`: staged
    part files never committed, no `_SUCCESS`), saying so on stderr; True if it did.

    A run killed before its commit (driver killed, machine lost) cannot clean up after itself;
    as with Hadoop's committer, the stage is not output, and the next run into the same
    directory removes it. Two runs writing one directory at the same time are not supported
    (as with Spark's writer).
    """
    import pyarrow.fs as pafs

    from kgroup.scan import parquet_out as po

    fs, root = po.resolve(out)
    if fs.get_file_info(root).type != pafs.FileType.Directory:
        return False
    entries = fs.get_file_info(pafs.FileSelector(root, recursive=False))
    names = [e.base_name for e in entries]
    if names != [po.TEMPORARY] or entries[0].type != pafs.FileType.Directory:
        return False
    fs.delete_dir(f"{root}/{po.TEMPORARY}")
    note(f"--out {out}: removed {po.TEMPORARY}/ left by an interrupted run (never committed)")
    return True


SUMMARY_COLUMNS = (
    ("group", "string"),
    ("type", "string"),
    ("protocol", "string"),
    ("last_commit", "int64"),
    ("commits", "int64"),
    ("topics", "list<string>"),
    ("partitions", "int64"),
    ("generation", "int64"),
    ("members", "int64"),
    ("deleted", "bool_"),
)


def summary_table(rows: list[dict[str, Any]]) -> Any:
    """Summary rows as an Arrow table (`--summary --out` with Spark)."""
    import pyarrow as pa

    types = {"string": pa.string(), "int64": pa.int64(), "bool_": pa.bool_()}
    fields = [
        pa.field(n, pa.list_(pa.string()) if t == "list<string>" else types[t])
        for n, t in SUMMARY_COLUMNS
    ]
    return pa.Table.from_pylist(rows, schema=pa.schema(fields))
