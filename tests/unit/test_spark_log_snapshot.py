"""tests/integration/spark_cluster/logfiles.py, which the spark_cluster secret test reads Spark's
logs with: a file Spark renames between listing and reading (issue #24 item 18) is read under
its new name, never a FileNotFoundError."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.integration.spark_cluster.logfiles import settled_files


def test_a_file_renamed_between_listing_and_reading_is_read_under_its_new_name(
    tmp_path: Path,
) -> None:
    events = tmp_path / "events"
    events.mkdir()
    running = events / "app-1.inprogress"
    running.write_bytes(b"event log")
    (tmp_path / "worker.log").write_bytes(b"worker")
    renamed: list[Path] = []

    def read(path: Path) -> bytes:
        if path == running and not renamed:  # Spark's rename lands right after the listing
            running.rename(events / "app-1")
            renamed.append(path)
        return path.read_bytes()

    with pytest.raises(FileNotFoundError):  # what the test did before: list, then read
        [read(f) for f in sorted(tmp_path.rglob("*")) if f.is_file()]
    running.write_bytes(b"event log")
    (events / "app-1").unlink()
    renamed.clear()

    files = settled_files([events, tmp_path], timeout_s=5, read=read)
    assert renamed == [running]
    assert files[events / "app-1"] == b"event log"
    assert files[tmp_path / "worker.log"] == b"worker"
    assert not any(f.name.endswith(".inprogress") for f in files)


def test_waits_for_the_in_progress_log_to_be_renamed(tmp_path: Path) -> None:
    running = tmp_path / "app-2.inprogress"
    running.write_bytes(b"{}")
    timer = threading.Timer(0.3, lambda: running.rename(tmp_path / "app-2"))
    started = time.monotonic()
    timer.start()
    try:
        files = settled_files([tmp_path], timeout_s=10)
    finally:
        timer.join()
    assert list(files) == [tmp_path / "app-2"]
    assert time.monotonic() - started >= 0.3


def test_a_log_never_renamed_is_returned_after_the_bound(tmp_path: Path) -> None:
    (tmp_path / "app-3.inprogress").write_bytes(b"{}")
    started = time.monotonic()
    files = settled_files([tmp_path], timeout_s=0.3)
    assert list(files) == [tmp_path / "app-3.inprogress"]
    assert time.monotonic() - started < 3
