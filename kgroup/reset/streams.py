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


# What became of one internal topic kgroup was to delete (`internal_topics` in the JSON).
TOPIC_STATUSES = ("deleted", "already_gone", "not_deleted", "unknown")


def topics_said(statuses: Mapping[str, str]) -> str:
    """Each internal topic's fate in a few words (an interrupted run's line for its group)."""
    words = {
        "deleted": "deleted",
        "already_gone": "already gone",
        "not_deleted": "not deleted",
        "unknown": "unknown whether deleted",
    }
    said = []
    for status in TOPIC_STATUSES:
        topics = [t for t, s in statuses.items() if s == status]
        if topics:
            said.append(f"{words[status]}: {', '.join(topics)}")
    return f"internal topics {'; '.join(said)}" if said else ""


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
    answered: Mapping[str, KgroupError | None],
    asked: Iterable[str] = (),
    interrupted: bool = False,
) -> TopicsDeleted:
    """Each topic's status from what DeleteTopics answered for `wanted` (None: deleted;
    NotFoundError, UNKNOWN_TOPIC_OR_PARTITION: already gone) and `gone`, the topics the metadata
    lacked (already gone, not asked for). Unanswered: `unknown` if its request was sent
    (`asked`), else `not_deleted`; answered REQUEST_TIMED_OUT (deletion started, not seen
    complete in the request's timeout) or sent and its answer lost: `unknown`, a failure
    still."""
    from kgroup.core.wire.delete_topics import outcome_unknown

    asked = set(asked)
    result = TopicsDeleted({}, interrupted=interrupted)
    for topic in wanted:
        if topic not in answered:
            result.statuses[topic] = "unknown" if topic in asked else "not_deleted"
            continue
        error = answered[topic]
        if error is None:
            result.statuses[topic] = "deleted"
        elif isinstance(error, NotFoundError):
            result.statuses[topic] = "already_gone"
        else:  # REQUEST_TIMED_OUT, or the answer lost: it may be deleted
            result.statuses[topic] = "unknown" if outcome_unknown(error) else "not_deleted"
            result.failed[topic] = error.one_line()
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
    and read back first). Each outcome gets every topic's status and the topics deleted;
    returns one line per group whose deletion failed (the run then exits 1: its offsets are
    committed). Ctrl-C or SIGTERM (`apply.Terminated`, while run.py's handler stays installed)
    anywhere in the deletions (during a DeleteTopics or between two) stops them:
    `report.interrupted` names the signal and the outcomes say what is known (deleted, not
    deleted, unknown), as for an interrupted commit; a run interrupted before
    (`report.interrupted`) deletes nothing."""
    from kgroup.reset.apply import EXIT_SIGINT, EXIT_SIGTERM, Terminated

    by_group = {o.group: o for o in report.outcomes}
    todo = [p for p in plans if (p.delete_topics or p.gone_topics) and p.group in by_group]
    failures: list[str] = []
    if not todo:
        return failures
    from kgroup.core.wire.delete_topics import DeletionProgress, delete_topics

    timeout_ms = int(admin.timeout_s * 1000)
    interrupted = report.interrupted  # Ctrl-C during the resets: every group stops, none deletes
    progress: dict[str, DeletionProgress] = {}  # the groups whose deletion was started
    done: set[str] = set()
    try:
        for plan in todo:
            outcome = by_group[plan.group]
            if outcome.status != "committed":
                if plan.delete_topics:  # a landed commit is not "not committed" (apply.LANDED)
                    said = UNVERIFIED.get(outcome.status, "not committed")
                    note(f"{plan.group}: {said}: internal topics not deleted")
                outcome.internal_topics = topics_deleted(
                    plan.delete_topics, plan.gone_topics, {}
                ).statuses
                done.add(plan.group)
                continue
            asked = progress[plan.group] = DeletionProgress()
            if interrupted is None and plan.delete_topics:
                try:
                    delete_topics(admin.wire, plan.delete_topics, timeout_ms, asked)
                except (KeyboardInterrupt, Terminated) as exc:
                    interrupted = "SIGTERM" if isinstance(exc, Terminated) else "SIGINT"
            failures += _said_deleted(plan, outcome, asked, interrupted is not None)
            done.add(plan.group)
    except (KeyboardInterrupt, Terminated) as exc:  # between two deletions: the rest not asked
        interrupted = "SIGTERM" if isinstance(exc, Terminated) else "SIGINT"
        for plan in todo:
            if plan.group in done:
                continue
            outcome = by_group[plan.group]
            if outcome.status != "committed":
                result = topics_deleted(plan.delete_topics, plan.gone_topics, {})
                outcome.internal_topics = result.statuses
            else:
                asked = progress.get(plan.group, DeletionProgress())
                failures += _said_deleted(plan, outcome, asked, True)
    if interrupted is not None:
        report.interrupted = interrupted
        code = EXIT_SIGTERM if interrupted == "SIGTERM" else EXIT_SIGINT
        for outcome in report.outcomes:
            outcome.exit_code = code
    return failures


def _said_deleted(plan: GroupPlan, outcome: Any, progress: Any, interrupted: bool) -> list[str]:
    """A committed group's topics, as far as `progress` knows them, onto its outcome; returns
    one line per topic whose deletion failed."""
    result = topics_deleted(
        plan.delete_topics,
        plan.gone_topics,
        progress.answered,
        progress.asked,
        interrupted=interrupted,
    )
    extra = result.message()
    outcome.internal_topics = result.statuses
    outcome.deleted_topics = tuple(result.topics("deleted"))
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
    "SIGTERM") that stopped the topic deletions, if any (during a DeleteTopics or between
    two): the rows then say what is known. An interrupt during DeleteGroups (the rows'
    `interrupted`) deletes no topic."""
    from kgroup.core.share_groups import share_groups_among
    from kgroup.core.wire.delete_topics import DeletionProgress, delete_topics
    from kgroup.delete.groups import delete_inactive_groups
    from kgroup.reset.apply import Terminated
    from kgroup.reset.run import terminate_as_interrupt

    share_groups_among(admin, group_ids)  # learns every group's type
    reset = read_streams_groups(admin, group_ids, TopicDeletion(all_internal=True))
    existing = admin.topics(include_internal=True)
    rows = delete_inactive_groups(admin, group_ids, force=force)
    failures: list[str] = []
    timeout_ms = int(admin.timeout_s * 1000)
    interrupted = rows.interrupted  # stopped during DeleteGroups: no topic is deleted
    progress: dict[str, DeletionProgress] = {}  # the groups whose deletion was started
    done: set[str] = set()
    restore = terminate_as_interrupt()  # the groups are gone: SIGTERM too must let rows be said
    try:
        for row in rows:  # _row_said gives every row its topic fields, on every path
            asked = progress[row["group"]] = DeletionProgress()
            topology = reset.topologies.get(row["group"])
            wanted = _deletable(topology, existing) if row["status"] == "deleted" else []
            if interrupted is None and wanted:
                try:
                    delete_topics(admin.wire, wanted, timeout_ms, asked)
                except (KeyboardInterrupt, Terminated) as exc:
                    interrupted = "SIGTERM" if isinstance(exc, Terminated) else "SIGINT"
            failures += _row_said(row, topology, existing, asked, interrupted is not None)
            done.add(row["group"])
    except (KeyboardInterrupt, Terminated) as exc:  # between two deletions: the rest not asked
        interrupted = "SIGTERM" if isinstance(exc, Terminated) else "SIGINT"
        for row in rows:
            if row["group"] not in done:
                asked = progress.get(row["group"], DeletionProgress())
                topology = reset.topologies.get(row["group"])
                failures += _row_said(row, topology, existing, asked, True)
    finally:
        restore()
    return rows, failures, interrupted


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
    result = topics_deleted(wanted, gone, progress.answered, progress.asked, interrupted)
    kept = [
        f"internal topic {t} is not named as {row['group']}'s: kept" for t in internal.not_inferred
    ]
    said = [m for m in (result.message(), *kept) if m]
    row["deleted_topics"] = result.topics("deleted")
    row["internal_topics"] = result.listed()
    row["message"] = "; ".join(said) or None
    return [f"{row['group']}: deleted, but {e}" for e in result.errors]
