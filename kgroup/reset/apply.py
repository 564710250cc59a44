"""Reading the cluster for a reset plan, and executing plans safely: the I/O edge of reset/.

Planning itself is pure (`kgroup.reset.planner`). Here: gather what the planner needs in
batches, and execute a group's plan as one unit:

1. refuse (exit 4) while the group has active members (Kafka refuses too), naming them;
2. re-read the committed offsets and refuse (exit 4) if any differs from the plan's
   `current_offset` (compare-and-set: nobody committed between plan and execute);
3. write the backup (the offsets being replaced, with metadata) before changing anything;
4. commit the whole group in one AlterConsumerGroupOffsets request (Kafka appends a group's
   offset commit as one batch: it lands whole or not at all);
5. read the offsets back and check them against the plan.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from kgroup.core.admin import GroupAdmin
from kgroup.core.errors import (
    KafkaOperationError,
    KgroupError,
    NotFoundError,
    SafetyRefusal,
    UnreachableError,
    UsageError,
)
from kgroup.core.models import CommittedOffset, GroupDescription, TopicPartition
from kgroup.reset.model import GroupPlan, stale_offsets
from kgroup.reset.planfile import read_plan_file, write_plan_file
from kgroup.reset.planner import (
    GroupInputs,
    TopicSelection,
    backup_plan,
    parse_topic_option,
    plan_groups,
    resolve_scope,
    selections_for_file,
)
from kgroup.reset.strategy import FromFile, Strategy, resolve_timestamp_ms

ACTIVE_STATES = {"Stable", "PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling"}


@dataclass
class ResetScope:
    """Which groups and partitions a reset covers."""

    groups: Sequence[str]
    all_groups: bool = False
    topics: Sequence[str] = ()
    all_topics: bool = False


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


def backup_dir() -> Path:
    """Default backup directory: $XDG_STATE_HOME/kgroup/backups (~/.local/state/...)."""
    from kgroup.sandbox.state import state_dir

    return state_dir() / "backups"


def _safe_name(group: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", group)[:120] or "group"


def resolve_groups(admin: GroupAdmin, scope: ResetScope) -> list[str]:
    if bool(scope.groups) == scope.all_groups:
        raise UsageError(
            "name the groups to reset in exactly one way", hint="give GROUP... or --all-groups"
        )
    if scope.groups:
        return list(dict.fromkeys(scope.groups))
    return [g.group_id for g in admin.list_groups()]


def build_plans(
    admin: GroupAdmin, scope: ResetScope, strategy: Strategy, now_ms: int
) -> tuple[GroupPlan, ...]:
    """Read the cluster (batched) and plan every group, all or nothing."""
    group_ids = resolve_groups(admin, scope)
    selections: tuple[TopicSelection, ...] = tuple(parse_topic_option(t) for t in scope.topics)
    file_strategy = strategy if isinstance(strategy, FromFile) else None
    if not selections and not scope.all_topics and file_strategy is None:
        raise UsageError(
            "say which partitions to reset", hint="give --topic T (or T:0,2), or --all-topics"
        )
    if selections and scope.all_topics:
        raise UsageError("--topic and --all-topics exclude each other", hint="keep one of them")
    if file_strategy is not None and not file_strategy.groups() and len(group_ids) > 1:
        raise UsageError(
            f"{file_strategy.source} has no group column, so it cannot be "
            "applied to several groups",
            hint="use the group,topic,partition,offset layout, or one group",
        )
    topics = admin.topics(include_internal=True)
    committed_by_group = admin.committed_offsets_many(group_ids)
    scopes: dict[str, tuple[TopicPartition, ...]] = {}
    committed: dict[str, dict] = {}
    for group in group_ids:
        answer = committed_by_group[group]
        if isinstance(answer, KgroupError):
            if answer.exit_code != 3:
                raise answer
            answer = {}  # a group that does not exist yet may be given offsets
        committed[group] = answer
        group_selections = selections
        if file_strategy is not None and not selections and not scope.all_topics:
            group_selections = selections_for_file(file_strategy, group)
        scopes[group] = resolve_scope(
            group_selections, topics, all_topics=scope.all_topics, committed=answer.keys()
        )
    union = sorted({tp for tps in scopes.values() for tp in tps})
    watermarks = admin.watermarks(union) if union else {}
    timestamp_ms = resolve_timestamp_ms(strategy, now_ms)
    offsets_for_time = (
        admin.list_offsets(union, timestamp_ms) if timestamp_ms is not None and union else None
    )
    inputs = [
        GroupInputs(
            group,
            scopes[group],
            committed[group],
            {tp: watermarks[tp] for tp in scopes[group]},
            (
                {tp: offsets_for_time[tp] for tp in scopes[group]}
                if offsets_for_time is not None
                else None
            ),
        )
        for group in group_ids
    ]
    plans = plan_groups(inputs, strategy, now_ms)
    if file_strategy is not None and file_strategy.groups():
        others = [g for g in file_strategy.groups() if g not in group_ids]
        if others:
            listed = ", ".join(others[:5]) + (
                f" and {len(others) - 5} more" if len(others) > 5 else ""
            )
            plans = tuple(
                replace(
                    p,
                    notes=(
                        *p.notes,
                        f"{file_strategy.source} also has rows for group(s) "
                        f"not named here, ignored: {listed}",
                    ),
                )
                for p in plans
            )
        if not any(p.rows for p in plans):
            from kgroup.core.errors import CheckFailed

            raise CheckFailed(
                f"{file_strategy.source} has no rows for {', '.join(group_ids)}"
                + (f" (only for {', '.join(others[:5])})" if others else ""),
                hint="name the groups the file holds, or check the file",
            )
    return _mark_missing_groups(admin, plans, committed)


def _mark_missing_groups(
    admin: GroupAdmin, plans: tuple[GroupPlan, ...], committed: dict[str, dict]
) -> tuple[GroupPlan, ...]:
    """Flag plans of groups that do not exist: no committed offset anywhere and no member."""
    candidates = [p.group for p in plans if not committed.get(p.group)]
    if not candidates:
        return plans
    described = admin.describe_groups(candidates)
    missing = {
        g
        for g in candidates
        if not described[g].members
        and described[g].state in ("Dead", "Empty", "Unknown", "")
        and (described[g].error is None or described[g].error_code == "GROUP_ID_NOT_FOUND")
    }
    return tuple(
        replace(
            p,
            exists=False,
            notes=(
                *p.notes,
                f"group {p.group} does not exist (no member, no committed offset): --execute "
                "refuses to create it (exit 3) unless --allow-new-group",
            ),
        )
        if p.group in missing
        else p
        for p in plans
    )


@dataclass(frozen=True)
class Guards:
    """The operator's guardrails for --execute (and the checks a dry run reports)."""

    allow_new_group: bool = False
    force: bool = False
    max_rewind: object = None  # guardrails.Limit | None
    max_skip: object = None  # guardrails.Limit | None


