"""A live group (a `GroupSnapshot` from the core) as a simulate-assign scenario.

Source of truth: ASSIGNORS.md ("--from-group"), Kafka's consumer protocol
(`kgroup.assign.consumer_protocol` cites the specs), and what the coordinator returns:
DescribeGroups carries members' metadata and assignments only for a Stable group (Kafka's
classic `GroupMetadata.summary`), and never the group's generation; librdkafka's describe of a
KIP-848 `consumer` group carries assignments and target assignments but no subscriptions.

What the scenario holds, and why:
- Classic groups: each member's topics and rack (v3) from its subscription metadata, its
  `group.instance.id`, and as `owned` its *current* assignment (the MemberAssignment bytes). The
  subscription's own ownedPartitions / sticky userData were sent at the last join, one rebalance
  ago; at the next rebalance every member sends what it holds now at the group's current
  generation. So members with a current assignment all get the same generation: one more than
  the highest generation any of them sent at that join (the coordinator bumped it once then;
  only the comparison between members matters to the assignors). A member without assignment
  bytes keeps the claim its subscription makes (`member_claim`: userData for `sticky`,
  ownedPartitions and generation otherwise).
- KIP-848 groups: `owned` is the member's target assignment (the server-side assignors are
  sticky to it), else its current assignment; its topics are its subscribed topic names and
  the topics its regex matches (`kgroup.core.topic_regex`), its rack its rack id, all from
  ConsumerGroupDescribe. Described through librdkafka (no subscriptions reported), every member
  is taken to subscribe to the topics of the group's assignments (said in a note).
- The default strategy is the group's assignor: a classic protocol name as is, a KIP-848 server
  assignor `uniform` / `range` as `uniform` / `server-range`.
- Members are in member id order (DescribeGroups' order as kgroup receives it); the assignors
  reproduce Java's member-map iteration order from the ids themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from kgroup.assign import CLIENT_STRATEGIES
from kgroup.assign.consumer_protocol import (
    MalformedData,
    Subscription,
    decode_assignment,
    decode_subscription,
    member_claim,
    rack,
)
from kgroup.assign.model import TP, MemberMeta, TopicMeta
from kgroup.assign.scenario import Scenario
from kgroup.core.errors import CorruptInputError, KafkaOperationError, NotFoundError, UsageError
from kgroup.core.models import GroupSnapshot, MemberDescription, TopicMetadata
from kgroup.core.topic_regex import topics_matching
from kgroup.core.wire.member_protocol import pairs

T = TypeVar("T")

SERVER_ASSIGNORS = {"uniform": "uniform", "range": "server-range"}


@dataclass
class GroupScenario:
    """The scenario built from a live group, the group's assignor, and what the user should know
    about how it was built (printed on stderr)."""

    scenario: Scenario
    protocol: str | None  # the group's assignor name as the broker reported it
    strategy: str | None  # that assignor as a kgroup strategy, None when kgroup has no such one
    notes: list[str] = field(default_factory=list)


def scenario_from_group(snapshot: GroupSnapshot) -> GroupScenario:
    """The scenario for simulating the group's next rebalances."""
    group = snapshot.group
    if not group.members:
        raise NotFoundError(
            f"group {group.group_id} has no members (state {group.state}): nothing to simulate",
            hint="simulate a planned group with --members and --topics, or --scenario FILE",
        )
    topics = {name: _topic_meta(meta) for name, meta in snapshot.topics.items()}
    if group.type == "consumer":
        return _consumer_group(snapshot, topics)
    if group.type != "classic":
        raise UsageError(
            f"group {group.group_id} is a {group.type!r} group: simulate-assign models consumer "
            "groups (classic and KIP-848)"
        )
    return _classic_group(snapshot, topics)


def _topic_meta(meta: TopicMetadata) -> TopicMeta:
    racks = None
    if any(meta.replica_racks):
        racks = tuple(frozenset(r) for r in meta.replica_racks)
    return TopicMeta(meta.name, meta.partitions, racks, meta.topic_id)


