"""Run `kgroup reset-offsets` / `kgroup undo` for the CLI: options -> plan -> output -> execute.

The run layer renders nothing: it hands its plans and execution report to the `ResetView`
callbacks that cli/ passes in (kgroup.cli.reset renders them with kgroup.render.reset)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgroup.core.errors import KgroupError, UsageError

if TYPE_CHECKING:
    from kgroup.core.admin import GroupAdmin


@dataclass(frozen=True)
class ResetView:
    """Where a reset's results go, given by cli/: `plans` shows the plan (dry run, or before
    nothing is executed), `executed` the plans with their execution report."""

    plans: Callable[[Sequence[Any]], None]
    executed: Callable[[Sequence[Any], Any], None]


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
    to_group: str | list[str] | None = None
    to_committed_at: str | list[str] | None = None
    # where --to-committed-at reads the history: segments (offline for a dry run) or live
    segments: list[str] = field(default_factory=list)
    engine: str = "auto"
    offsets_topic: str = "__consumer_offsets"
    # Kafka's --to-earliest, --to-latest, --to-current: one entry per flag given, in order.
    to_aliases: list[str] = field(default_factory=list)
    dry_run: bool = False
    execute: bool = False
    export: str | None = None
    backup: str | None = None
    allow_new_group: bool = False
    force: bool = False
    wait_empty: str | None = None
    max_rewind: str | None = None
    max_skip: str | None = None
    # streams groups: internal topics --execute deletes after the commit (kgroup.reset.streams)
    delete_all_internal_topics: bool = False
    delete_internal_topics: list[str] = field(default_factory=list)


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
        ("--to-group", opts.to_group, s.to_group),
        ("--to-committed-at", opts.to_committed_at, s.to_committed_at),
    )
    given = [
        (f"{name} {shlex.quote(value)}", value, parse)
        for name, option, parse in parsers
        for value in values(option)
    ]
    # kafka-consumer-groups.sh spells `--to earliest` as --to-earliest (ResetOffsets options):
    # the same strategy, so counted with the others and named as the user wrote it.
    given += [(flag, flag.removeprefix("--to-"), s.parse_to) for flag in opts.to_aliases]
    if len(given) != 1:
        shown = [text for text, _value, _parse in given]
        got = ", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else "none"
        raise UsageError(
            f"give exactly one reset strategy: got {got}",
            hint="--to earliest|latest|none|current (or --to-earliest, --to-latest, "
            "--to-current), --to-datetime, --to-timestamp, --by-duration, --to-offset, "
            "--shift-by, --from-file, --to-group or --to-committed-at, once",
        )
    _name, value, parse = given[0]
    return history_source(parse(value), opts)


def history_source(strategy: Any, opts: ResetOptions) -> Any:
    """--segments, --engine and --offsets-topic belong to --to-committed-at: set them on it."""
    from dataclasses import replace

    from kgroup.reset.strategy import ToCommittedAt

    if opts.engine not in ("auto", "local", "spark"):
        raise UsageError(f"unknown engine {opts.engine!r}", hint="use auto, local or spark")
    if isinstance(strategy, ToCommittedAt):
        return replace(
            strategy,
            segments=tuple(opts.segments),
            engine=opts.engine,
            offsets_topic=opts.offsets_topic,
        )
    for name, given in (
        ("--segments", bool(opts.segments)),
        ("--engine", opts.engine != "auto"),
        ("--offsets-topic", opts.offsets_topic != "__consumer_offsets"),
    ):
        if given:
            raise UsageError(
                f"{name} applies to --to-committed-at only",
                hint="e.g. reset-offsets G --to-committed-at 2h --segments DIR --export plan.json",
            )
    return strategy


def _mode(dry_run: bool, execute: bool) -> bool:
    if dry_run and execute:
        raise UsageError(
            "--dry-run and --execute exclude each other",
            hint="--dry-run (the default) prints the plan; --execute commits it",
        )
    return execute


def _export(path: str | None, plans: Any, now_ms: int, note: Callable[[str], None]) -> None:
    if path is None:
        return
    from kgroup.reset.backups import export_plans

    note(f"plan written to {export_plans(path, list(plans), now_ms)}")


def _finish(report: Any, note: Callable[[str], None] | None = None) -> None:
    from kgroup.core.errors import PartialFailure

    if report.interrupted is not None:
        _interrupted(report, note)
    failed = report.failed
    if not failed:
        return
    summary = "; ".join(f"{o.group}: {o.message}" for o in failed[:3])
    error = PartialFailure(f"{len(failed)} of {len(report.outcomes)} group(s) not reset: {summary}")
    error.exit_code = combined_exit_code(o.exit_code for o in failed)
    raise error


def interruption_lines(report: Any) -> list[str]:
    """One line per group after Ctrl-C / SIGTERM (during the run, or cutting its report): what
    is known of its offsets."""
    from kgroup.reset.backups import undo_command

    lines = []
    for o in report.outcomes:
        undo = (
            f"; backup {o.backup}; undo with: {undo_command(o.group, o.backup)}" if o.backup else ""
        )
        if o.internal_topics is not None and (topics := o.internal_topics.said()):
            undo += f"; {topics}"
        if o.status == "committed":
            lines.append(f"{o.group}: committed and verified{undo}")
        elif o.status == "committed_unverified":
            lines.append(f"{o.group}: committed, not verified{undo}")
        elif o.status == "committed_at_risk":
            lines.append(f"{o.group}: committed, at risk: {o.message}{undo}")
        elif o.status == "unknown":
            lines.append(f"{o.group}: unknown whether committed (all of it or none){undo}")
        else:
            lines.append(f"{o.group}: not committed ({o.status}): nothing changed")
    return lines


def _interrupted(report: Any, note: Callable[[str], None] | None) -> None:
    from kgroup.reset.interrupts import interrupted_error

    for line in interruption_lines(report):
        if note is not None:
            note(line)
    raise interrupted_error(
        report.interrupted,
        "during --execute",
        "the lines above say what happened to each group",
        hint="check with `kgroup describe GROUP`; undo a committed group with the command shown",
    )


def combined_exit_code(codes: Any) -> int:
    """One exit code for several groups' failures, the same for a dry run and --execute: the
    code they share; 4 when they are all refusals (3 not found, 4 safety); else 1."""
    distinct = set(codes)
    if len(distinct) == 1:
        return distinct.pop()
    return 4 if distinct <= {3, 4} else 1


def _guards(opts: ResetOptions) -> Any:
    """Guardrails from the command line, over the defaults of reset.properties."""
    from kgroup.reset.guardrails import configured_limits, parse_limit
    from kgroup.reset.refusals import Guards

    rewind, skip = configured_limits()
    if opts.max_rewind is not None:
        rewind = parse_limit(opts.max_rewind, "--max-rewind")
    if opts.max_skip is not None:
        skip = parse_limit(opts.max_skip, "--max-skip")
    return Guards(
        allow_new_group=opts.allow_new_group, force=opts.force, max_rewind=rewind, max_skip=skip
    )


def _wait_seconds(text: str) -> float:
    from kgroup.reset.timespec import parse_duration_ms

    try:
        return parse_duration_ms(text) / 1000
    except KgroupError as exc:
        raise UsageError(
            f"--wait-empty {text}: {exc.message}", hint="e.g. --wait-empty 5m, 90s or PT2M"
        ) from None


def _would_refuse(
    refusals: list[tuple[str, KgroupError]],
    note: Callable[[str], None],
    executing: bool,
    not_planned: Sequence[tuple[str, KgroupError]] = (),
    asked: int = 0,
) -> None:
    """Dry run: say which groups --execute would refuse and exit with the code it would (or
    with that of the groups that could not be planned)."""
    if not refusals and not not_planned:
        return
    for group, error in refusals:
        note(f"{group}: --execute would refuse: {error.one_line()}")
    from kgroup.core.errors import PartialFailure

    parts = []
    if not_planned:
        parts.append(
            f"{len(not_planned)} of {asked} group(s) could not be planned: "
            + ", ".join(g for g, _e in not_planned[:5])
        )
    if refusals:
        parts.append(
            f"dry run: --execute would refuse {len(refusals)} group(s): "
            + ", ".join(g for g, _e in refusals[:5])
        )
    error = PartialFailure("; ".join(parts))
    error.exit_code = combined_exit_code(e.exit_code for _g, e in [*not_planned, *refusals])
    raise error


def _not_planned(plans: Any, note: Callable[[str], None]) -> list[tuple[str, KgroupError]]:
    """Dry run: each group whose offsets could not be read is said; returned as failures for
    the run's exit code (6 when its coordinator stayed unreachable)."""
    failed = []
    for plan in plans:
        if plan.error is not None:
            note(f"{plan.group}: not planned: {plan.error}")
            error = KgroupError(plan.error)
            error.exit_code = plan.error_code
            failed.append((plan.group, error))
    return failed