def guard_refusal(
    admin: GroupAdmin, plan: GroupPlan, guards: Guards, now_ms: int
) -> KgroupError | None:
    """Why --execute would refuse this plan before touching the group, or None:
    a protected group, a group that does not exist, a move beyond --max-rewind/--max-skip."""
    from kgroup.core.errors import NotFoundError
    from kgroup.reset import guardrails

    refusal = guardrails.protection_refusal(
        plan.group, guardrails.protected_patterns(), force=guards.force
    )
    if refusal is not None:
        return refusal
    if not plan.exists and not guards.allow_new_group:
        return NotFoundError(
            f"group {plan.group} does not exist (no member, no committed offset); "
            "a reset would create it",
            hint="check the group name (kgroup list); to create it with these offsets, add "
            "--allow-new-group",
        )
    if guards.force or (guards.max_rewind is None and guards.max_skip is None):
        return None
    needed = guardrails.offsets_needing_times(plan, guards.max_rewind, guards.max_skip)
    times: dict = {}
    if needed:
        found = admin.next_records(sorted(needed))
        times = {key: (rec.timestamp if rec.consumable else None) for key, rec in found.items()}
    violations = guardrails.check_limits(
        plan, guards.max_rewind, guards.max_skip, times, now_ms=now_ms
    )
    if violations:
        more = f" and {len(violations) - 3} more" if len(violations) > 3 else ""
        return SafetyRefusal(
            f"group {plan.group}: the plan goes beyond the limits: "
            f"{'; '.join(violations[:3])}{more}",
            hint="check the plan; add --force to execute it anyway",
        )
    return None


