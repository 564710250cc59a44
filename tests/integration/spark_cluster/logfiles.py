"""Read what a Spark run left on disk while Spark may still be renaming it (issue #24 item 18).

Spark writes the event log as `events/app-ID.inprogress` and renames it to `events/app-ID` when
the application stops (EventLogFileWriter `renameFile`); the driver JVM can finish that after the
Python process that ran it has exited. Listing a directory and then reading each file races with
that rename: the file listed is gone when read (FileNotFoundError). `settled_files` waits, within
a bound, for no `.inprogress` file to remain, and reads every file of one listing, listing again
when a file vanishes between the two. Pure file-system code: no pyspark import.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path

IN_PROGRESS = ".inprogress"


def settled_files(
    roots: Iterable[Path],
    *,
    timeout_s: float = 30.0,
    pause_s: float = 0.1,
    read: Callable[[Path], bytes] = Path.read_bytes,
) -> dict[Path, bytes]:
    """Every regular file under `roots` with its bytes, from one listing in which every file
    could be read. Waits up to `timeout_s` for Spark to finish renaming `*.inprogress` files
    (after that the snapshot keeps them as they are: the caller's checks decide)."""
    roots = [Path(r) for r in roots]
    deadline = time.monotonic() + timeout_s
    while True:
        snapshot = _snapshot(roots, read)
        late = time.monotonic() >= deadline
        if snapshot is not None and (
            late or not any(f.name.endswith(IN_PROGRESS) for f in snapshot)
        ):
            return snapshot
        if late:
            raise AssertionError(f"files under {roots} kept vanishing for {timeout_s} s")
        time.sleep(pause_s)


def _snapshot(roots: list[Path], read: Callable[[Path], bytes]) -> dict[Path, bytes] | None:
    """The files and their bytes, or None when one vanished between listing and reading."""
    files: dict[Path, bytes] = {}
    try:
        for root in roots:
            for path in sorted(root.rglob("*")):
                if path.is_file():
                    files[path] = read(path)
    except FileNotFoundError:  # renamed or removed after it was listed
        return None
    return files