def run_reset(
    connect: Callable[[], GroupAdmin],
    opts: ResetOptions,
    note: Callable[[str], None],
    view: ResetView,
) -> None:
    """Plan, and with --execute commit, a reset; `connect` gives the cluster's admin (called
    only when the cluster is needed: an offline dry run needs none)."""
    from kgroup.reset.apply import execute_plans
    from kgroup.reset.gather import ResetScope, build_plans, resolve_groups
    from kgroup.reset.refusals import (
        active_member_refusal,
        guard_refusal,
        mark_forced,
        wait_until_empty,
    )

    executing = _mode(opts.dry_run, opts.execute)
    strategy = strategy_from_options(opts)
    guards = _guards(opts)
    wait_s = _wait_seconds(opts.wait_empty) if opts.wait_empty is not None else None
    if getattr(strategy, "segments", ()) and not executing:  # needs no cluster
        from kgroup.reset.offline import offline_plans

        plans = offline_plans(opts, strategy, int(time.time() * 1000), note)
        _export(opts.export, plans, int(time.time() * 1000), note)
        view.plans(plans)
        return
    admin = connect()
    scope = ResetScope(
        opts.groups,
        opts.all_groups,
        opts.topics,
        opts.all_topics,
        opts.delete_all_internal_topics,
        opts.delete_internal_topics,
    )
    if wait_s is not None:
        wait_until_empty(admin, resolve_groups(admin, scope), wait_s, note)
    now_ms = int(time.time() * 1000)
    plans = mark_forced(admin, build_plans(admin, scope, strategy, now_ms, note), guards, now_ms)
    planned = [p for p in plans if p.error is None]
    _export(opts.export, planned, now_ms, note)
    if not executing:
        view.plans(plans)
        not_planned = _not_planned(plans, note)
        described = admin.describe_groups([p.group for p in planned]) if planned else {}
        refusals = []
        for plan in planned:
            refusal = guard_refusal(admin, plan, guards, now_ms) or active_member_refusal(
                described[plan.group]
            )
            if refusal is not None:
                refusals.append((plan.group, refusal))
        _would_refuse(refusals, note, executing, not_planned, len(plans))
        return
    from kgroup.reset.interrupts import Interrupts
    from kgroup.reset.streams import delete_after_commit

    with Interrupts(note) as interrupts:
        report = execute_plans(
            admin, plans, backup=opts.backup, now_ms=now_ms, guards=guards, note=note
        )
        # SIGTERM stays an interruption while internal topics go: the report is still said
        not_deleted = delete_after_commit(admin, plans, report, note)
        interrupts.reporting(lambda: interruption_lines(report))
        view.executed(plans, report)
        _finish(report, note)
        if not_deleted:
            from kgroup.core.errors import PartialFailure

            raise PartialFailure("; ".join(not_deleted))  # exit 1: the offsets are committed


