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

Several groups run concurrently (`execute_plans`): their coordinators are found in one batch,
and each coordinator serves up to `FENCES_PER_COORDINATOR` groups at once, so Kafka's delay of
a first join (`group.initial.rebalance.delay.ms`) is paid per round, not per group. Each group's
status says what happened to its offsets (`STATUSES`); an interruption (Ctrl-C, SIGTERM) stops
every group at its next step and reports what is known of each.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgroup.core.admin import GroupAdmin
from kgroup.core.commands import group_command
from kgroup.core.errors import (
    KgroupError,
    NotFoundError,
    SafetyRefusal,
    UnreachableError,
)
from kgroup.core.models import CommittedOffset, GroupDescription, TopicPartition
from kgroup.reset.backups import choose_backup_path, undo_command, write_backup
from kgroup.reset.interrupts import EXIT_SIGINT, INTERRUPTS, signal_exit_code, signal_of
from kgroup.reset.model import GroupPlan, stale_offsets
from kgroup.reset.planfile import read_plan_file
from kgroup.reset.refusals import Guards, active_member_refusal, guard_refusal

if TYPE_CHECKING:
    from kgroup.reset.streams import TopicsDeleted

# A commit that landed but that kgroup cannot vouch for (README "Exit codes").
EXIT_COMMITTED_AT_RISK = 8

# Every status a group's result can have: what happened to its offsets, and the exit code of a
# run where every group ended so. README "Statuses of reset-offsets --execute and undo" lists
# the same (tests/unit/reset/test_reset_statuses.py checks they agree).
STATUSES: dict[str, tuple[str, str]] = {
    "committed": ("0", "changed as planned and read back; kgroup held the group alone"),
    "committed_at_risk": (
        "8",
        "changed (the backup is written), but kgroup cannot vouch that they stay: a consumer "
        "joined or converted the group while kgroup held it, another writer changed them, or "
        "the read-back or a deletion failed; the message says which",
    ),
    "refused": ("4 (3: no such group)", "unchanged: kgroup refused before writing anything"),
    "failed": (
        "1 (6: unreachable before the commit)",
        "unchanged (a commit Kafka applied in part is put back; the message says so)",
    ),
    "unknown": ("6", "all of the plan or none of it: the connection was lost during the commit"),
    "interrupted": ("130 (143 on SIGTERM)", "unchanged: stopped before the commit"),
    "committed_unverified": (
        "130 (143 on SIGTERM)",
        "changed (the backup is written), not read back: stopped after the commit",
    ),
}
LANDED = frozenset({"committed", "committed_at_risk", "committed_unverified"})

# Fences (each a thread, a connection and a JoinGroup) under way at once: per coordinator, and
# in all (shared fairly among the coordinators, at least MIN_PER_COORDINATOR each). Kafka holds
# each first join of an empty group for group.initial.rebalance.delay.ms (3 s by default), so a
# bulk reset takes about one such delay per round of FENCES_PER_COORDINATOR groups.
FENCES_PER_COORDINATOR = 200
MAX_FENCES = 400
MIN_PER_COORDINATOR = 16
# `__consumer_offsets` tails read at once for the assign() warning (librdkafka consumers).
LIVENESS_PROBES = 8
# After Ctrl-C / SIGTERM: how long the groups get to reach their next step and leave.
INTERRUPT_GRACE_S = 2.0


@dataclass
class GroupOutcome:
    """What happened to one group on --execute (`status` one of STATUSES)."""

    group: str
    status: str
    partitions: int = 0
    backup: str | None = None
    message: str | None = None
    exit_code: int = 0
    verified: int = 0
    fenced: bool = False
    # the internal topics to delete after, each with its status (kgroup.reset.streams)
    internal_topics: TopicsDeleted | None = None

    @property
    def deleted_topics(self) -> tuple[str, ...]:
        """The internal topics deleted after the commit (their status says so)."""
        return tuple(self.internal_topics.topics("deleted")) if self.internal_topics else ()


@dataclass
class ExecutionReport:
    outcomes: list[GroupOutcome] = field(default_factory=list)
    interrupted: str | None = None  # "SIGINT" / "SIGTERM" when the run was interrupted

    @property
    def failed(self) -> list[GroupOutcome]:
        return [o for o in self.outcomes if o.status != "committed"]


class CommittedAtRisk(KgroupError):
    """The commit landed, but kgroup cannot vouch that the offsets stay as committed."""

    exit_code = EXIT_COMMITTED_AT_RISK


