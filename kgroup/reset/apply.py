"""Executing reset plans safely, a group's plan as one unit (reading the cluster for a plan is
`kgroup.reset.gather`, the refusals before a group is touched `kgroup.reset.refusals`, backups
`kgroup.reset.backups`):

1. refuse (exit 4) while the group has active members (Kafka refuses too), naming them;
2. re-read the committed offsets and refuse (exit 4) if any differs from the plan's
   `current_offset` (compare-and-set: nobody committed between plan and execute);
3. write the backup (the offsets being replaced, with metadata) before changing anything;
4. commit the whole group in one AlterConsumerGroupOffsets request (Kafka appends a group's
   offset commit as one batch: it lands whole or not at all);
5. read the offsets back and check them against the plan.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kgroup.core.admin import GroupAdmin
from kgroup.core.errors import (
    KafkaOperationError,
    KgroupError,
    NotFoundError,
    SafetyRefusal,
    UnreachableError,
)
from kgroup.core.models import CommittedOffset, TopicPartition
from kgroup.reset.backups import choose_backup_path, write_backup
from kgroup.reset.model import GroupPlan, stale_offsets
from kgroup.reset.planfile import read_plan_file
from kgroup.reset.refusals import Guards, active_member_refusal, guard_refusal


@dataclass
class GroupOutcome:
    """What happened to one group on --execute."""

    group: str
    status: str  # "committed", "refused", "failed"
    partitions: int = 0
    backup: str | None = None
    message: str | None = None
    exit_code: int = 0
    verified: int = 0
    fenced: bool = False


@dataclass
class ExecutionReport:
    outcomes: list[GroupOutcome] = field(default_factory=list)

    @property
    def failed(self) -> list[GroupOutcome]:
        return [o for o in self.outcomes if o.status != "committed"]


# After a commit that no broker-side fence protected, wait this long and read again, so that a
# writer racing just behind this one is seen, and reported, instead of claimed as verified.
SETTLE_S = 1.0


def _attach_backup(exc: KgroupError, backup_path: Path | None) -> KgroupError:
    exc.backup_path = str(backup_path) if backup_path is not None else None  # type: ignore[attr-defined]
    return exc


def check_current(
    group: str,
    current: dict[TopicPartition, CommittedOffset],
    plan: GroupPlan,
    expected: dict[TopicPartition, int | None] | None,
) -> None:
    """Compare-and-set: refuse (exit 4) if the committed offsets differ from what was planned."""
    if expected is not None:
        from kgroup.reset.model import StaleOffset

        stale = [
            StaleOffset(tp, want, current[tp].offset if tp in current else None)
            for tp, want in sorted(expected.items())
            if (current[tp].offset if tp in current else None) != want
        ]
    else:
        stale = list(stale_offsets(plan, current))
    if stale:
        listed = ", ".join(str(s) for s in stale[:5])
        more = f" and {len(stale) - 5} more" if len(stale) > 5 else ""
        raise SafetyRefusal(
            f"group {group}: committed offsets changed since the plan was made: {listed}{more}",
            hint="something committed in between; make a new plan and check it",
        )


def preflight(
    admin: GroupAdmin,
    plan: GroupPlan,
    expected: dict[TopicPartition, int | None] | None = None,
) -> dict[TopicPartition, CommittedOffset]:
    """The checks --execute makes before it changes anything (a dry run can make them too):
    no active member, and the committed offsets still those the plan was made from."""
    description = admin.describe_groups([plan.group])[plan.group]
    refusal = active_member_refusal(description)
    if refusal is not None:
        raise refusal
    current = admin.committed_offsets_or_none(plan.group)
    check_current(plan.group, current, plan, expected)
    return current


def execute_plan(
    admin: GroupAdmin,
    plan: GroupPlan,
    *,
    backup: str | None,
    several: bool,
    now_ms: int,
    expected: dict[TopicPartition, int | None] | None = None,
) -> GroupOutcome:
    """Execute one group's plan with every safety check; never a partial change.

    One writer per group: this host's lock on the group (kgroup.reset.exclusive), then the
    broker-side fence (kgroup.core.wire.fence) for the whole compare-and-set, commit and
    read-back; see README "One writer per group".
    """
    from kgroup.core.wire.fence import FenceUnavailable
    from kgroup.reset.exclusive import group_lock

    group = plan.group
    backup_target = choose_backup_path(group, backup, several, now_ms)
    with group_lock(group):
        preflight(admin, plan, expected)  # refuse early, before joining the group
        fence = admin.group_fence(group)
        unfenced_reason: str | None = None
        if fence is None:
            unfenced_reason = "this client configuration cannot join groups (librdkafka path)"
        try:
            if fence is not None:
                try:
                    fence.acquire()
                except FenceUnavailable as exc:
                    fence, unfenced_reason = None, exc.message
            outcome = _commit_checked(admin, plan, fence, backup_target, backup, now_ms, expected)
        finally:
            if fence is not None:
                fence.release()
        if unfenced_reason is not None:
            outcome = _settle(admin, plan, outcome, unfenced_reason)
    return outcome


def _commit_checked(
    admin: GroupAdmin,
    plan: GroupPlan,
    fence,
    backup_target: Path,
    backup: str | None,
    now_ms: int,
    expected: dict[TopicPartition, int | None] | None,
) -> GroupOutcome:
    group = plan.group
    current = admin.committed_offsets_or_none(group)
    check_current(group, current, plan, expected)
    backup_path = write_backup(
        backup_target,
        plan,
        current,
        now_ms,
        named=bool(backup and not Path(backup).expanduser().is_dir()),
    )
    to_commit = plan.offsets_to_commit()
    try:
        if to_commit:
            try:
                if fence is not None:
                    _fenced_commit(fence, group, to_commit, current)
                else:
                    admin.alter_offsets(group, to_commit)
            except UnreachableError as exc:
                # The request may have reached the broker: whether it applied is unknown, but a
                # group's commit is one batch in Kafka, so it is all of the plan or none of it.
                exc.message += (
                    f"; whether the commit of {group} applied is unknown (all of it or "
                    f"none): check with `kgroup describe {group}`; backup kept at "
                    f"{backup_path}"
                )
                raise
            except KgroupError as exc:
                if getattr(exc, "written", None):
                    exc.message += f" (backup kept at {backup_path})"
                else:
                    exc.message += (
                        f" (nothing was committed for {group}; backup kept at {backup_path})"
                    )
                raise
        to_delete = plan.offsets_to_delete()
        if to_delete:
            admin.delete_offsets(group, to_delete)
        after = admin.committed_offsets_or_none(group)
        wrong = [
            tp
            for tp, value in to_commit.items()
            if tp not in after or after[tp].offset != value.offset
        ]
        wrong += [tp for tp in to_delete if tp in after]
        if not wrong and fence is not None:
            changed = fence.still_alone(admin.describe_groups([group])[group])
            if changed is not None:
                raise SafetyRefusal(
                    f"group {group}: the commit landed, but {changed} while kgroup held the "
                    "group: that consumer may have read the old offsets and may overwrite these",
                    hint=f"check with `kgroup describe {group}`; the previous offsets are in "
                    f"{backup_path} (kgroup undo {group})",
                )
        if wrong:
            raise KafkaOperationError(
                f"group {group}: the cluster accepted the commit but reading back shows "
                f"different offsets for {', '.join(map(str, wrong[:5]))}",
                hint=f"inspect with `kgroup describe {group}`; the previous offsets are in "
                f"{backup_path} (kgroup undo {group})",
            )
    except KgroupError as exc:
        raise _attach_backup(exc, backup_path) from None
    return GroupOutcome(
        group=group,
        status="committed",
        partitions=len(plan.rows),
        backup=str(backup_path),
        verified=len(to_commit) + len(to_delete),
        fenced=fence is not None,
    )


def _fenced_commit(
    fence,
    group: str,
    to_commit: dict[TopicPartition, CommittedOffset],
    previous: dict[TopicPartition, CommittedOffset],
) -> None:
    """Commit through the fence; if Kafka wrote some partitions and refused others (a topic
    deleted since the plan, a topic ACL), put the written ones back as they were, so the group
    is left all-or-nothing, and say so."""
    try:
        fence.commit(to_commit)
    except KgroupError as exc:
        written = getattr(exc, "written", None)
        if not written:
            raise
        restore = {tp: previous[tp] for tp in written if tp in previous}
        unrestorable = sorted(tp for tp in written if tp not in previous)
        if restore:
            fence.commit(restore)
        if unrestorable:
            exc.message += (
                f"; Kafka wrote {len(written)} partition(s) before refusing; put back all but "
                f"{', '.join(map(str, unrestorable[:5]))}, which had no committed offset before"
            )
        else:
            exc.message += (
                f"; Kafka wrote {len(written)} other partition(s), which kgroup put back as "
                "they were: nothing changed"
            )
        raise


def _settle(admin: GroupAdmin, plan: GroupPlan, outcome: GroupOutcome, reason: str) -> GroupOutcome:
    """Without a broker-side fence: read again after SETTLE_S and report a later overwrite."""
    time.sleep(SETTLE_S)
    after = admin.committed_offsets_or_none(plan.group)
    to_commit = plan.offsets_to_commit()
    moved = [tp for tp, v in to_commit.items() if tp not in after or after[tp].offset != v.offset]
    if moved:
        raise _attach_backup(
            SafetyRefusal(
                f"group {plan.group}: the commit landed but another writer changed "
                f"{', '.join(map(str, moved[:5]))} right after it (not fenced: {reason})",
                hint=f"check with `kgroup describe {plan.group}` and stop the other writer",
            ),
            Path(outcome.backup) if outcome.backup else None,
        )
    outcome.message = (
        f"not fenced against other hosts ({reason}); offsets re-read after {SETTLE_S:g} s"
    )
    return outcome


def execute_plans(
    admin: GroupAdmin,
    plans: Sequence[GroupPlan],
    *,
    backup: str | None,
    now_ms: int,
    guards: Guards | None = None,
) -> ExecutionReport:
    """Each group is its own unit: one failing does not stop the others."""
    report = ExecutionReport()
    several = len(plans) > 1
    if backup and several:
        choose_backup_path(plans[0].group, backup, several, now_ms)  # validate up front
    for plan in plans:
        try:
            refusal = guard_refusal(admin, plan, guards or Guards(), now_ms)
            if refusal is not None:
                raise refusal
            report.outcomes.append(
                execute_plan(admin, plan, backup=backup, several=several, now_ms=now_ms)
            )
        except UnreachableError as exc:
            # Whether this group's commit applied is unknown; the others are not tried.
            report.outcomes.append(
                GroupOutcome(
                    group=plan.group,
                    status="unknown",
                    message=exc.one_line(),
                    exit_code=exc.exit_code,
                    backup=getattr(exc, "backup_path", None),
                )
            )
            break
        except KgroupError as exc:
            status = "refused" if isinstance(exc, SafetyRefusal | NotFoundError) else "failed"
            report.outcomes.append(
                GroupOutcome(
                    group=plan.group,
                    status=status,
                    message=exc.one_line(),
                    exit_code=exc.exit_code,
                    backup=getattr(exc, "backup_path", None),
                )
            )
    return report


def undo_plan(
    admin: GroupAdmin, group: str, backup_file: Path, now_ms: int
) -> tuple[GroupPlan, dict[TopicPartition, int | None]]:
    """The plan restoring `group` from a backup, and the offsets undo expects to find."""
    from kgroup.core.errors import NotFoundError
    from kgroup.reset.planner import plan_group

    parsed = read_plan_file(backup_file)
    plans = [p for p in parsed.plans if p.group == group]
    if not plans:
        raise NotFoundError(
            f"{backup_file} holds no backup of group {group}",
            hint="check the file, or the group name",
        )
    backup = plans[0]
    expected = {TopicPartition(r.topic, r.partition): r.current_offset for r in backup.rows}
    scope = sorted(expected)
    current = admin.committed_offsets_or_none(group)
    watermarks = admin.watermarks(scope)
    plan = plan_group(group, scope, current, watermarks, None, parsed.strategy(), now_ms)
    return plan, expected