def wait_until_empty(admin: GroupAdmin, groups: Sequence[str], timeout_s: float, note=None) -> None:
    """--wait-empty: poll until every group has no member, or refuse (exit 4) at the timeout."""
    deadline = time.monotonic() + timeout_s
    while True:
        described = admin.describe_groups(list(groups))
        busy = {g: d for g, d in described.items() if active_member_refusal(d) is not None}
        if not busy:
            return
        if time.monotonic() >= deadline:
            names = ", ".join(
                f"{g} ({d.state}, {len(d.members)} member(s))" for g, d in busy.items()
            )
            raise SafetyRefusal(
                f"still not empty after {timeout_s:g} s: {names}",
                hint="stop the group's consumers, or wait longer with --wait-empty",
            )
        if note is not None:
            note(f"waiting for {', '.join(sorted(busy))} to become empty")
        time.sleep(min(2.0, max(0.1, deadline - time.monotonic())))


def active_member_refusal(description: GroupDescription) -> SafetyRefusal | None:
    """Why offsets cannot be changed now, or None when the group is inactive."""
    if description.error is not None and description.error_code != "GROUP_ID_NOT_FOUND":
        return SafetyRefusal(
            f"cannot tell whether group {description.group_id} is active: {description.error}",
            hint="retry when the group can be described",
        )
    fences = [m for m in description.members if _is_kgroup_fence(m.member_id, m.client_id)]
    if fences and len(fences) == len(description.members):
        return SafetyRefusal(
            f"another kgroup run is changing the offsets of group {description.group_id} "
            f"right now (member {fences[0].member_id})",
            hint="wait for it to finish, then make a new plan and check it",
        )
    if description.members:
        names = ", ".join(
            m.member_id + (f" (client {m.client_id}, host {m.host})" if m.client_id else "")
            for m in description.members[:5]
        )
        more = f" and {len(description.members) - 5} more" if len(description.members) > 5 else ""
        return SafetyRefusal(
            f"group {description.group_id} has {len(description.members)} active member(s): "
            f"{names}{more}",
            hint="stop the consumers of this group first (Kafka refuses offset changes while "
            "members are active)",
        )
    if description.state in ACTIVE_STATES or description.state == "Unknown":
        return SafetyRefusal(
            f"group {description.group_id} is {description.state}; offsets can only change "
            "while it is Empty",
            hint="stop the consumers of this group first, then retry",
        )
    return None


def _is_kgroup_fence(member_id: str, client_id: str | None) -> bool:
    from kgroup.core.wire.fence import CLIENT_ID_PREFIX

    return member_id.startswith(CLIENT_ID_PREFIX) or (client_id or "").startswith(CLIENT_ID_PREFIX)


def choose_backup_path(group: str, requested: str | None, several: bool, now_ms: int) -> Path:
    """Where a group's backup goes: --backup FILE, --backup DIR, or the default directory.

    A named FILE that exists already is refused (exit 4): a backup is never overwritten.
    """
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now_ms / 1000)) + f"{now_ms % 1000:03d}Z"
    name = f"{_safe_name(group)}-{stamp}.json"
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


def latest_backup(group: str) -> Path:
    """The newest backup file of `group` in the default backup directory."""
    from kgroup.core.errors import NotFoundError

    directory = backup_dir()
    candidates = sorted(directory.glob(f"{_safe_name(group)}-*.json")) if directory.is_dir() else []
    for path in reversed(candidates):
        try:
            if any(p.group == group for p in read_plan_file(path).plans):
                return path
        except KgroupError:
            continue
    raise NotFoundError(
        f"no backup of group {group} in {directory}", hint="pass the backup file with --backup FILE"
    )


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
