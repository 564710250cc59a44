"""One writer per group on this host: an advisory lock file per group under the state dir.

`reset-offsets --execute` and `undo --execute` hold it from the compare-and-set read to the
read-back, so two runs on one machine never interleave on a group. Runs on other hosts are
kept out by the broker-side fence (kgroup.core.wire.fence), which this lock complements: the
lock answers at once and names the other run; the fence is what Kafka itself enforces.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kgroup.core.errors import SafetyRefusal


def lock_dir() -> Path:
    from kgroup.sandbox.state import state_dir

    return state_dir() / "locks"


def lock_path(group: str) -> Path:
    """A file name per group: readable prefix plus a hash, so distinct names never collide."""
    readable = re.sub(r"[^A-Za-z0-9._-]", "_", group)[:80]
    digest = hashlib.sha256(group.encode("utf-8")).hexdigest()[:16]
    return lock_dir() / f"{readable}-{digest}.lock"


@contextmanager
def group_lock(group: str) -> Iterator[Path]:
    """Hold this host's lock on `group`, or raise SafetyRefusal (exit 4) naming the holder."""
    try:
        import fcntl
    except ImportError:  # not POSIX: the broker-side fence still applies
        yield lock_path(group)
        return
    path = lock_path(group)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "unknown"
            raise SafetyRefusal(
                f"another kgroup run ({holder}) is changing the offsets of group {group} "
                "on this host",
                hint="wait for it to finish, then make a new plan and check it",
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}".encode(), 0)
        try:
            yield path
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