def run_undo(
    connect: Callable[[], GroupAdmin],
    group: str,
    backup: str | None,
    *,
    dry_run: bool,
    execute: bool,
    note: Callable[[str], None],
    view: ResetView,
    force: bool = False,
) -> None:
    from kgroup.reset.apply import ExecutionReport, execute_plans, undo_plan
    from kgroup.reset.backups import plan_for_undo, undo_source
    from kgroup.reset.guardrails import protected_patterns, protection_refusal

    executing = _mode(dry_run, execute)
    backup_file = undo_source(group, backup)
    note(f"restoring from {backup_file}")
    now_ms = int(time.time() * 1000)
    admin = connect()
    plan, expected = undo_plan(admin, group, backup_file, now_ms)
    plan = plan_for_undo(plan, backup_file)  # refuses an empty plan; marks what it undoes
    # an undo is a reset too: a protected group changes only with --force
    protection = protection_refusal(group, protected_patterns(), force=force)
    if not executing:
        from kgroup.reset.apply import preflight

        view.plans([plan])
        try:
            if protection is not None:
                raise protection
            preflight(admin, plan, expected)  # the checks --execute makes first
        except KgroupError as refusal:
            _would_refuse([(group, refusal)], note, executing)
        return
    from kgroup.reset.interrupts import Interrupts

    with Interrupts(note) as interrupts:
        if protection is not None:
            from kgroup.reset.apply import GroupOutcome

            report = ExecutionReport()
            report.outcomes.append(
                GroupOutcome(
                    group=group,
                    status="refused",
                    message=protection.one_line(),
                    exit_code=protection.exit_code,
                )
            )
        else:
            from kgroup.reset.refusals import Guards

            # the protection is checked above (with --force); limits do not apply to a restore
            report = execute_plans(
                admin,
                [plan],
                backup=None,
                now_ms=now_ms,
                guards=Guards(allow_new_group=True, force=True),
                expected={group: expected},
                note=note,
            )
        interrupts.reporting(lambda: interruption_lines(report))
        view.executed([plan], report)
        _finish(report, note)
