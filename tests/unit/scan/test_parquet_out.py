"""Parquet part files and their commit (kgroup.scan.parquet_out), without Spark.

What a user of `--out DIR` sees: the rows in input order across part files, large row
groups, `_SUCCESS` once committed, nothing staged left behind, a non-empty DIR refused, a
failed job leaving DIR as it was.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from kgroup.core.errors import UsageError  # noqa: E402
from kgroup.scan import parquet_out as po  # noqa: E402

SCHEMA = pa.schema([pa.field("n", pa.int64()), pa.field("s", pa.string())])


def _batches(start: int, count: int, size: int) -> list:
    out = []
    for b in range(count):
        first = start + b * size
        ns = list(range(first, first + size))
        out.append(
            pa.RecordBatch.from_arrays(
                [pa.array(ns), pa.array([f"r{n}" for n in ns])], schema=SCHEMA
            )
        )
    return out


def test_parts_commit_in_index_order_with_large_row_groups(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(po, "ROW_GROUP_ROWS", 1000)
    fs, root, created = po.prepare(str(tmp_path / "out"))
    assert created
    stage = po.stage_dir(root, "job1")
    fs.create_dir(stage)
    # tasks finish in any order; index 1 holds rows 2500.., index 0 rows 0..
    p1 = f"{stage}/part-00001-b.parquet"
    p0 = f"{stage}/part-00000-a.parquet"
    assert po.write_part(iter(_batches(2500, 2, 100)), fs, p1, SCHEMA) == 200
    assert po.write_part(iter(_batches(0, 25, 100)), fs, p0, SCHEMA) == 2500
    empty = f"{stage}/part-00002-c.parquet"
    assert po.write_part(iter([]), fs, empty, SCHEMA) == 0
    assert not Path(empty).exists()  # no rows, no file
    final = po.commit(fs, root, "job1", [(1, p1), (0, p0)], SCHEMA)
    assert [Path(f).name for f in final] == ["part-00000.parquet", "part-00001.parquet"]
    names = sorted(p.name for p in Path(root).iterdir())
    assert names == ["_SUCCESS", "part-00000.parquet", "part-00001.parquet"]
    table = pq.read_table(root)
    assert table.column("n").to_pylist() == list(range(2500)) + list(range(2500, 2700))
    meta = pq.ParquetFile(final[0]).metadata
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [1000, 1000, 500]


def test_no_rows_still_gives_a_readable_directory(tmp_path: Path) -> None:
    fs, root, _created = po.prepare(str(tmp_path / "out"))
    po.commit(fs, root, "job", [], SCHEMA)
    table = pq.read_table(root)
    assert table.num_rows == 0 and table.schema.names == ["n", "s"]


def test_non_empty_or_file_out_is_refused(tmp_path: Path) -> None:
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "x").write_text("keep me")
    with pytest.raises(UsageError, match="not empty"):
        po.prepare(str(busy))
    afile = tmp_path / "afile"
    afile.write_text("")
    with pytest.raises(UsageError, match="is a file"):
        po.prepare(str(afile))
    assert (busy / "x").read_text() == "keep me"


def test_abort_leaves_out_as_it_was(tmp_path: Path) -> None:
    fs, root, created = po.prepare(str(tmp_path / "new"))
    stage = po.stage_dir(root, "j")
    fs.create_dir(stage)
    po.write_part(iter(_batches(0, 1, 10)), fs, f"{stage}/part-00000-x.parquet", SCHEMA)
    po.abort(fs, root, "j", remove_root=created)
    assert not Path(root).exists()
    existing = tmp_path / "empty"
    existing.mkdir()
    fs, root, created = po.prepare(str(existing))
    assert not created
    fs.create_dir(po.stage_dir(root, "j"))
    po.abort(fs, root, "j", remove_root=created)
    assert existing.is_dir() and not any(existing.iterdir())


def test_file_uri_is_a_local_directory(tmp_path: Path) -> None:
    _fs, root, _created = po.prepare((tmp_path / "via-uri").as_uri())
    assert Path(root) == tmp_path / "via-uri" and Path(root).is_dir()


def test_a_failed_commit_takes_back_what_it_moved(tmp_path: Path) -> None:
    fs, root, _created = po.prepare(str(tmp_path / "out"))
    stage = po.stage_dir(root, "j")
    fs.create_dir(stage)
    p0 = f"{stage}/part-00000-a.parquet"
    po.write_part(iter(_batches(0, 1, 10)), fs, p0, SCHEMA)
    missing = f"{stage}/part-00001-gone.parquet"  # a staged file that is not there
    with pytest.raises(OSError):
        po.commit(fs, root, "j", [(0, p0), (1, missing)], SCHEMA)
    assert not (Path(root) / "part-00000.parquet").exists()
    assert not (Path(root) / "_SUCCESS").exists()
    po.abort(fs, root, "j")
    assert not any(Path(root).iterdir())  # as prepare found it: empty


def test_stage_of_a_uri_keeps_its_query_string() -> None:
    assert po.stage_uri("s3://bucket/dir/?region=us-east-1", "j1") == (
        "s3://bucket/dir/_temporary/j1?region=us-east-1"
    )
    assert po.stage_uri("/data/out/", "j2") == "/data/out/_temporary/j2"
