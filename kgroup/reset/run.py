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
    # Strategy options: every value given on the command line (the CLI collects repeats so
    # that giving one twice is refused, not decided by the last one); a str is one value.
    to: str | list[str] | None = None
    to_datetime: str | list[str] | None = None
    to_timestamp: str | list[str] | None = None
    by_duration: str | list[str] | None = None
    to_offset: str | list[str] | None = None
    shift_by: str | list[str] | None = None
    from_file: str | list[str] | None = None
    dry_run: bool = False
    execute: bool = False
    export: str | None = None
    backup: str | None = None


def strategy_from_options(opts: ResetOptions) -> Any:
    """Exactly one strategy option, given once, parsed.

    Two values of one option (`--to earliest --to latest`) or of two options are a usage
    error naming each option with its value, raised before any value is parsed.
    """
    import shlex

    from kgroup.reset import strategy as s

    def from_file(path: str) -> Any:
        from kgroup.reset.planfile import read_plan_file

        return read_plan_file(path).strategy()

    def values(given: str | list[str] | None) -> list[str]:
        if given is None:
            return []
        return [given] if isinstance(given, str) else list(given)

    parsers: tuple[tuple[str, str | list[str] | None, Callable[[str], Any]], ...] = (
        ("--to", opts.to, s.parse_to),
        ("--to-datetime", opts.to_datetime, s.to_datetime),
        ("--to-timestamp", opts.to_timestamp, s.to_timestamp),
        ("--by-duration", opts.by_duration, s.by_duration),
        ("--to-offset", opts.to_offset, s.to_offset),
        ("--shift-by", opts.shift_by, s.shift_by),
        ("--from-file", opts.from_file, from_file),
    )
    given = [(name, value, parse) for name, option, parse in parsers for value in values(option)]
    if len(given) != 1:
        shown = [f"{name} {shlex.quote(value)}" for name, value, _ in given]
        got = ", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else "none"
        raise UsageError(
            f"give exactly one reset strategy: got {got}",
            hint="--to earliest|latest|none|current, --to-datetime, --to-timestamp, "
            "--by-duration, --to-offset, --shift-by or --from-file, once",
        )
    _name, value, parse = given[0]
    return parse(value)


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