class _Cancelled(KgroupError):
    """Interrupted before this group's commit: nothing was written."""

    exit_code = EXIT_SIGINT


@dataclass
class GroupRun:
    """One group's execution, shared by its worker thread and the thread that waits for it: the
    step reached (`phase`), so an interruption can say what is known of the group."""

    plan: GroupPlan
    cancel: threading.Event = field(default_factory=threading.Event)
    phase: str = "waiting"  # waiting, checking, fencing, committing, committed, verified
    backup: str | None = None
    fence: Any = None
    node: Any = None  # the group's coordinator, when looked up in the batch
    described: GroupDescription | None = None  # read in the batch before the groups start
    probe: bool = True  # False when the batch found no `__consumer_offsets` to read
    current: Any = None  # its committed offsets (or the KgroupError), read in the batch
    outcome: GroupOutcome | None = None
    done: threading.Event = field(default_factory=threading.Event)

    def check_cancel(self) -> None:
        if self.cancel.is_set():
            raise _Cancelled(f"group {self.plan.group}: interrupted before the commit")


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


def _describe_clearing_gone_fences(
    admin: GroupAdmin,
    group: str,
    note: Callable[[str], None] | None,
    described: GroupDescription | None = None,
) -> GroupDescription:
    """The group's description (`described` if read already), after removing the fence members
    kgroup runs of this host left behind when they were killed (their pid is gone): Kafka lets
    LeaveGroup name any member id, and a dead process commits nothing. Fence members of other
    hosts are left to Kafka's session expiry (the refusal says when)."""
    from kgroup.core.wire.fence import fence_owner, remove_members

    description = described or admin.describe_groups([group])[group]
    gone = [
        member
        for member in description.members
        if (owner := fence_owner(member.member_id, member.client_id)) is not None and owner.gone()
    ]
    if not gone or admin.wire is None:
        return description
    remove_members(admin.wire, group, [member.member_id for member in gone])
    if note is not None:
        for member in gone:
            owner = fence_owner(member.member_id, member.client_id)
            note(
                f"{group}: removed fence member {member.member_id}, left behind by kgroup run "
                f"pid {owner.pid if owner else '?'} on this host, which is gone"
            )
    return admin.describe_groups([group])[group]


def _fence_holder_hint(refusal: SafetyRefusal, description: GroupDescription) -> SafetyRefusal:
    """A refusal naming another kgroup run: say whose, and when Kafka drops it if it is gone."""
    from kgroup.core.wire.fence import fence_owner, session_timeout_ms

    owners = [fence_owner(mb.member_id, mb.client_id) for mb in description.members]
    if not owners or any(owner is None for owner in owners):
        return refusal
    seconds = session_timeout_ms() / 1000
    refusal.hint = (
        f"wait for it to finish; if that run is gone, Kafka drops its member once its session "
        f"({seconds:g} s for kgroup's default) has passed without a heartbeat; then make a new "
        "plan"
    )
    return refusal


def _preflight(
    admin: GroupAdmin,
    plan: GroupPlan,
    expected: dict[TopicPartition, int | None] | None,
    note: Callable[[str], None] | None,
    run: GroupRun,
) -> GroupDescription:
    """preflight() for --execute, from the batch's answers where there are some."""
    description = _describe_clearing_gone_fences(admin, plan.group, note, run.described)
    refusal = active_member_refusal(description)
    if refusal is not None:
        raise _fence_holder_hint(refusal, description)
    current = run.current
    if isinstance(current, NotFoundError):
        current = {}
    elif isinstance(current, KgroupError) or current is None or description is not run.described:
        current = admin.committed_offsets_or_none(plan.group)
    check_current(plan.group, current, plan, expected)
    return description


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
        raise _fence_holder_hint(refusal, description)
    current = admin.committed_offsets_or_none(plan.group)
    check_current(plan.group, current, plan, expected)
    return current


_probe_slots = threading.BoundedSemaphore(LIVENESS_PROBES)


