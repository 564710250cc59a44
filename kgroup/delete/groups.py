"""`kgroup delete` / `kgroup delete-offsets`: kgroup's safety policy around core's Kafka calls.

Protected groups are refused before the cluster is asked (`kgroup.reset.guardrails`), active
groups are not deleted (`kgroup.reset.refusals`), topic options are resolved as for
reset-offsets (`kgroup.reset.planner`); each group or partition gets a row, and the
`raise_for_*` functions turn the rows into the documented exit code after they are shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kgroup.core.admin import GroupAdmin
from kgroup.core.errors import SafetyRefusal
from kgroup.core.models import TopicPartition


class GroupRows(list[dict[str, Any]]):
    """The rows of a multi-group command, one dict per group, `timed_out`: the groups that
    failed because the cluster did not answer in time (errors.timed_out; exit 6 when they are
    all the failures), and `interrupted`: the signal ("SIGINT", "SIGTERM") that stopped the
    deletion, if any (the rows then say which groups were deleted, not deleted or unknown)."""

    def __init__(
        self,
        rows: Iterable[dict[str, Any]] = (),
        timed_out: Iterable[str] = (),
        interrupted: str | None = None,
    ) -> None:
        super().__init__(rows)
        self.timed_out: set[str] = set(timed_out)
        self.interrupted = interrupted


def delete_inactive_groups(
    admin: GroupAdmin, group_ids: Sequence[str], *, force: bool = False
) -> GroupRows:
    """Delete each inactive group; active ones are refused, as Kafka does.

    The state is checked first because some brokers (tansu) delete active groups too; a member
    joining between the check and DeleteGroups makes Kafka answer NON_EMPTY_GROUP: `refused`.
    Groups matching a protected-group pattern (`kgroup.reset.guardrails.protected_patterns`)
    are refused before the cluster is asked anything, unless `force`. A group whose coordinator
    did not answer in time (describing or deleting it) is `failed` and in `timed_out`. Ctrl-C
    or SIGTERM during DeleteGroups stops it: each group is said as far as known (`deleted`, its
    error, `not_deleted` when not asked yet, `unknown` when asked and not answered), and the
    signal is the rows' `interrupted`.
    """
    from kgroup.core.acl import missing_groups
    from kgroup.core.errors import timed_out
    from kgroup.reset.refusals import active_member_refusal

    rows: list[dict[str, Any]] = []
    late: set[str] = set()
    wanted = []
    for group_id, refusal in _protection_refusals(group_ids, force=force).items():
        if refusal is None:
            wanted.append(group_id)
        else:
            rows.append({"group": group_id, "status": "refused", "message": refusal.one_line()})
    if not wanted:
        return GroupRows(sorted(rows, key=lambda r: r["group"]))
    described = admin.describe_groups(wanted)
    offsets = admin.committed_offsets_many(wanted)
    missing = missing_groups(admin, described, offsets)
    deletable = []
    for group_id, description in described.items():
        if description.unreachable:  # not a refusal: the cluster did not answer in time
            late.add(group_id)
            rows.append({"group": group_id, "status": "failed", "message": str(description.error)})
        elif group_id in missing:
            rows.append(
                {
                    "group": group_id,
                    "status": "not_found",
                    "message": f"group {group_id} does not exist",
                }
            )
        elif (refusal := active_member_refusal(description)) is not None:
            rows.append({"group": group_id, "status": "refused", "message": refusal.one_line()})
        else:
            deletable.append(group_id)
    outcome, interrupted = _delete_interruptibly(admin, deletable)
    for group_id, error in outcome.items():
        if isinstance(error, str):  # interrupted: not deleted, or unknown whether deleted
            rows.append({"group": group_id, "status": error, "message": INTERRUPTED[error]})
        elif error is None:
            rows.append({"group": group_id, "status": "deleted", "message": None})
        else:  # NON_EMPTY_GROUP (a member joined since the check) is `refused`: nothing deleted
            rows.append(
                {"group": group_id, "status": _row_status(error), "message": error.one_line()}
            )
            if timed_out(error):
                late.add(group_id)
    return GroupRows(sorted(rows, key=lambda r: r["group"]), late, interrupted)


# The rows of groups an interrupt left without an answer, by status.
INTERRUPTED = {
    "not_deleted": "not deleted: interrupted before DeleteGroups asked for it",
    "unknown": "unknown whether deleted: interrupted after DeleteGroups was sent, before its "
    "answer; check with `kgroup list`",
}


def _delete_interruptibly(
    admin: GroupAdmin, group_ids: Sequence[str]
) -> tuple[dict[str, Any], str | None]:
    """DeleteGroups for `group_ids` with Ctrl-C and SIGTERM (`interrupts.Terminated`, while the
    caller's `interrupts.Interrupts` is installed) caught: group -> None (deleted), its error,
    or after an interrupt `not_deleted` / `unknown` for a group not answered
    (`DeletionProgress.outcome`); and the signal, if any."""
    from kgroup.core.wire.delete_topics import DeletionProgress
    from kgroup.reset.interrupts import INTERRUPTS, signal_of

    if not group_ids:
        return {}, None
    progress = DeletionProgress()
    try:
        return dict(admin.delete_groups(group_ids, progress)), None
    except INTERRUPTS as exc:
        return {g: progress.outcome(g) for g in group_ids}, signal_of(exc)


def delete_group_offsets(
    admin: GroupAdmin, group_id: str, topics: Sequence[str], *, force: bool = False
) -> GroupRows:
    """Delete committed offsets (OffsetDelete, KIP-496); one row per partition in scope.

    Kafka's coordinator decides, as for kafka-consumer-groups.sh --delete-offsets: an empty
    group loses the offsets; an active consumer group loses those of topics it is not
    subscribed to, and each partition of a topic it consumes is refused
    (GROUP_SUBSCRIBED_TO_TOPIC, row status `refused`). kgroup does not refuse active groups up
    front: only the broker knows the subscriptions for sure (regex subscriptions, KIP-848
    groups, members joining meanwhile), and it answers per partition in the same request.
    Group-level refusals (NON_EMPTY_GROUP, unknown group, authorization) raise.

    A group matching a protected-group pattern is refused (SafetyRefusal, exit 4) before
    the cluster is asked anything, unless `force`; so is a configuration that cannot send
    OffsetDelete. Partitions without a committed offset are reported `no_offset`, not sent.
    Ctrl-C or SIGTERM during OffsetDelete stops it: each partition asked for is `unknown` (the
    request may have been applied), and the signal is the rows' `interrupted`.
    """
    from kgroup.core.acl import require_describable
    from kgroup.core.errors import KgroupError, NotFoundError
    from kgroup.reset.planner import parse_topic_option, resolve_scope

    protection = _protection_refusals([group_id], force=force)[group_id]
    if protection is not None:
        raise protection
    admin.check_can_delete_offsets(group_id)
    selections = [parse_topic_option(t) for t in topics]
    known = admin.topics()
    # a topic Metadata hides is not authorized, not absent (kgroup.core.acl)
    require_describable(admin, [s.topic for s in selections if s.topic not in known])
    committed = admin.committed_offsets_or_none(group_id)
    if not committed:
        from kgroup.core.share_groups import delete_share_offsets, share_groups_among

        if share_groups_among(admin, [group_id]):  # KIP-932: start offsets, per topic
            return GroupRows(delete_share_offsets(admin, group_id, selections, list(known)))
        raise NotFoundError(
            f"group {group_id} has no committed offsets", hint="check the name with `kgroup list`"
        )
    scope = resolve_scope(selections, known, committed=committed.keys())
    present = [tp for tp in scope if tp in committed]
    outcome, interrupted = _delete_offsets_interruptibly(admin, group_id, present)
    rows = GroupRows(interrupted=interrupted)
    for tp in scope:
        error = outcome.get(tp)
        if tp not in committed:
            status, message = "no_offset", None
        elif interrupted is not None:
            status = "unknown"
            message = (
                f"unknown whether deleted: interrupted while OffsetDelete was under way; "
                f"check with `kgroup describe {group_id}`"
            )
        elif error is None:
            status, message = "deleted", None
        else:
            status = _row_status(error)
            message = error.one_line() if isinstance(error, KgroupError) else str(error)
        rows.append(
            {
                "group": group_id,
                "topic": tp.topic,
                "partition": tp.partition,
                "status": status,
                "message": message,
            }
        )
    return rows


def _delete_offsets_interruptibly(
    admin: GroupAdmin, group_id: str, partitions: Sequence[TopicPartition]
) -> tuple[Mapping[TopicPartition, Any], str | None]:
    """OffsetDelete for `partitions` with Ctrl-C and SIGTERM (`interrupts.Terminated`, while the
    caller's `interrupts.Interrupts` is installed) caught: partition -> None (deleted) or its
    error, and the signal that stopped it, if any (then no partition is known)."""
    from kgroup.reset.interrupts import INTERRUPTS, signal_of

    if not partitions:
        return {}, None
    try:
        return admin.delete_offsets_each(group_id, partitions), None
    except INTERRUPTS as exc:
        return {}, signal_of(exc)


def _row_status(error: Exception) -> str:
    """A failed row's status: `refused` (nothing written), `not_found` or `failed`."""
    from kgroup.core.errors import NotFoundError

    if isinstance(error, SafetyRefusal):
        return "refused"
    if isinstance(error, NotFoundError):
        return "not_found"
    return "failed"


def raise_for_offset_failures(rows: Sequence[dict[str, Any]]) -> None:
    """After the rows are printed: exit non-zero when the broker kept some offsets asked for.

    All refused -> SafetyRefusal (exit 4), all not found -> NotFoundError (3), else exit 1.
    The message names each distinct reason once (GROUP_SUBSCRIBED_TO_TOPIC names the topic).
    """
    from kgroup.core.errors import NotFoundError, PartialFailure

    failed = [r for r in rows if r["status"] not in ("deleted", "no_offset")]
    if not failed:
        return
    split = [str(r["message"]).partition(". Hint: ") for r in failed]
    reasons = list(dict.fromkeys(reason for reason, _, _ in split))
    hints = list(dict.fromkeys(hint for _, _, hint in split if hint))
    text = f"{len(failed)} of {len(rows)} partitions not deleted: " + "; ".join(reasons[:3])
    if len(reasons) > 3:
        text += f"; and {len(reasons) - 3} more"
    hint = "; ".join(hints[:2]) or None
    kinds = {r["status"] for r in failed}
    if kinds == {"refused"}:
        raise SafetyRefusal(text, hint=hint)
    if kinds == {"not_found"}:
        raise NotFoundError(text, hint=hint)
    raise PartialFailure(text, hint=hint)


def _protection_refusals(
    group_ids: Sequence[str], *, force: bool
) -> dict[str, SafetyRefusal | None]:
    """Group -> refusal for protected groups (None: may go on), in first-seen order.

    With `force` the protected-group configuration is not read at all.
    """
    from kgroup.reset.guardrails import protected_patterns, protection_refusal

    wanted = list(dict.fromkeys(group_ids))
    if force:
        return dict.fromkeys(wanted)
    patterns = protected_patterns()
    return {g: protection_refusal(g, patterns) for g in wanted}


def row_lines(rows: Sequence[dict[str, Any]]) -> list[str]:
    """One line per row of `delete` (a group) or `delete-offsets` (a partition): its status and
    message (said on stderr when Ctrl-C cut the table or document short)."""
    lines = []
    for r in rows:
        where = f"{r['group']} {r['topic']}:{r['partition']}" if "topic" in r else r["group"]
        message = f": {r['message']}" if r.get("message") else ""
        lines.append(f"{where}: {r['status']}{message}")
    return lines


def raise_for_interruption(signal_name: str | None, *, topics: bool = False) -> None:
    """After the output: Ctrl-C (130) or SIGTERM (143) stopped `delete`'s DeleteGroups or
    (`topics`) the internal-topic deletions of `delete --delete-all-internal-topics`; the rows
    said what is known of each group or topic."""
    if signal_name is None:
        return
    from kgroup.reset.interrupts import interrupted_error

    if topics:
        raise interrupted_error(
            signal_name,
            "while deleting internal topics",
            "the groups' rows say which topics were deleted, not deleted or unknown",
            hint="check the unknown ones with kafka-topics --describe",
        )
    raise interrupted_error(
        signal_name,
        "while deleting groups",
        "the rows say which groups were deleted, not deleted or unknown",
        hint="check the unknown ones with `kgroup list`",
    )


def raise_for_offsets_interruption(signal_name: str | None, group_id: str) -> None:
    """After the rows: Ctrl-C (130) or SIGTERM (143) stopped `delete-offsets`'s OffsetDelete;
    the partitions asked for are `unknown`."""
    if signal_name is None:
        return
    from kgroup.reset.interrupts import interrupted_error

    raise interrupted_error(
        signal_name,
        "while deleting offsets",
        "the rows say which partitions' offsets may be deleted (unknown)",
        hint=f"check them with `kgroup describe {group_id}`",
    )


def raise_for_failures(rows: Sequence[dict[str, Any]], done: str) -> None:
    """Exit non-zero after the output when some rows did not reach `done`: 4 when all are
    refused, 3 when all are not found, 4 for refusals and unknown groups together (the README's
    exit-code rule), 6 when every failure is the cluster not answering in time (the groups of
    a GroupRows' `timed_out`), else 1."""
    from kgroup.core.errors import EXIT_UNREACHABLE, NotFoundError, PartialFailure, SafetyRefusal

    failed = [r for r in rows if r["status"] != done]
    if not failed:
        return
    kinds = {r["status"] for r in failed}
    text = "; ".join(f"{r['group']}: {r['message']}" for r in failed[:3])
    if kinds <= {"refused", "not_found"} and "refused" in kinds:
        raise SafetyRefusal(f"{len(failed)} of {len(rows)} not {done}: {text}")
    if kinds == {"not_found"}:
        raise NotFoundError(f"{len(failed)} of {len(rows)} not {done}: {text}")
    error = PartialFailure(f"{len(failed)} of {len(rows)} not {done}: {text}")
    late = rows.timed_out if isinstance(rows, GroupRows) else set()
    if all(r["group"] in late for r in failed):
        error.exit_code = EXIT_UNREACHABLE
    raise error
