"""`--out DIR` with the Spark engine: Parquet part files written by the scan tasks, committed once.

Source of truth: the Parquet format as pyarrow.parquet writes it (snappy, as Spark's default),
and the commit convention of Hadoop's FileOutputCommitter that Spark's writer follows: tasks
write under `DIR/_temporary/<job>/`, and only when every task has succeeded does the driver
move the files of the attempts it got results from to their final names
(`part-00000.parquet`, ... in input order) and write `_SUCCESS`. A failed job removes
`_temporary` and leaves DIR as it found it (absent, or empty); a retried task's leftovers
never reach DIR.

Why not Spark's DataFrameWriter: the decoded rows are Arrow batches in the Python worker
already; handing them to the JVM (Arrow -> rows -> Parquet) costs several times what
pyarrow's writer does on these string-heavy rows (benchmarks/bench_spark.py), on the same
cores the decoding needs.

`DIR` is a local path or a URI pyarrow.fs knows (`s3://`, `gs://`, `hdfs://`, `file://`); on
a cluster it must be a place every executor can write to, as with any Spark output.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from kgroup.core.errors import UsageError

ROW_GROUP_ROWS = 131_072  # rows per Parquet row group (16 of the readers' 8192-row batches)
TEMPORARY = "_temporary"


def resolve(out: str) -> tuple[Any, str]:
    """(pyarrow file system, path) of an output location: a local path or a URI."""
    import pyarrow.fs as pafs

    if "://" in out:
        try:
            return pafs.FileSystem.from_uri(out)
        except (ValueError, OSError) as exc:
            raise UsageError(f"--out {out}: {exc}", hint="give a local path or a URI") from exc
    return pafs.LocalFileSystem(), os.path.abspath(out)


def prepare(out: str) -> tuple[Any, str, bool]:
    """The output directory, checked new or empty and created; (file system, its path,
    whether it was created here)."""
    import pyarrow.fs as pafs

    fs, root = resolve(out)
    info = fs.get_file_info(root)
    if info.type == pafs.FileType.File:
        raise UsageError(f"--out {out} is a file", hint="name a new or empty directory")
    if info.type == pafs.FileType.Directory and fs.get_file_info(
        pafs.FileSelector(root, recursive=False)
    ):
        raise UsageError(f"--out {out} is not empty", hint="name a new or empty directory")
    created = info.type == pafs.FileType.NotFound
    fs.create_dir(root, recursive=True)
    return fs, root, created


def stage_dir(root: str, job: str) -> str:
    """Where the tasks of job `job` write their attempts (`root` a path of `resolve`)."""
    return f"{root}/{TEMPORARY}/{job}"


def stage_uri(out: str, job: str) -> str:
    """`stage_dir` as the tasks resolve it: for a URI the path part is extended (a query
    string such as `?region=...` stays a query string)."""
    if "://" not in out:
        return stage_dir(os.path.abspath(out), job)
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(out)
    return urlunsplit(parts._replace(path=stage_dir(parts.path.rstrip("/"), job)))


def write_part(batches: Iterable[Any], fs: Any, path: str, schema: Any) -> int:
    """Record batches -> one Parquet file at `path` (none when there are no rows); rows written.

    Batches are gathered into row groups of ROW_GROUP_ROWS rows, so readers get large row
    groups whatever the batch size.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer = None
    pending: list[Any] = []
    pending_rows = 0
    rows = 0

    def flush() -> None:
        nonlocal writer, pending, pending_rows
        if writer is None:
            writer = pq.ParquetWriter(path, schema, filesystem=fs, compression="snappy")
        writer.write_table(pa.Table.from_batches(pending, schema), row_group_size=pending_rows)
        pending = []
        pending_rows = 0

    try:
        for batch in batches:
            if not batch.num_rows:
                continue
            pending.append(batch)
            pending_rows += batch.num_rows
            rows += batch.num_rows
            if pending_rows >= ROW_GROUP_ROWS:
                flush()
        if pending:
            flush()
    finally:
        if writer is not None:
            writer.close()
    return rows


def commit(fs: Any, root: str, job: str, parts: list[tuple[int, str]], schema: Any) -> list[str]:
    """Move the staged files (index, path) to `part-NNNNN.parquet` in index order, write
    `_SUCCESS`, drop the job's stage; the final paths. No parts: one empty file with the
    schema. On any failure the files already moved are removed again, then it raises."""
    import pyarrow.parquet as pq

    final: list[str] = []
    try:
        for n, (_index, path) in enumerate(sorted(parts)):
            target = f"{root}/part-{n:05d}.parquet"
            fs.move(path, target)
            final.append(target)
        if not final:
            target = f"{root}/part-00000.parquet"
            final.append(target)
            pq.ParquetWriter(target, schema, filesystem=fs, compression="snappy").close()
        with fs.open_output_stream(f"{root}/_SUCCESS"):
            pass
    except BaseException:
        for target in final:
            try:
                fs.delete_file(target)
            except OSError:
                pass
        raise
    abort(fs, root, job)
    return final


def abort(fs: Any, root: str, job: str, *, remove_root: bool = False) -> None:
    """Remove what job `job` staged (and `_temporary` when nothing else is in it); with
    `remove_root`, `root` itself (a directory this job created)."""
    import pyarrow.fs as pafs

    if remove_root:
        if fs.get_file_info(root).type == pafs.FileType.Directory:
            fs.delete_dir(root)
        return
    stage = stage_dir(root, job)
    if fs.get_file_info(stage).type == pafs.FileType.Directory:
        fs.delete_dir(stage)
    tmp = f"{root}/{TEMPORARY}"
    if fs.get_file_info(tmp).type == pafs.FileType.Directory and not fs.get_file_info(
        pafs.FileSelector(tmp, recursive=False)
    ):
        fs.delete_dir(tmp)