def _assign_warning(admin: GroupAdmin, plan: GroupPlan, now_ms: int) -> str | None:
    """The warning for a group with no member but recent commits (a consumer using assign()
    may be running), or None. Asked only of a group that has no member: the caller refused the
    others already (a warning saying "no member" next to a refusal naming two was wrong)."""
    if not plan.exists:
        return None
    try:
        from kgroup.reset.liveness import last_commit_ms, looks_live
    except ImportError:
        return None
    with _probe_slots:
        last = last_commit_ms(admin, plan.group, admin.timeout_s)
    if isinstance(last, int) and looks_live(last, now_ms):
        age_s = max(0, (now_ms - last) // 1000)
        return (
            f"{plan.group}: warning: no member, but an offset was committed {age_s} s ago: a "
            "consumer using assign() (no group membership) may be running and would "
            "overwrite this reset"
        )
    return None


class _Probe:
    """_assign_warning in a thread of its own, so that reading the group's `__consumer_offsets`
    tail overlaps the fence's join (which Kafka may hold for seconds); `say()` waits for it and
    notes the warning, before the commit."""

    def __init__(self, admin: GroupAdmin, plan: GroupPlan, now_ms: int, note) -> None:
        self.note = note
        self.warning: str | None = None
        self.thread: threading.Thread | None = None
        if note is not None:
            self.thread = threading.Thread(
                target=self._run, args=(admin, plan, now_ms), daemon=True, name="kgroup-probe"
            )
            self.thread.start()

    def _run(self, admin: GroupAdmin, plan: GroupPlan, now_ms: int) -> None:
        try:
            self.warning = _assign_warning(admin, plan, now_ms)
        except Exception:  # a warning only: never the reason a reset fails
            self.warning = None

    def say(self) -> None:
        if self.thread is not None:
            self.thread.join()
            self.thread = None
            if self.warning is not None:
                self.note(self.warning)

    def wait(self) -> None:
        """Let the reading end (bounded by --timeout) when the group ends before the commit
        (refused): a daemon thread still in librdkafka when Python exits can hang its exit."""
        if self.thread is not None:
            self.thread.join()
            self.thread = None


def _note_kip848_conversion(
    description: GroupDescription, fence: Any, note: Callable[[str], None] | None
) -> None:
    """Kafka turns an empty consumer-protocol (KIP-848) group into a classic group when a
    classic member joins it (the fence), and back when a KIP-848 consumer joins again."""
    if note is None or fence is None or description.type != "consumer":
        return
    note(
        f"{description.group_id}: note: an empty consumer-protocol (KIP-848) group: Kafka makes "
        "it a classic group while kgroup holds it (`describe` shows TYPE classic until a KIP-848 "
        "consumer joins again, which turns it back); its offsets are not affected"
    )


def execute_plan(
    admin: GroupAdmin,
    plan: GroupPlan,
    *,
    backup: str | None,
    several: bool,
    now_ms: int,
    expected: dict[TopicPartition, int | None] | None = None,
    run: GroupRun | None = None,
    note: Callable[[str], None] | None = None,
) -> GroupOutcome:
    """Execute one group's plan with every safety check; never a partial change.

    One writer per group: this host's lock on the group (kgroup.reset.exclusive), then the
    broker-side fence (kgroup.core.wire.fence) for the whole compare-and-set, commit and
    read-back; see README "One writer per group". `run` records the step reached.
    """
    from kgroup.core.wire.fence import FenceUnavailable
    from kgroup.reset.exclusive import group_lock

    run = run if run is not None else GroupRun(plan)
    group = plan.group
    backup_target = choose_backup_path(group, backup, several, now_ms)
    run.phase = "checking"
    with group_lock(group):
        run.check_cancel()
        description = _preflight(admin, plan, expected, note, run)  # before joining
        probe = _Probe(admin, plan, now_ms, note if run.probe else None)
        run.check_cancel()
        fence = admin.group_fence(group)
        unfenced_reason: str | None = None
        if fence is None:
            unfenced_reason = "this client configuration cannot join groups (librdkafka path)"
        elif run.node is not None:
            fence._node = run.node
        try:
            if fence is not None:
                run.fence, run.phase = fence, "fencing"
                try:
                    fence.acquire()
                except FenceUnavailable as exc:
                    fence, unfenced_reason = None, exc.message
                else:
                    _note_kip848_conversion(description, fence, note)
            probe.say()
            outcome = _commit_checked(
                admin, plan, fence, backup_target, backup, now_ms, expected, run
            )
        except INTERRUPTS:
            raise  # reported at once; the probe's daemon thread is left
        except BaseException:
            probe.wait()
            raise
        finally:
            if fence is not None:
                fence.release()
        if unfenced_reason is not None and outcome.status == "committed":
            outcome = _settle(admin, plan, outcome, unfenced_reason, run)
    return outcome


def _commit_checked(
    admin: GroupAdmin,
    plan: GroupPlan,
    fence,
    backup_target: Path,
    backup: str | None,
    now_ms: int,
    expected: dict[TopicPartition, int | None] | None,
    run: GroupRun,
) -> GroupOutcome:
    group = plan.group
    run.check_cancel()
    current = _committed(admin, fence, group)
    check_current(group, current, plan, expected)
    backup_path = write_backup(
        backup_target,
        plan,
        current,
        now_ms,
        named=bool(backup and not Path(backup).expanduser().is_dir()),
    )
    run.backup = str(backup_path)
    to_commit = plan.offsets_to_commit()
    to_delete = plan.offsets_to_delete()

    def landed(status: str, message: str | None, exit_code: int) -> GroupOutcome:
        return GroupOutcome(
            group=group,
            status=status,
            partitions=len(plan.rows),
            backup=str(backup_path),
            message=message,
            exit_code=exit_code,
            verified=0 if status != "committed" else len(to_commit) + len(to_delete),
            fenced=fence is not None,
        )

    try:
        run.check_cancel()
        run.phase = "committing"
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
                    f"none): check with `{describe_command(group)}`; backup kept at "
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
                # nothing written, or put back as it was, unless some could not be put back
                run.phase = "committed" if getattr(exc, "unrestored", None) else "checking"
                raise
        run.phase = "committed"
        undo = (
            f"the previous offsets are in {backup_path}; undo with: "
            f"{undo_command(group, str(backup_path))}"
        )
        if run.cancel.is_set():
            return landed(
                "committed_unverified", "interrupted after the commit, before reading back", 130
            )
        if to_delete:
            try:
                admin.delete_offsets(group, to_delete)
            except KgroupError as exc:
                raise CommittedAtRisk(
                    f"group {group}: the commit landed, but deleting the offsets of "
                    f"{', '.join(map(str, to_delete[:5]))} failed: {exc.one_line()}",
                    hint=undo,
                ) from None
        after = _committed(admin, fence, group)
        wrong = [
            tp
            for tp, value in to_commit.items()
            if tp not in after or after[tp].offset != value.offset
        ]
        wrong += [tp for tp in to_delete if tp in after]
        if wrong:
            raise CommittedAtRisk(
                f"group {group}: the cluster accepted the commit but reading back shows "
                f"different offsets for {', '.join(map(str, wrong[:5]))}",
                hint=f"inspect with `{describe_command(group)}`; {undo}",
            )
        run.phase = "verified"
        if fence is not None:
            described = fence.describe() or admin.describe_groups([group])[group]
            changed = fence.still_alone(described)
            if changed is not None:
                raise CommittedAtRisk(
                    f"group {group}: the commit landed and was read back, but {changed} while "
                    "kgroup held the group: a consumer that kept its position from before may "
                    "overwrite these at its next commit",
                    hint=f"check with `{describe_command(group)}`; {undo}",
                )
    except KgroupError as exc:
        raise _attach_backup(exc, backup_path) from None
    return landed("committed", None, 0)


def describe_command(group: str) -> str:
    """`kgroup describe GROUP` as a POSIX shell runs it as printed (backups.group_command)."""
    return group_command("describe", group)


def _committed(admin: GroupAdmin, fence, group: str) -> dict[TopicPartition, CommittedOffset]:
    """The group's committed offsets: on the fence's own connection when it holds one (see
    GroupFence.committed_offsets), else through the client."""
    found = fence.committed_offsets() if fence is not None else None
    return found if found is not None else admin.committed_offsets_or_none(group)


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
            exc.unrestored = unrestorable  # type: ignore[attr-defined]
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


def _settle(
    admin: GroupAdmin, plan: GroupPlan, outcome: GroupOutcome, reason: str, run: GroupRun
) -> GroupOutcome:
    """Without a broker-side fence: read again after SETTLE_S and report a later overwrite."""
    if run.cancel.wait(SETTLE_S):
        outcome.message = f"not fenced against other hosts ({reason}); interrupted before re-read"
        return outcome
    after = admin.committed_offsets_or_none(plan.group)
    to_commit = plan.offsets_to_commit()
    moved = [tp for tp, v in to_commit.items() if tp not in after or after[tp].offset != v.offset]
    if moved:
        raise _attach_backup(
            CommittedAtRisk(
                f"group {plan.group}: the commit landed but another writer changed "
                f"{', '.join(map(str, moved[:5]))} right after it (not fenced: {reason})",
                hint=f"check with `{describe_command(plan.group)}` and stop the other writer",
            ),
            Path(outcome.backup) if outcome.backup else None,
        )
    outcome.message = (
        f"not fenced against other hosts ({reason}); offsets re-read after {SETTLE_S:g} s"
    )
    return outcome


def _failed_outcome(run: GroupRun, exc: KgroupError) -> GroupOutcome:
    """The outcome of a group whose execution raised `exc`, from the step it had reached: a
    refusal is `refused` only if nothing was written."""
    group = run.plan.group
    backup = getattr(exc, "backup_path", None) or run.backup
    if isinstance(exc, _Cancelled) or (
        run.cancel.is_set() and run.phase not in ("committing", "committed", "verified")
    ):
        status = "interrupted"  # a refusal after Ctrl-C made the fence leave: nothing written
    elif isinstance(exc, CommittedAtRisk) or run.phase in ("committed", "verified"):
        status = "committed_at_risk"
    elif isinstance(exc, UnreachableError) and run.phase == "committing":
        status = "unknown"
    elif isinstance(exc, SafetyRefusal | NotFoundError):
        status = "refused"
    else:
        status = "failed"
    exit_code = EXIT_COMMITTED_AT_RISK if status == "committed_at_risk" else exc.exit_code
    message = exc.one_line()
    if status == "interrupted":
        message = "interrupted before the commit: nothing was written"
    return GroupOutcome(
        group=group,
        status=status,
        message=message,
        exit_code=exit_code,
        backup=backup,
        partitions=len(run.plan.rows) if status == "committed_at_risk" else 0,
    )


def _interrupted_outcome(run: GroupRun) -> GroupOutcome:
    """What is known of a group whose worker did not finish after an interruption."""
    group = run.plan.group
    if run.phase == "committing":
        status, message = (
            "unknown",
            (
                f"interrupted during the commit: all of the plan or none of it; check with "
                f"`{describe_command(group)}`"
            ),
        )
    elif run.phase in ("committed", "verified"):
        status, message = (
            "committed_unverified",
            "interrupted after the commit, before reading back",
        )
        if run.phase == "verified":
            status, message = "committed", "interrupted after reading back"
    else:
        status, message = "interrupted", "interrupted before the commit: nothing was written"
    return GroupOutcome(
        group=group,
        status=status,
        message=message,
        backup=run.backup if status != "interrupted" else None,
        partitions=len(run.plan.rows) if status in LANDED else 0,
        exit_code=EXIT_SIGINT,
    )


def _batch(
    admin: GroupAdmin, groups: Sequence[str]
) -> tuple[dict[str, Any], dict[str, GroupDescription], dict[str, Any]]:
    """Each group's coordinator, description and committed offsets, in a few batched requests
    (FindCoordinator v4, DescribeGroups, OffsetFetch v8) instead of a few per group: the
    checks before each group's join then cost no request. A group missing from an answer (or
    a batch that failed) is asked on its own by its worker, which reports its error."""
    wire = getattr(admin, "wire", None)
    if wire is None or not groups:
        return {}, {}, {}
    try:
        found = wire.find_coordinators(list(groups))
        nodes = {g: node for g, node in found.items() if not isinstance(node, KgroupError)}
        described = {
            g: d for g, d in admin.describe_groups(list(groups)).items() if d.error is None
        }
        current = dict(admin.committed_offsets_many(list(groups)))
    except KgroupError:
        return {}, {}, {}
    return nodes, described, current


def _offsets_topic_visible(admin: GroupAdmin) -> bool:
    """Whether `__consumer_offsets` can be read for the assign() warning: asked once for a bulk
    reset, not once per group (where it is absent or hidden, as on tansu, every group's probe
    would find the same and warn of nothing)."""
    try:
        from kgroup.reset.liveness import OFFSETS_TOPIC

        return OFFSETS_TOPIC in admin.topics(include_internal=True)
    except (KgroupError, ImportError):
        return True  # let each group's probe say


def execute_plans(
    admin: GroupAdmin,
    plans: Sequence[GroupPlan],
    *,
    backup: str | None,
    now_ms: int,
    guards: Guards | None = None,
    expected: Mapping[str, dict[TopicPartition, int | None]] | None = None,
    note: Callable[[str], None] | None = None,
) -> ExecutionReport:
    """Each group is its own unit: one failing, slow or unreachable does not stop the others.

    Groups run concurrently, up to FENCES_PER_COORDINATOR per coordinator, each coordinator's
    groups in their order; the report lists them in the plans' order. Ctrl-C (KeyboardInterrupt)
    or SIGTERM (`interrupts.Terminated`) stops every group at its next step, makes the fences
    leave, and reports what is known of each group (`report.interrupted` names the signal).
    """
    report = ExecutionReport()
    if not plans:
        return report
    several = len(plans) > 1
    if backup and several:
        choose_backup_path(plans[0].group, backup, several, now_ms)  # validate up front
    cancel = threading.Event()
    runs = [GroupRun(plan, cancel) for plan in plans]
    for run in runs:
        if run.plan.error is not None:  # not planned: reported as failed, nothing written
            run.outcome = GroupOutcome(
                run.plan.group, "failed", message=run.plan.error, exit_code=run.plan.error_code
            )
            run.done.set()
    todo = [run for run in runs if run.outcome is None]
    if not todo:
        report.outcomes = [run.outcome for run in runs if run.outcome is not None]
        return report
    batch = [run.plan.group for run in todo]
    nodes, described, current = _batch(admin, batch) if len(todo) > 1 else ({}, {}, {})
    probe = _offsets_topic_visible(admin) if len(todo) > 1 and note is not None else True
    queues: dict[Any, deque[GroupRun]] = {}
    for run in todo:
        run.node = nodes.get(run.plan.group)
        run.described = described.get(run.plan.group)
        run.current = current.get(run.plan.group)
        run.probe = probe
        queues.setdefault(run.node, deque()).append(run)
    printing = threading.Lock()

    def say(line: str) -> None:
        if note is not None:
            with printing:
                note(line)

    def work(queue: deque[GroupRun]) -> None:
        while True:
            try:
                run = queue.popleft()
            except IndexError:
                return
            try:
                run.outcome = _execute_one(
                    admin, run, guards, backup, several, now_ms, expected, say
                )
            finally:
                run.done.set()

    slots = min(FENCES_PER_COORDINATOR, max(MIN_PER_COORDINATOR, MAX_FENCES // len(queues)))
    threads = [
        threading.Thread(target=work, args=(queue,), daemon=True, name="kgroup-reset")
        for queue in queues.values()
        for _slot in range(min(len(queue), slots))
    ]
    try:
        if len(threads) == 1:
            threads[0].run()  # one group: in this thread, no thread to wait for
        else:
            for thread in threads:
                thread.start()
            for thread in threads:
                while thread.is_alive():
                    thread.join(0.1)
    except INTERRUPTS as exc:
        report.interrupted = signal_of(exc)
        _stop(runs, cancel)
    report.outcomes = [run.outcome or _interrupted_outcome(run) for run in runs]
    if report.interrupted is not None:
        code = signal_exit_code(report.interrupted)
        for outcome in report.outcomes:
            outcome.exit_code = code
    return report


def _stop(runs: Sequence[GroupRun], cancel: threading.Event) -> None:
    """After an interruption: every group stops at its next step; the fences leave (a JoinGroup
    the coordinator holds ends at once when its member leaves); wait a little for the steps
    under way (a commit sent is worth its answer), then leave for whatever still runs."""
    cancel.set()
    for run in runs:
        if run.fence is not None and run.phase == "fencing" and not run.done.is_set():
            _abort_shielded(run.fence)
    deadline = time.monotonic() + INTERRUPT_GRACE_S
    try:
        for run in runs:
            run.done.wait(max(0.0, deadline - time.monotonic()))
    except INTERRUPTS:
        pass  # a second Ctrl-C / SIGTERM ends the wait, not the report nor the leaving
    for run in runs:
        if run.fence is not None and not run.done.is_set():
            _abort_shielded(run.fence)


def _abort_shielded(fence: Any) -> None:
    """Make a fence leave even if another Ctrl-C / SIGTERM arrives meanwhile."""
    for _attempt in range(3):
        try:
            fence.abort()
            return
        except INTERRUPTS:
            continue


def _execute_one(
    admin: GroupAdmin,
    run: GroupRun,
    guards: Guards | None,
    backup: str | None,
    several: bool,
    now_ms: int,
    expected: Mapping[str, dict[TopicPartition, int | None]] | None,
    note: Callable[[str], None],
) -> GroupOutcome:
    plan = run.plan
    try:
        run.check_cancel()
        refusal = guard_refusal(admin, plan, guards or Guards(), now_ms)
        if refusal is not None:
            raise refusal
        return execute_plan(
            admin,
            plan,
            backup=backup,
            several=several,
            now_ms=now_ms,
            expected=(expected or {}).get(plan.group),
            run=run,
            note=note,
        )
    except KgroupError as exc:
        return _failed_outcome(run, exc)


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
