"""Backups and the files reset writes: where `reset-offsets --execute` writes backups (durably,
never over another file), `--export` (never over a file, never in the backup directory), the
backup `undo` restores next (kgroup.reset.undo_chain), and `kgroup undo --list`: the backups in a
directory, read from the files alone (no cluster).

A backup is the JSON file `reset-offsets --execute` writes before it commits
(`planfile.write_plan_file(kind="backup")`, named `<group>-<UTC stamp>.json`). Each group of
each file gives one row::

    {"created": "2026-05-01T10:00:00.000Z", "group": "billing", "partitions": 3,
     "strategy": "undo of to earliest", "file": "/.../billing-20260501T100000000Z.json",
     "error": null, "undoes": null, "history": "next undo", "undone_by": null,
     "next_undo": true}

`created` is the file's `created_at` in UTC (the file's modification time when it has none).
A file that cannot be read is still listed, with `group` and `strategy` null and the reason in
`error`, rather than hiding it or stopping the listing. Rows are sorted oldest first.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from kgroup.core.commands import group_command
from kgroup.core.errors import KgroupError, NotFoundError, SafetyRefusal, UsageError
from kgroup.core.files import BACKUP
from kgroup.core.timefmt import format_utc_compact_ms
from kgroup.reset.model import GroupPlan
from kgroup.reset.planfile import format_for_path, read_plan_file, write_plan_file
from kgroup.reset.planner import backup_plan

COLUMNS = (
    "created",
    "group",
    "partitions",
    "strategy",
    "history",
    "file",
    "error",
    "undoes",
    "undone_by",
    "next_undo",
)


def backup_dir() -> Path:
    """Default backup directory: $XDG_STATE_HOME/kgroup/backups (~/.local/state/...)."""
    from kgroup.sandbox.state import state_dir

    return state_dir() / "backups"


def safe_name(group: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", group)[:120] or "group"


def check_path_given(value: str | None, option: str) -> None:
    """An empty or blank path option (an unset shell variable?) is a usage error (exit 2)."""
    if value is not None and not value.strip():
        raise UsageError(
            f"{option} needs a path, got an empty one",
            hint=f"give {option} a file name (is a shell variable unset?)",
        )


def inside_backups(path: str | os.PathLike[str]) -> bool:
    """True when `path` (resolved, links followed as far as they go) is in the default backup
    directory: only new backups may be written there."""
    root = os.path.realpath(backup_dir())
    target = os.path.realpath(os.path.expanduser(os.fspath(path)))
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)


def refuse_inside_backups(path: str | os.PathLike[str], option: str) -> None:
    """Refuse (exit 4) to write anything but a new backup under the backup directory."""
    if inside_backups(path):
        raise SafetyRefusal(
            f"{option} {os.fspath(path)} is in kgroup's backup directory {backup_dir()}; "
            "only new backups are written there",
            hint="choose a path outside the backup directory",
        )


def check_writable_directory(directory: Path, option: str, given: str) -> None:
    """A directory the user named for kgroup to write into must exist and be writable (exit 2,
    before anything changes)."""
    if not directory.is_dir():
        raise UsageError(
            f"cannot write {option} {given}: directory {directory} does not exist",
            hint="create the directory or choose another path",
        )
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UsageError(
            f"cannot write {option} {given}: directory {directory} is not writable",
            hint="choose a directory you can write to",
        )


def export_plans(path: str, plans: Sequence[GroupPlan], now_ms: int) -> Path:
    """`--export FILE`: the plan written as a new file, never over another (exit 4 naming it,
    as a named backup), never under the backup directory (exit 4)."""
    check_output_paths(path, None)
    target = Path(path).expanduser()
    try:
        return write_plan_file(
            target, list(plans), kind="plan", created_at_ms=now_ms, exclusive=True
        )
    except FileExistsError:
        raise _exists("--export", path, "plan") from None


def check_output_paths(export: str | None, backup: str | None) -> None:
    """The checks of --export and --backup that need no plan, made before the cluster is asked:
    empty names (2), an --export that exists or lies in the backup directory (4), a named
    directory that is missing or not writable (2)."""
    check_path_given(backup, "--backup")
    if backup is not None:
        named = Path(backup).expanduser()
        check_writable_directory(named if named.is_dir() else named.parent, "--backup", backup)
    if export is None:
        return
    check_path_given(export, "--export")
    target = Path(export).expanduser()
    format_for_path(target)
    refuse_inside_backups(target, "--export")
    check_writable_directory(target.parent, "--export", export)
    if target.exists() or target.is_symlink():
        raise _exists("--export", export, "plan")


def _exists(option: str, given: str, what: str) -> SafetyRefusal:
    return SafetyRefusal(
        f"{option} file {given} exists already; kgroup never overwrites a file",
        hint=f"choose a new file name for the {what}",
    )


def choose_backup_path(group: str, requested: str | None, several: bool, now_ms: int) -> Path:
    """Where a group's backup goes: --backup FILE, --backup DIR, or the default directory.

    A named FILE that exists already is refused (exit 4): a backup is never overwritten. An
    empty name, or a named directory that is missing or not writable, is a usage error (2).
    """
    check_path_given(requested, "--backup")
    name = f"{safe_name(group)}-{format_utc_compact_ms(now_ms)}.json"
    if requested:
        path = Path(requested).expanduser()
        if path.is_dir():
            check_writable_directory(path, "--backup", requested)
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
        check_writable_directory(path.parent, "--backup", requested)
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
    """The backup `undo GROUP` restores: the latest reset of the group still in effect in the
    default backup directory, never the backup an undo wrote (kgroup.reset.undo_chain)."""
    from kgroup.reset.undo_chain import walk

    directory = backup_dir()
    steps = _steps([row for row in _raw_rows(directory, group) if row["group"] == group])
    top = walk(steps).next_undo
    if top is not None:
        return Path(top.file)
    if steps:
        raise NotFoundError(
            f"nothing left to undo for group {group}: each of its {len(steps)} backup(s) in "
            f"{directory} is undone already or was written by an undo",
            hint=f"`{group_command('undo --list', group)}` shows the history; restore a given "
            "backup with --backup FILE",
        )
    raise NotFoundError(
        f"no backup of group {group} in {directory}", hint="pass the backup file with --backup FILE"
    )


def undo_command(group: str, backup: str) -> str:
    """The `kgroup undo` command restoring `backup` (`group_command`)."""
    return group_command("undo", group, ("--backup", backup))


def undo_source(group: str, backup: str | None) -> Path:
    """The backup `undo` restores: `--backup FILE` (a regular file within the size limit:
    missing exit 3, empty name or not a regular file exit 2), else the next one in the
    group's history (latest_backup)."""
    from kgroup.core.files import check_regular

    check_path_given(backup, "--backup")
    if backup is None:
        return latest_backup(group)
    check_regular(backup, BACKUP)
    return Path(backup).expanduser()


