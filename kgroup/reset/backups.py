"""Backups: where `reset-offsets --execute` writes them (durably, never over another file), the
latest one of a group for `undo`, and `kgroup undo --list`: the backups in a directory, read
from the files alone (no cluster).

A backup is the JSON file `reset-offsets --execute` writes before it commits
(`planfile.write_plan_file(kind="backup")`, named `<group>-<UTC stamp>.json`). Each group of
each file gives one row::

    {"created": "2026-05-01T10:00:00.000Z", "group": "billing", "partitions": 3,
     "strategy": "undo of to earliest", "file": "/.../billing-20260501T100000000Z.json",
     "error": null}

`created` is the file's `created_at` in UTC (the file's modification time when it has none).
A file that cannot be read is still listed, with `group` and `strategy` null and the reason in
`error`, rather than hiding it or stopping the listing. Rows are sorted oldest first.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

from kgroup.core.errors import KgroupError, NotFoundError, SafetyRefusal, UsageError
from kgroup.reset.model import GroupPlan
from kgroup.reset.planfile import read_plan_file, write_plan_file
from kgroup.reset.planner import backup_plan

COLUMNS = ("created", "group", "partitions", "strategy", "file", "error")


def backup_dir() -> Path:
    """Default backup directory: $XDG_STATE_HOME/kgroup/backups (~/.local/state/...)."""
    from kgroup.sandbox.state import state_dir

    return state_dir() / "backups"


def safe_name(group: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", group)[:120] or "group"


def choose_backup_path(group: str, requested: str | None, several: bool, now_ms: int) -> Path:
    """Where a group's backup goes: --backup FILE, --backup DIR, or the default directory.

    A named FILE that exists already is refused (exit 4): a backup is never overwritten.
    """
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now_ms / 1000)) + f"{now_ms % 1000:03d}Z"
    name = f"{safe_name(group)}-{stamp}.json"
    if requested:
        path = Path(requested).expanduser()
        if path.is_dir():
            return path / name
        if several:
            raise UsageError(
                "--backup names one file, but several groups are reset",
                hint="give --backup an existing directory instead",
            )
        if path.suffix.lower() != ".json":
            raise UsageError(
                f"backup file {requested} must end in .json",
                hint="backups keep metadata and removals, which CSV cannot hold",
            )
        if path.exists() or path.is_symlink():
            raise SafetyRefusal(
                f"backup file {requested} exists already; kgroup never overwrites a backup",
                hint="choose a new file name, or give --backup a directory (each backup gets "
                "its own name there)",
            )
        if not path.parent.is_dir():
            raise UsageError(
                f"cannot write backup {requested}: its directory does not exist",
                hint="create the directory or choose another path",
            )
        return path
    return backup_dir() / name  # made when the backup is written


def write_backup(path: Path, plan: GroupPlan, current: dict, now_ms: int, *, named: bool) -> Path:
    """Write the backup durably (temp file, fsync, link into place, directory fsync), never
    replacing a file: a generated name that exists gets a numbered suffix; a named one refuses."""
    candidate = path
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise KgroupError(
            f"cannot create the backup directory {path.parent}: {exc.strerror or exc}; "
            "nothing was committed",
            hint="give --backup a writable directory",
        ) from None
    for attempt in range(1, 1000):
        try:
            return write_plan_file(
                candidate,
                [backup_plan(plan, current)],
                kind="backup",
                created_at_ms=now_ms,
                exclusive=True,
                mode=0o600,
            )
        except UsageError as exc:  # disk full, read-only, permissions: not a usage error
            raise KgroupError(
                f"cannot write the backup {candidate}: {exc.message}; nothing was committed",
                hint="free space or give --backup a writable directory",
            ) from None
        except FileExistsError:
            if named:
                raise SafetyRefusal(
                    f"backup file {path} exists already; kgroup never overwrites a backup",
                    hint="choose a new file name, or give --backup a directory",
                ) from None
            candidate = path.with_name(f"{path.stem}-{attempt + 1}{path.suffix}")
    raise SafetyRefusal(f"cannot find a free backup file name next to {path}")


def latest_backup(group: str) -> Path:
    """The newest backup file of `group` in the default backup directory."""
    directory = backup_dir()
    candidates = sorted(directory.glob(f"{safe_name(group)}-*.json")) if directory.is_dir() else []
    for path in reversed(candidates):
        try:
            if any(p.group == group for p in read_plan_file(path).plans):
                return path
        except KgroupError:
            continue
    raise NotFoundError(
        f"no backup of group {group} in {directory}", hint="pass the backup file with --backup FILE"
    )


def list_backups(directory: Path, group: str | None = None) -> list[dict[str, Any]]:
    """The backups in `directory` (every `*.json` file), oldest first; only `group`'s if given.

    With `group`, an unreadable file is kept when its name is that group's backup name (the
    group's name made file-safe, then `-`), since it may well be one of its backups.
    A directory that does not exist holds no backups.
    """
    try:
        files = sorted(p for p in directory.glob("*.json") if not p.name.startswith("."))
    except OSError as e:  # pragma: no cover - glob swallows most directory errors
        raise KgroupError(f"cannot list the backup directory {directory}: {e.strerror or e}") from e
    keyed: list[tuple[int, str, str, dict[str, Any]]] = []
    for path in files:
        for created_ms, row in _rows_of(path):
            if group is not None and not _belongs_to(group, row, path):
                continue
            keyed.append((created_ms, row["file"], row["group"] or "", row))
    keyed.sort(key=lambda k: k[:3])
    return [row for *_key, row in keyed]


def _belongs_to(group: str, row: dict[str, Any], path: Path) -> bool:
    """A row of `group`'s, or an unreadable file named as `group`'s backups are."""
    if row["group"] is not None:
        return bool(row["group"] == group)
    return path.name.startswith(f"{safe_name(group)}-")


def _rows_of(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(created ms, row) for each group of one backup file, or one error row."""
    from kgroup.reset.timespec import format_utc_ms

    source = os.fspath(path)

    def row(
        created_ms: int,
        group: str | None,
        partitions: int | None,
        strategy: str | None,
        error: str | None,
    ) -> tuple[int, dict[str, Any]]:
        return created_ms, {
            "created": format_utc_ms(created_ms),
            "group": group,
            "partitions": partitions,
            "strategy": strategy,
            "file": source,
            "error": error,
        }

    try:
        parsed = read_plan_file(path)
    except KgroupError as e:
        return [row(_mtime_ms(path), None, None, None, _reason(e, source))]
    created_ms = _created_ms(parsed.created_at)
    if created_ms is None:
        created_ms = _mtime_ms(path)
    if parsed.kind != "backup":
        return [row(created_ms, None, None, None, f"not a backup (kind {parsed.kind})")]
    if not parsed.plans:
        return [row(created_ms, None, None, None, "holds no group")]
    return [
        row(created_ms, plan.group, len(plan.rows), plan.strategy, None) for plan in parsed.plans
    ]


def _created_ms(text: str | None) -> int | None:
    from kgroup.reset.timespec import parse_datetime_ms

    if not text:
        return None
    try:
        return parse_datetime_ms(text)
    except KgroupError:
        return None


def _mtime_ms(path: Path) -> int:
    try:
        return int(path.stat().st_mtime * 1000)
    except OSError:
        return 0


def _reason(error: KgroupError, source: str) -> str:
    """The error's message without the file name the `file` column already shows."""
    message = error.message
    for lead in (f"{source}: ", f"{source}, "):
        if message.startswith(lead):
            return message[len(lead) :]
    return message
