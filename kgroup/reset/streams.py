"""`reset-offsets` for streams groups (KIP-1071) with the rules of Kafka's `kafka-streams-groups`
(tools/.../streams/StreamsGroupCommand.java, `resetOffsets`, `retrieveInternalTopics`):

- Input topics are reset; their committed offsets are the group's. `--all-topics` (Kafka's
  `--all-input-topics`) covers the partitions the group has committed offsets for on the source
  topics of its topology; `--topic` (Kafka's `--input-topic`) may name only partitions the group
  has committed offsets for ("One or more topics are not part of the group"): a group with
  others is not planned (exit 4), the other groups go on.
- Internal topics (the repartition and state changelog topics of the topology) are not reset:
  Kafka deletes them, only when asked: `--delete-all-internal-topics` deletes every repartition
  source and changelog topic of the topology that is not also a source topic and is named as
  Kafka Streams names internal topics (`<application.id>-...-changelog`, `-repartition`, the
  foreign-key join topics); the others are kept and said. `--delete-internal-topic NAME` deletes
  NAME; kgroup adds a check Kafka lacks: NAME must be one of the group's internal topics.
- The deletion comes after the offsets are committed and read back (Kafka deletes after
  AlterStreamsGroupOffsets), never in a dry run: the plan lists the topics `--execute` deletes.
  Kafka refuses the deletion options without `--execute`; kgroup shows them in the dry run's
  plan instead, and refuses them for groups that are not streams groups.
- Kafka resets only an inactive group (Empty or Dead): kgroup refuses a group with members
  (exit 4), as for every group type.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from kgroup.core.errors import KgroupError, NotFoundError, SafetyRefusal, UsageError
from kgroup.core.models import TopicPartition
from kgroup.core.wire.streams_topology import StreamsTopology
from kgroup.reset.model import GroupPlan

if TYPE_CHECKING:
    from kgroup.core.wire.delete_topics import DeletionProgress
    from kgroup.delete.groups import GroupRows

# StreamsGroupCommand.matchesInternalTopicFormat
INTERNAL_SUFFIXES = (
    "-changelog",
    "-repartition",
    "-subscription-registration-topic",
    "-subscription-response-topic",
)
FK_JOIN = re.compile(r".+-KTABLE-FK-JOIN-SUBSCRIPTION-(REGISTRATION|RESPONSE)-\d+-topic")


def is_inferred_internal(topic: str, group_id: str) -> bool:
    """Kafka's `isInferredInternalTopic`: named `<group>-...` with an internal topic's ending."""
    return topic.startswith(group_id + "-") and (
        topic.endswith(INTERNAL_SUFFIXES) or FK_JOIN.fullmatch(topic) is not None
    )


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


@dataclass(frozen=True)
class InternalTopics:
    """A streams group's internal topics: those `--delete-all-internal-topics` deletes, those
    it keeps (not named as the group's), and every one the topology names (sinks too)."""

    deletable: tuple[str, ...]
    not_inferred: tuple[str, ...]
    named: tuple[str, ...]


def internal_topics(topology: StreamsTopology) -> InternalTopics:
    """Kafka's `retrieveInternalTopics`: repartition source and changelog topics that are not
    source topics, split by `is_inferred_internal`."""
    sources = topology.source_topics
    candidates = _unique(
        t
        for s in topology.subtopologies
        for t in (*s.repartition_source_topics, *s.changelog_topics)
        if t not in sources
    )
    named = _unique(
        t
        for s in topology.subtopologies
        for t in (*s.repartition_source_topics, *s.repartition_sink_topics, *s.changelog_topics)
        if t not in sources
    )
    deletable = tuple(t for t in candidates if is_inferred_internal(t, topology.group_id))
    kept = tuple(t for t in candidates if t not in deletable)
    return InternalTopics(deletable, kept, named)


@dataclass(frozen=True)
class TopicDeletion:
    """What the command line asks to delete: every internal topic, or the named ones."""

    all_internal: bool = False
    named: tuple[str, ...] = ()

    @property
    def asked(self) -> bool:
        return self.all_internal or bool(self.named)

    def option(self) -> str:
        if self.all_internal:
            return "--delete-all-internal-topics"
        return f"--delete-internal-topic {self.named[0]}"


@dataclass
class StreamsReset:
    """The streams groups among a reset's groups, with their topologies, and the deletion."""

    topologies: dict[str, StreamsTopology] = field(default_factory=dict)
    deletion: TopicDeletion = field(default_factory=TopicDeletion)

    def input_offsets(self, group: str, committed: Iterable[TopicPartition]) -> set[TopicPartition]:
        """`--all-topics` of a streams group: its committed partitions of source topics."""
        topology = self.topologies.get(group)
        if topology is None:
            return set(committed)
        sources = topology.source_topics
        return {tp for tp in committed if tp.topic in sources}

    def scope_refusal(
        self, group: str, scope: Sequence[TopicPartition], committed: Mapping[TopicPartition, Any]
    ) -> KgroupError | None:
        """`--topic` of a streams group: partitions without a committed offset are refused."""
        if group not in self.topologies:
            return None
        foreign = [tp for tp in scope if tp not in committed]
        if not foreign:
            return None
        shown = ", ".join(map(str, foreign[:5])) + (
            f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
        )
        return SafetyRefusal(
            f"streams group {group} has no committed offset for {shown}: kafka-streams-groups "
            "resets only partitions a streams group has committed (not part of the group)",
            hint="use --all-topics (the committed partitions of its input topics), or name "
            "committed partitions as T:0,2",
        )

    def with_deletions(
        self, plans: Sequence[GroupPlan], existing: Mapping[str, Any]
    ) -> tuple[GroupPlan, ...]:
        """Each streams group's plan with the internal topics --execute deletes, and notes on
        the ones kept."""
        if not self.deletion.asked:
            return tuple(plans)
        out = []
        for plan in plans:
            topology = self.topologies.get(plan.group)
            if topology is None or plan.error is not None:
                out.append(plan)
                continue
            internal = internal_topics(topology)
            notes = list(plan.notes)
            if self.deletion.all_internal:
                chosen = internal.deletable
                notes += [
                    f"internal topic {t} is not named as {plan.group}'s (Kafka's rule: "
                    f"'{plan.group}-' and an internal topic's ending): kept"
                    for t in internal.not_inferred
                ]
            else:
                chosen = tuple(t for t in self.deletion.named if t in internal.named)
            gone = tuple(t for t in chosen if t not in existing)
            notes += [f"internal topic {t} does not exist: nothing to delete" for t in gone]
            delete = tuple(t for t in chosen if t in existing)
            if not chosen and self.deletion.all_internal and internal.not_inferred:
                notes.append(
                    f"--delete-all-internal-topics: none of {plan.group}'s internal topics is "
                    "named as its own: nothing to delete"
                )
            elif not chosen and self.deletion.all_internal:
                notes.append(f"--delete-all-internal-topics: {plan.group} has no internal topic")
            elif not chosen:
                notes.append(f"no --delete-internal-topic names an internal topic of {plan.group}")
            out.append(replace(plan, notes=tuple(notes), delete_topics=delete, gone_topics=gone))
        return tuple(out)


def read_streams_groups(
    admin: Any, group_ids: Sequence[str], deletion: TopicDeletion
) -> StreamsReset:
    """The topologies of the streams groups among `group_ids` (their types known after
    `check_share_strategy`); refuses the deletion options where they cannot apply."""
    streams = [g for g in group_ids if admin.group_type(g) == "streams"]
    if deletion.all_internal and deletion.named:
        raise UsageError(
            "--delete-all-internal-topics and --delete-internal-topic exclude each other",
            hint="keep one of them",
        )
    if deletion.asked:  # a group of no known type does not exist: left to say "not found"
        others = [g for g in group_ids if g not in streams and admin.group_type(g) is not None]
        if others:
            raise UsageError(
                f"{deletion.option()} applies to streams groups only; {others[0]} is not one",
                hint="name only streams groups (kgroup list --type streams)",
            )
    if not streams:
        return StreamsReset(deletion=deletion)
    if admin.wire is None:
        raise KgroupError("streams groups need kgroup's own Kafka client")
    from kgroup.core.wire.streams_topology import describe_streams_topologies

    topologies: dict[str, StreamsTopology] = {}
    for group, answer in describe_streams_topologies(admin.wire, streams).items():
        if isinstance(answer, StreamsTopology):
            topologies[group] = answer
        elif deletion.asked:
            raise answer  # nothing to delete from without the topology
    reset = StreamsReset(topologies, deletion)
    if deletion.named:
        owned = {t for top in topologies.values() for t in internal_topics(top).named}
        stray = [t for t in deletion.named if t not in owned]
        if stray:
            raise SafetyRefusal(
                f"--delete-internal-topic {stray[0]}: not an internal (repartition or "
                f"changelog) topic of {', '.join(streams)}; kgroup deletes only those",
                hint="see the topology's topics with --delete-all-internal-topics in a dry run",
            )
    return reset


# What became of one internal topic kgroup was to delete (`internal_topics` in the JSON), and
# how an interrupted run's line for its group says it.
TOPIC_STATUSES = {
    "deleted": "deleted",
    "already_gone": "already gone",
    "not_deleted": "not deleted",
    "unknown": "unknown whether deleted",
}


@dataclass
class TopicsDeleted:
    """One group's internal topics after the deletion: a status per topic (TOPIC_STATUSES)
    and the one-line error of each topic DeleteTopics did not delete."""

    statuses: dict[str, str]
    failed: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False

    @property
    def errors(self) -> list[str]:
        """The distinct errors, one line each (a failed request is every topic's error)."""
        return list(dict.fromkeys(self.failed.values()))

    def topics(self, status: str) -> list[str]:
        return [t for t, s in self.statuses.items() if s == status]

    def listed(self) -> list[dict[str, str]]:
        """The JSON's `internal_topics`: a {topic, status} per topic."""
        return [{"topic": t, "status": s} for t, s in self.statuses.items()]

    def said(self) -> str:
        """Each topic's fate in a few words (an interrupted run's line for its group)."""
        said = [
            f"{words}: {', '.join(topics)}"
            for status, words in TOPIC_STATUSES.items()
            if (topics := self.topics(status))
        ]
        return f"internal topics {'; '.join(said)}" if said else ""

    def message(self) -> str | None:
        """The result's message: the deleted, the already gone, the errors, and after an
        interruption the topics not asked for and those asked but not answered."""
        said = []
        if deleted := self.topics("deleted"):
            said.append(f"deleted internal topics {', '.join(deleted)}")
        if gone := self.topics("already_gone"):
            said.append(f"already gone: {', '.join(gone)}")
        for status, words in (
            ("not_deleted", "not deleted"),
            ("unknown", "unknown whether deleted"),
        ):
            errors = dict.fromkeys(e for t, e in self.failed.items() if self.statuses[t] == status)
            said += [f"{words}: {e}" for e in errors]
        unasked = [t for t in self.topics("not_deleted") if t not in self.failed]
        if self.interrupted and unasked:
            said.append(f"not deleted: {', '.join(unasked)} (interrupted before asking)")
        if unknown := [t for t in self.topics("unknown") if t not in self.failed]:
            said.append(
                f"unknown whether deleted: {', '.join(unknown)} (interrupted before DeleteTopics "
                "answered; check with kafka-topics --describe)"
            )
        return "; ".join(said) or None


def topics_deleted(
    wanted: Sequence[str],
    gone: Sequence[str],
    progress: DeletionProgress | None = None,
    interrupted: bool = False,
) -> TopicsDeleted:
    """Each topic's status from what DeleteTopics did for `wanted` (`progress`; None: nothing
    asked) and `gone`, the topics the metadata lacked (already gone, not asked for). Answered
    None: deleted; NotFoundError (UNKNOWN_TOPIC_OR_PARTITION): already gone; REQUEST_TIMED_OUT
    (deletion started, not seen complete in the request's timeout) or sent and its answer lost:
    `unknown`, a failure still; unanswered: as `DeletionProgress.outcome` says."""
    from kgroup.core.wire.delete_topics import DeletionProgress, outcome_unknown

    progress = progress or DeletionProgress()
    result = TopicsDeleted({}, interrupted=interrupted)
    for topic in wanted:
        outcome = progress.outcome(topic)
        if isinstance(outcome, str):  # not answered: not_deleted or unknown
            result.statuses[topic] = outcome
        elif outcome is None:
            result.statuses[topic] = "deleted"
        elif isinstance(outcome, NotFoundError):
            result.statuses[topic] = "already_gone"
        else:  # REQUEST_TIMED_OUT, or the answer lost: it may be deleted
            result.statuses[topic] = "unknown" if outcome_unknown(outcome) else "not_deleted"
            result.failed[topic] = outcome.one_line()
    for topic in gone:
        result.statuses.setdefault(topic, "already_gone")
    return result


# How a group whose offsets were not committed and verified is said (not "not committed" when
# they may have landed).
UNVERIFIED = {
    "committed_unverified": "committed, not verified",
    "committed_at_risk": "committed, at risk",
    "unknown": "unknown whether committed",
}


def delete_after_commit(
    admin: Any, plans: Sequence[GroupPlan], report: Any, note: Callable[[str], None]
) -> list[str]:
    """After --execute: delete each committed group's internal topics (its offsets committed
    and read back first). Each outcome gets every topic's status (`internal_topics`); returns
    one line per group whose deletion failed (the run then exits 1: its offsets are
    committed). Ctrl-C or SIGTERM (`interrupts.Terminated`, while run.py's `Interrupts` is
    installed) anywhere in the deletions (during a DeleteTopics or between two) stops them:
    `report.interrupted` names the signal and the outcomes say what is known (deleted, not
    deleted, unknown), as for an interrupted commit; a run interrupted before
    (`report.interrupted`) deletes nothing."""
    from kgroup.reset.interrupts import INTERRUPTS, signal_exit_code, signal_of

    by_group = {o.group: o for o in report.outcomes}
    todo = [p for p in plans if (p.delete_topics or p.gone_topics) and p.group in by_group]
    if not todo:
        return []
    from kgroup.core.wire.delete_topics import DeletionProgress, delete_topics

    timeout_ms = int(admin.timeout_s * 1000)
    progress = {p.group: DeletionProgress() for p in todo}
    said: dict[str, list[str]] = {}  # group -> its failures, once its topics are said

    def say(plan: GroupPlan, interrupted: bool, *, quiet: bool = False) -> None:
        outcome = by_group[plan.group]
        if outcome.status == "committed":
            said[plan.group] = _said_deleted(plan, outcome, progress[plan.group], interrupted)
            return
        if plan.delete_topics and not quiet:  # a landed commit is not "not committed"
            not_committed = UNVERIFIED.get(outcome.status, "not committed")
            note(f"{plan.group}: {not_committed}: internal topics not deleted")
        outcome.internal_topics = topics_deleted(plan.delete_topics, plan.gone_topics)
        said[plan.group] = []

    interrupted = report.interrupted  # Ctrl-C during the resets: every group stops, none deletes
    try:
        for plan in todo:
            committed = by_group[plan.group].status == "committed"
            if interrupted is None and plan.delete_topics and committed:
                delete_topics(admin.wire, plan.delete_topics, timeout_ms, progress[plan.group])
            say(plan, interrupted is not None)
    except INTERRUPTS as exc:  # during a DeleteTopics or between two: the rest not asked
        interrupted = signal_of(exc)
    for plan in todo:
        if plan.group not in said:
            say(plan, True, quiet=True)
    if interrupted is not None:
        report.interrupted = interrupted
        for outcome in report.outcomes:
            outcome.exit_code = signal_exit_code(interrupted)
    return [line for plan in todo for line in said[plan.group]]


def _said_deleted(plan: GroupPlan, outcome: Any, progress: Any, interrupted: bool) -> list[str]:
    """A committed group's topics, as far as `progress` knows them, onto its outcome; returns
    one line per topic whose deletion failed."""
    result = topics_deleted(plan.delete_topics, plan.gone_topics, progress, interrupted)
    extra = result.message()
    outcome.internal_topics = result
    if extra:
        outcome.message = f"{outcome.message}; {extra}" if outcome.message else extra
    return [f"{plan.group}: offsets committed and verified, but {e}" for e in result.errors]


def delete_with_internal_topics(
    admin: Any, group_ids: Sequence[str], *, force: bool = False
) -> tuple[GroupRows, list[str], str | None]:
    """`delete --delete-all-internal-topics` (kafka-streams-groups `--delete
    --delete-all-internal-topics`): the internal topics are read from each topology first,
    the groups deleted as `kgroup delete` deletes them, then the internal topics of each group
    deleted. Returns the rows (with `deleted_topics` and each topic's status in
    `internal_topics`), one line per failed topic deletion, and the signal ("SIGINT",
    "SIGTERM": `interrupts.Terminated`, while the CLI's `Interrupts` is installed) that stopped
    the topic deletions, if any (during a DeleteTopics or between two): the rows then say what
    is known. An interrupt during DeleteGroups (the rows' `interrupted`) deletes no topic."""
    from kgroup.core.share_groups import share_groups_among
    from kgroup.core.wire.delete_topics import DeletionProgress, delete_topics
    from kgroup.delete.groups import delete_inactive_groups
    from kgroup.reset.interrupts import INTERRUPTS, signal_of

    share_groups_among(admin, group_ids)  # learns every group's type
    reset = read_streams_groups(admin, group_ids, TopicDeletion(all_internal=True))
    existing = admin.topics(include_internal=True)
    rows = delete_inactive_groups(admin, group_ids, force=force)
    timeout_ms = int(admin.timeout_s * 1000)
    interrupted = rows.interrupted  # stopped during DeleteGroups: no topic is deleted
    progress = {row["group"]: DeletionProgress() for row in rows}
    said: dict[str, list[str]] = {}  # group -> its failures, once its row is said

    def say(row: dict[str, Any], interrupted: bool) -> None:
        topology = reset.topologies.get(row["group"])
        said[row["group"]] = _row_said(row, topology, existing, progress[row["group"]], interrupted)

    try:
        for row in rows:
            topology = reset.topologies.get(row["group"])
            wanted = _deletable(topology, existing) if row["status"] == "deleted" else []
            if interrupted is None and wanted:
                delete_topics(admin.wire, wanted, timeout_ms, progress[row["group"]])
            say(row, interrupted is not None)
    except INTERRUPTS as exc:  # during a DeleteTopics or between two: the rest not asked
        interrupted = signal_of(exc)
    for row in rows:
        if row["group"] not in said:
            say(row, True)
    return rows, [line for row in rows for line in said[row["group"]]], interrupted


def _deletable(topology: StreamsTopology | None, existing: Container[str]) -> list[str]:
    """The internal topics of a deleted group's topology that the cluster still has."""
    if topology is None:
        return []
    return [t for t in internal_topics(topology).deletable if t in existing]


def _row_said(
    row: dict[str, Any],
    topology: StreamsTopology | None,
    existing: Container[str],
    progress: Any,
    interrupted: bool,
) -> list[str]:
    """A `delete` row's internal topics, as far as `progress` knows them (none for a group not
    deleted); returns one line per topic whose deletion failed."""
    row["deleted_topics"] = []
    row["internal_topics"] = []
    if row["status"] != "deleted" or topology is None:
        return []
    internal = internal_topics(topology)
    wanted = [t for t in internal.deletable if t in existing]
    gone = [t for t in internal.deletable if t not in existing]
    result = topics_deleted(wanted, gone, progress, interrupted)
    kept = [
        f"internal topic {t} is not named as {row['group']}'s: kept" for t in internal.not_inferred
    ]
    said = [m for m in (result.message(), *kept) if m]
    row["deleted_topics"] = result.topics("deleted")
    row["internal_topics"] = result.listed()
    row["message"] = "; ".join(said) or None
    return [f"{row['group']}: deleted, but {e}" for e in result.errors]