def _classic_group(snapshot: GroupSnapshot, topics: dict[str, TopicMeta]) -> GroupScenario:
    group = snapshot.group
    if group.protocol_type not in (None, "", "consumer"):
        raise UsageError(
            f"group {group.group_id} uses protocol type {group.protocol_type!r}, not 'consumer': "
            "its members' metadata are not consumer subscriptions"
        )
    missing = [m.member_id for m in group.members if not m.raw_metadata]
    if missing:
        raise _no_subscriptions(snapshot, missing)
    protocol = group.assignor
    notes: list[str] = []
    decoded: list[tuple[MemberDescription, Subscription, tuple[TP, ...] | None]] = []
    sent_generations: list[int] = []
    for member in group.members:
        sub = _decode(
            member.member_id,
            "subscription metadata",
            decode_subscription,
            member.raw_metadata or b"",
        )
        current = None
        if member.raw_assignment:
            assigned = _decode(
                member.member_id, "assignment", decode_assignment, member.raw_assignment
            )
            current = pairs(assigned.message.assigned_partitions)
        _owned, generation = member_claim(protocol, sub)
        if generation is not None:
            sent_generations.append(generation)
        decoded.append((member, sub, current))
    now = max([0, *sent_generations]) + 1
    members: list[MemberMeta] = []
    gone: set[str] = set()
    for member, sub, current in decoded:
        if current is not None:
            owned, generation = current, now
        else:
            owned, generation = member_claim(protocol, sub)
            notes.append(
                f"member {member.member_id} has no current assignment: its claim is the one "
                "its subscription makes"
            )
        kept = _existing(owned, topics, gone)
        members.append(
            MemberMeta(
                member.member_id,
                sub.message.topics,
                rack=rack(sub),
                instance_id=member.group_instance_id,
                owned=kept,
                generation=generation,
            )
        )
    _note_topics(members, topics, gone, notes)
    strategy = protocol if protocol in CLIENT_STRATEGIES else None
    if protocol and strategy is None:
        notes.append(
            f"group {group.group_id} uses assignor {protocol!r}, which kgroup does not simulate"
        )
    scenario = Scenario(dict(topics), members)
    scenario.validate()
    return GroupScenario(scenario, protocol, strategy, notes)


def _consumer_group(snapshot: GroupSnapshot, topics: dict[str, TopicMeta]) -> GroupScenario:
    group = snapshot.group
    notes: list[str] = []
    assigned_topics = sorted(
        {tp.topic for m in group.members for tp in (*m.assignment, *(m.target_assignment or ()))}
    )
    unreported = [m.member_id for m in group.members if m.subscription is None]
    if unreported:
        if not assigned_topics:
            raise KafkaOperationError(
                f"group {group.group_id} is a KIP-848 group whose members are assigned no "
                "partitions, and librdkafka's describe does not report their subscriptions: "
                "nothing to build a scenario from",
                hint="write the group as a scenario file and use --scenario",
            )
        notes.append(
            f"group {group.group_id} is a KIP-848 group described through librdkafka, which "
            "does not report subscriptions or racks; "
            f"{_ids(unreported)} taken to subscribe to {', '.join(assigned_topics)} (the topics "
            "of the group's assignments)"
        )
    gone: set[str] = set()
    members = []
    for m in group.members:
        source = m.target_assignment if m.target_assignment is not None else m.assignment
        owned = _existing(tuple((tp.topic, tp.partition) for tp in source), topics, gone)
        members.append(
            MemberMeta(
                m.member_id,
                _member_topics(m, assigned_topics, topics, notes),
                m.rack,
                m.group_instance_id,
                owned,
            )
        )
    _note_topics(members, topics, gone, notes)
    protocol = group.assignor
    strategy = SERVER_ASSIGNORS.get(protocol or "")
    if protocol and strategy is None:
        notes.append(
            f"group {group.group_id} uses server assignor {protocol!r}, which kgroup "
            "does not simulate"
        )
    scenario = Scenario(dict(topics), members)
    scenario.validate()
    return GroupScenario(scenario, protocol, strategy, notes)


