"""`kgroup undo --list`: the backups in a directory, read from the files alone (no cluster).

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
from pathlib import Path
from typing import Any

from kgroup.core.errors import KgroupError

COLUMNS = ("created", "group", "partitions", "strategy", "file", "error")


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
    from kgroup.reset.apply import _safe_name

    if row["group"] is not None:
        return bool(row["group"] == group)
    return path.name.startswith(f"{_safe_name(group)}-")


def _rows_of(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(created ms, row) for each group of one backup file, or one error row."""
    from kgroup.reset.planfile import read_plan_file
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