def plan_for_undo(plan: GroupPlan, backup_file: Path) -> GroupPlan:
    """The undo's plan, marked with the backup it restores (its own backup will say so, and the
    next undo steps further back); a backup covering no partition is refused (exit 3)."""
    if not plan.rows:
        raise NotFoundError(
            f"nothing to undo for group {plan.group}: {backup_file} holds no partition; "
            "nothing was written",
            hint=f"`{group_command('undo --list', plan.group)}` shows the group's backups",
        )
    path = Path(backup_file).absolute()
    return replace(plan, strategy=f"restore {path.name}", undoes=str(path))


def _steps(rows: list[dict[str, Any]]) -> list[Any]:
    from kgroup.reset.undo_chain import Step

    return [
        Step(row["file"], row["_created_ms"], row["undoes"])
        for row in rows
        if row["group"] is not None and row["error"] is None
    ]


def list_backups(directory: Path, group: str | None = None) -> list[dict[str, Any]]:
    """The backups in `directory` (every `*.json` file), oldest first; only `group`'s if given.

    With `group`, an unreadable file is kept when its name is that group's backup name (the
    group's name made file-safe, then `-`), since it may well be one of its backups.
    A directory that does not exist holds no backups. Each row says its place in the group's
    undo history (`history`; `undoes`, `undone_by`, `next_undo`; kgroup.reset.undo_chain).
    """
    from kgroup.reset.undo_chain import walk

    rows = _raw_rows(directory, group)
    by_group: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if row["group"] is not None and row["error"] is None:
            by_group.setdefault(row["group"], []).append(row)
    for group_rows in by_group.values():
        steps = _steps(group_rows)
        chain = walk(steps)
        for row, step in zip(group_rows, steps, strict=True):
            row["history"] = chain.state(step)
            row["undone_by"] = chain.undone_by.get(step.name)
            row["next_undo"] = step is chain.next_undo
    return [_finished(row) for row in rows]


def _raw_rows(directory: Path, group: str | None) -> list[dict[str, Any]]:
    """The rows of list_backups, oldest first, each with its creation time in `_created_ms`."""
    try:
        files = sorted(p for p in directory.glob("*.json") if not p.name.startswith("."))
    except OSError as e:  # pragma: no cover - glob swallows most directory errors
        raise KgroupError(f"cannot list the backup directory {directory}: {e.strerror or e}") from e
    keyed: list[tuple[int, str, str, dict[str, Any]]] = []
    for path in files:
        for created_ms, row in _rows_of(path):
            if group is not None and not _belongs_to(group, row, path):
                continue
            row["_created_ms"] = created_ms
            keyed.append((created_ms, row["file"], row["group"] or "", row))
    keyed.sort(key=lambda k: k[:3])
    return [row for *_key, row in keyed]


def _finished(row: dict[str, Any]) -> dict[str, Any]:
    """The row with the keys of COLUMNS, in that order."""
    row.setdefault("next_undo", False)
    return {key: row.get(key) for key in COLUMNS}


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
        undoes: str | None = None,
    ) -> tuple[int, dict[str, Any]]:
        return created_ms, {
            "created": format_utc_ms(created_ms),
            "group": group,
            "partitions": partitions,
            "strategy": strategy,
            "file": source,
            "error": error,
            "undoes": undoes,
        }

    try:
        parsed = read_plan_file(path, BACKUP)
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
        row(created_ms, plan.group, len(plan.rows), plan.strategy, None, plan.undoes)
        for plan in parsed.plans
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