def _member_topics(
    member: MemberDescription,
    assigned_topics: list[str],
    topics: dict[str, TopicMeta],
    notes: list[str],
) -> tuple[str, ...]:
    """A KIP-848 member's subscription: its topic names and the topics its regex matches
    (`topics` holds every topic any member's regex matched: `snapshot_group` asked for them)."""
    if member.subscription is None:
        return tuple(assigned_topics)
    names = set(member.subscription)
    if member.subscribed_topic_regex:
        matched = topics_matching(member.subscribed_topic_regex, topics)
        if matched is None:
            notes.append(
                f"member {member.member_id}'s regex {member.subscribed_topic_regex!r} does not "
                "compile here; it is left out, as Kafka leaves out a regex it cannot parse"
            )
        names.update(matched or ())
    return tuple(sorted(names))


def _ids(member_ids: list[str]) -> str:
    shown = ", ".join(member_ids[:5])
    more = f" and {len(member_ids) - 5} more" if len(member_ids) > 5 else ""
    if len(member_ids) == 1:
        return f"member {shown} is"
    return f"members {shown}{more} are"


def _decode(member_id: str, what: str, decoder: Callable[[bytes], T], data: bytes) -> T:
    try:
        return decoder(data)
    except MalformedData as exc:
        raise CorruptInputError(
            f"member {member_id}'s {what} is malformed: {exc}",
            hint="the broker returned bytes that do not follow Kafka's consumer protocol",
            source=f"member {member_id} {what}",
            position=exc.position,
        ) from exc


def _existing(
    owned: tuple[TP, ...], topics: dict[str, TopicMeta], gone: set[str]
) -> tuple[TP, ...]:
    """Owned partitions that still exist (Kafka's assignors drop the others)."""
    kept = []
    for t, p in owned:
        meta = topics.get(t)
        if meta is None or p >= meta.partitions:
            gone.add(f"{t}-{p}")
            continue
        kept.append((t, p))
    return tuple(kept)


def _note_topics(
    members: list[MemberMeta], topics: dict[str, TopicMeta], gone: set[str], notes: list[str]
) -> None:
    absent = sorted({t for m in members for t in m.topics if t not in topics})
    if absent:
        notes.append(
            f"subscribed topics that do not exist are left out, as Kafka's assignors leave them "
            f"out: {', '.join(absent)}"
        )
    if gone:
        notes.append(
            f"owned partitions that no longer exist are dropped: {', '.join(sorted(gone))}"
        )


def _no_subscriptions(snapshot: GroupSnapshot, missing: list[str]) -> KafkaOperationError:
    group = snapshot.group
    ids = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    if snapshot.via != "DescribeGroups":
        return KafkaOperationError(
            f"no subscription data for the members of group {group.group_id}: kgroup described "
            "it through librdkafka, whose answer leaves out member metadata",
            hint="kgroup's own batched client (which returns it) is off for this connection's "
            "security settings (see --verbose); write the group as a scenario file and use "
            "--scenario",
        )
    if group.state != "Stable":
        return KafkaOperationError(
            f"group {group.group_id} is in state {group.state}: Kafka returns members' "
            f"subscriptions only for a Stable group (member ids only: {ids})",
            hint="retry when the rebalance is over",
        )
    return KafkaOperationError(
        f"the broker returned no subscription data for the members of group {group.group_id} "
        f"(DescribeGroups gave member ids only: {ids})",
        hint="Apache Kafka returns members' metadata for a Stable group; with this broker, "
        "write the group as a scenario file and use --scenario",
    )
