"""Output of `kgroup reset-offsets` and `kgroup undo`: the plan, then what was executed."""

from __future__ import annotations

from collections.abc import Sequence

from kgroup.render.model import KEY, NUMBER, PARTITION_KEY_COLUMNS, TEXT, Column, Output
from kgroup.reset.apply import LANDED, ExecutionReport
from kgroup.reset.backups import undo_command
from kgroup.reset.model import GroupPlan
from kgroup.reset.timespec import format_utc_ms

PLAN_COLUMNS = [
    *PARTITION_KEY_COLUMNS,
    Column("current_offset", justify="right", kind=NUMBER),
    Column("new_offset", justify="right", kind=NUMBER),
    Column("delta", justify="right", kind=NUMBER),
]


def _row_json(row) -> dict:
    data = row.to_dict()
    return {
        k: data[k]
        for k in (
            "topic",
            "partition",
            "current_offset",
            "new_offset",
            "delta",
            "log_start_offset",
            "log_end_offset",
            "clamped",
            "no_record_after_time",
            "warning",
        )
    }


def plan_output(plans: Sequence[GroupPlan], *, executing: bool) -> Output:
    rows = [
        {**row.to_dict(), "from": plan.origins.get((row.topic, row.partition))}
        if plan.origins
        else row.to_dict()
        for plan in plans
        for row in plan.rows
    ]
    columns = PLAN_COLUMNS
    if any(plan.origins for plan in plans):  # --to-group, --to-committed-at
        columns = [*PLAN_COLUMNS, Column("from", kind=TEXT)]
    footer: list[str] = []
    documents = []
    for plan in plans:
        when = (
            f", resolved to {format_utc_ms(plan.timestamp_ms)} ({plan.timestamp_ms} ms)"
            if plan.timestamp_ms is not None
            else ""
        )
        changing = sum(1 for r in plan.rows if r.delta != 0)
        footer.append(
            f"{plan.group}: {plan.strategy}{when}; {len(plan.rows)} partition(s), "
            f"{changing} changing"
        )
        if plan.error is not None:
            footer[-1] = f"{plan.group}: not planned: {plan.error}"
        footer.extend(f"{plan.group}: warning: {w}" for w in plan.warnings)
        footer.extend(f"{plan.group}: --force overrides the limit: {v}" for v in plan.forced)
        if plan.delete_topics:
            footer.append(
                f"{plan.group}: --execute then deletes internal topics "
                f"{', '.join(plan.delete_topics)} (not undoable)"
            )
        footer.extend(
            f"{plan.group}: {r.topic}:{r.partition} has no record at or after the "
            "time: going to the log end"
            for r in plan.rows
            if r.no_record_after_time
        )
        documents.append(
            {
                "group": plan.group,
                "strategy": plan.strategy,
                "timestamp": format_utc_ms(plan.timestamp_ms)
                if plan.timestamp_ms is not None
                else None,
                "timestamp_ms": plan.timestamp_ms,
                "warnings": list(plan.warnings),
                "error": plan.error,
                "forced": list(plan.forced),
                "delete_topics": list(plan.delete_topics),
                "partitions": [
                    {**_row_json(r), "from": plan.origins[(r.topic, r.partition)]}
                    if (r.topic, r.partition) in plan.origins
                    else _row_json(r)
                    for r in plan.rows
                ],
            }
        )
    if not executing:
        footer.append("Dry run: nothing was committed. Add --execute to commit this plan.")
    return Output(
        columns=columns,
        rows=rows,
        document={"dry_run": not executing, "groups": documents},
        jsonl_items=documents,
        footer=footer,
        empty_message="No partitions in scope.",
    )


def _message(outcome, plan: GroupPlan) -> str | None:
    """The result's message, with the limits --force overrode (it is in the backup too)."""
    if not plan.forced:
        return outcome.message
    forced = f"--force overrode {len(plan.forced)} limit violation(s)"
    return f"{outcome.message}; {forced}" if outcome.message else forced


def execution_output(plans: Sequence[GroupPlan], report: ExecutionReport) -> Output:
    by_group = {o.group: o for o in report.outcomes}
    rows = []
    for plan in plans:
        outcome = by_group.get(plan.group)
        if outcome is None:
            continue
        rows.append(
            {
                "group": plan.group,
                "status": outcome.status,
                "partitions": outcome.partitions if outcome.status in LANDED else 0,
                "verified": outcome.verified,
                "backup": outcome.backup,
                "message": _message(outcome, plan),
            }
        )
    documents = []
    for plan in plans:
        outcome = by_group.get(plan.group)
        documents.append(
            {
                "group": plan.group,
                "strategy": plan.strategy,
                "status": outcome.status if outcome else "not_run",
                "backup": outcome.backup if outcome else None,
                "verified_partitions": outcome.verified if outcome else 0,
                "fenced": outcome.fenced if outcome else False,
                "error": outcome.message if outcome and outcome.status != "committed" else None,
                "note": outcome.message if outcome and outcome.status == "committed" else None,
                "forced": list(plan.forced),
                "deleted_topics": list(outcome.deleted_topics) if outcome else [],
                "internal_topics": outcome.internal_topics.listed()
                if outcome and outcome.internal_topics
                else [],
                "partitions": [_row_json(r) for r in plan.rows],
            }
        )
    done = sum(1 for o in report.outcomes if o.status == "committed")
    footer = [f"{done} of {len(plans)} group(s) committed and verified by reading back."]
    footer += [
        f"{p.group}: committed despite the limits (--force): {v}"
        for p in plans
        if (o := by_group.get(p.group)) is not None and o.status == "committed"
        for v in p.forced
    ]
    footer += [f"Undo with: {undo_command(o.group, o.backup)}" for o in report.outcomes if o.backup]
    columns = [
        Column("group", kind=KEY),
        Column("status", kind=KEY),
        Column("partitions", justify="right", kind=NUMBER),
        Column("verified", justify="right", kind=NUMBER),
        Column("backup", kind=TEXT),  # a path: wraps on a narrow terminal, whole when piped
        Column("message", kind=TEXT),
    ]
    return Output(
        columns=columns,
        rows=rows,
        document={"dry_run": False, "groups": documents},
        jsonl_items=documents,
        footer=footer,
    )
