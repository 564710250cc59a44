"""Run `kgroup reset-offsets` / `kgroup undo` for the CLI: options -> plan -> output -> execute."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgroup.core.errors import KgroupError, UsageError


@dataclass
class ResetOptions:
    groups: list[str]
    all_groups: bool = False
    topics: list[str] = field(default_factory=list)
    all_topics: bool = False
    to: str | None = None
    to_datetime: str | None = None
    to_timestamp: str | None = None
    by_duration: str | None = None
    to_offset: str | None = None
    shift_by: str | None = None
    from_file: str | None = None
    dry_run: bool = False
    execute: bool = False
    export: str | None = None
    backup: str | None = None


def strategy_from_options(opts: ResetOptions) -> Any:
    """Exactly one strategy option, parsed."""
    from kgroup.reset import strategy as s

    given = {
        name: value
        for name, value in (
            ("--to", opts.to),
            ("--to-datetime", opts.to_datetime),
            ("--to-timestamp", opts.to_timestamp),
            ("--by-duration", opts.by_duration),
            ("--to-offset", opts.to_offset),
            ("--shift-by", opts.shift_by),
            ("--from-file", opts.from_file),
        )
        if value is not None
    }
    if len(given) != 1:
        listed = ", ".join(given) if given else "none"
        raise UsageError(
            f"give exactly one reset strategy (got {listed})",
            hint="--to earliest|latest|none|current, --to-datetime, --to-timestamp, "
            "--by-duration, --to-offset, --shift-by or --from-file",
        )
    if opts.to is not None:
        return s.parse_to(opts.to)
    if opts.to_datetime is not None:
        return s.to_datetime(opts.to_datetime)
    if opts.to_timestamp is not None:
        return s.to_timestamp(opts.to_timestamp)
    if opts.by_duration is not None:
        return s.by_duration(opts.by_duration)
    if opts.to_offset is not None:
        return s.to_offset(opts.to_offset)
    if opts.shift_by is not None:
        return s.shift_by(opts.shift_by)
    from kgroup.reset.planfile import read_plan_file

    assert opts.from_file is not None
    return read_plan_file(opts.from_file).strategy()


def _mode(dry_run: bool, execute: bool) -> bool:
    if dry_run and execute:
        raise UsageError(
            "--dry-run and --execute exclude each other",
            hint="--dry-run (the default) prints the plan; --execute commits it",
        )
    return execute


def _export(path: str | None, plans: Any, now_ms: int, note: Callable[[str], None]) -> None:
    if not path:
        return
    from kgroup.reset.planfile import write_plan_file

    if not Path(path).expanduser().parent.is_dir():
        raise UsageError(
            f"cannot write {path}: its directory does not exist",
            hint="create the directory or choose another path",
        )
    written = write_plan_file(
        Path(path).expanduser(), list(plans), kind="plan", created_at_ms=now_ms
    )
    note(f"plan written to {written}")


def _finish(report: Any) -> None:
    from kgroup.core.errors import PartialFailure

    failed = report.failed
    if not failed:
        return
    codes = {o.exit_code for o in failed}
    summary = "; ".join(f"{o.group}: {o.message}" for o in failed[:3])
    error = PartialFailure(f"{len(failed)} of {len(report.outcomes)} group(s) not reset: {summary}")
    if len(codes) == 1:
        error.exit_code = codes.pop()
    raise error


def run_reset(gopts: Any, opts: ResetOptions, note: Callable[[str], None]) -> None:
    from kgroup.render import render
    from kgroup.render.reset import execution_output, plan_output
    from kgroup.reset.apply import ResetScope, build_plans, execute_plans

    executing = _mode(opts.dry_run, opts.execute)
    strategy = strategy_from_options(opts)
    now_ms = int(time.time() * 1000)
    admin = gopts.admin()
    plans = build_plans(
        admin,
        ResetScope(opts.groups, opts.all_groups, opts.topics, opts.all_topics),
        strategy,
        now_ms,
    )
    _export(opts.export, plans, now_ms, note)
    if not executing:
        render(plan_output(plans, executing=False), gopts.output, no_color=gopts.no_color)
        return
    report = execute_plans(admin, plans, backup=opts.backup, now_ms=now_ms)
    render(execution_output(plans, report), gopts.output, no_color=gopts.no_color)
    _finish(report)


def run_undo(
    gopts: Any,
    group: str,
    backup: str | None,
    *,
    dry_run: bool,
    execute: bool,
    note: Callable[[str], None],
) -> None:
    from kgroup.render import render
    from kgroup.render.reset import execution_output, plan_output
    from kgroup.reset.apply import ExecutionReport, execute_plan, latest_backup, undo_plan

    executing = _mode(dry_run, execute)
    backup_file = Path(backup).expanduser() if backup else latest_backup(group)
    note(f"restoring from {backup_file}")
    now_ms = int(time.time() * 1000)
    admin = gopts.admin()
    plan, expected = undo_plan(admin, group, backup_file, now_ms)
    if not executing:
        render(plan_output([plan], executing=False), gopts.output, no_color=gopts.no_color)
        return
    report = ExecutionReport()
    try:
        report.outcomes.append(
            execute_plan(admin, plan, backup=None, several=False, now_ms=now_ms, expected=expected)
        )
    except KgroupError:
        raise
    render(execution_output([plan], report), gopts.output, no_color=gopts.no_color)
