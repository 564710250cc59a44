"""Rebalance sequences and their metrics.

Source of truth: ASSIGNORS.md ("Metrics per step"), Kafka's rebalance protocols: eager
(`range`, `roundrobin`, `sticky`: every member revokes everything, rejoins with its previous
assignment in userData, the leader assigns), cooperative (`cooperative-sticky`, KIP-429, below)
and the KIP-848 coordinator (`uniform`, `server-range`: a new target assignment computed from the
current target assignment).

Cooperative rebalances are the consumers' own loop (Kafka `ConsumerCoordinator`):
- `onJoinPrepare` (COOPERATIVE): before it rejoins, a member revokes the partitions of topics it
  no longer subscribes to, so its next Subscription's ownedPartitions exclude them;
- the leader runs `CooperativeStickyAssignor.assign`, which leaves out the partitions whose owner
  must revoke them first; the Subscription carries ownedPartitions and the member's generation
  (KIP-792), and the assignor resolves double claims by the highest generation;
- `onJoinComplete`: a member that lost partitions revokes them and requests a rejoin, which makes
  every member rejoin: one more round, at the next generation. The step ends with the first round
  in which nobody revoked anything (Java commonly needs 3 or more rounds); a step that has not
  settled after `MAX_COOPERATIVE_ROUNDS` rounds is an error. `rounds` counts them, `revoke_phase`
  is the assignment after the first round when there was more than one;
- what a member sends as ownedPartitions is `SubscriptionState.assignedPartitionsList()` after
  `assignFromSubscribed(new HashSet<>(assignment.partitions()))`: Java's hash order, batched by
  topic (`_consumer_owned_order`), which the assignor's general path depends on.
The scenario's own `owned` lists are taken as the members send them at the first rebalance,
less the partitions of topics the member no longer subscribes to: `onJoinPrepare` runs before
that JoinGroup too, so a Java consumer never claims them (issue 28: a member of a higher
generation claiming a partition of a topic it left would otherwise take it from its
generation-less owner in `allSubscriptionsEqual`, and the partition would move).

Each step reruns the strategy on the group as it is after one event. Generations follow the
client protocol: every rebalance bumps the group generation and every member then holds its
assignment at that generation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kgroup.assign import SERVER_STRATEGIES, get_assignor
from kgroup.assign.javaorder import (
    JavaHashTable,
    hashmap_order,
    presize_for_copy,
    string_hash,
)
from kgroup.assign.model import TP, Assignment, GroupInput, MemberMeta, TopicMeta
from kgroup.assign.scenario import Event, Scenario, apply_event
from kgroup.core.errors import KgroupError

MAX_COOPERATIVE_ROUNDS = 20
"""Cooperative rebalance rounds one step may take before kgroup gives up (Java settles in a few)."""


@dataclass
class Step:
    """One rebalance: the event that caused it, the result and its metrics."""

    event: str
    assignment: Assignment  # member -> partitions, sorted
    metrics: dict[str, Any]
    revoke_phase: Assignment | None = None  # cooperative: the assignment after round 1
    rounds: int = 1  # rebalance rounds until no member revoked anything (cooperative)


@dataclass
class Simulation:
    strategy: str
    steps: list[Step] = field(default_factory=list)


@dataclass(frozen=True)
class Progress:
    """Where a simulation is: about to run round `round` of step `step` (0-based) of `steps`."""

    strategy: str
    step: int
    steps: int
    event: str
    round: int = 1


OnProgress = Callable[[Progress], None]


def simulate(
    scenario: Scenario, strategy: str, on_progress: OnProgress | None = None
) -> Simulation:
    """Run `strategy` on the scenario's group, then once per event; `on_progress` is told
    before every rebalance round (long runs show it on a terminal)."""
    report = on_progress or _no_progress
    assign = get_assignor(strategy)
    topics = dict(scenario.topics)
    members = list(scenario.members)
    known = [g for m in members if (g := m.generation) is not None]
    generation = max(known) if known else 0
    sim = Simulation(strategy)
    events: list[Event | None] = [None, *scenario.events]
    for index, event in enumerate(events):
        if event is not None:
            topics, members = apply_event(topics, members, event)
        before = {m.member_id: list(m.owned) for m in members}
        label = event.label if event is not None else "initial"
        where = Progress(strategy, index, len(events), label)
        report(where)
        if strategy == "cooperative-sticky":
            # every JoinGroup follows onJoinPrepare, the first one too; the scenario's owned
            # lists are otherwise sent in the order written
            members = [_revoke_unsubscribed(_sent_order(m) if index else m) for m in members]
            result, phase1, generation, rounds, members = _cooperative_rounds(
                topics, members, generation, label, lambda r, at=where: report(replace(at, round=r))
            )
        else:
            result, phase1, generation = _rebalance(strategy, assign, topics, members, generation)
            rounds = 1
            members = [
                replace(m, owned=tuple(result.get(m.member_id, ())), generation=generation)
                for m in members
            ]
        metrics = compute_metrics(topics, members, before, result, phase1)
        sim.steps.append(
            Step(
                label,
                {m: sorted(result.get(m, [])) for m in sorted(result)},
                metrics,
                None if phase1 is None else {m: sorted(phase1[m]) for m in sorted(phase1)},
                rounds,
            )
        )
    return sim


def _rebalance(
    strategy: str,
    assign: Any,
    topics: dict[str, TopicMeta],
    members: list[MemberMeta],
    generation: int,
) -> tuple[Assignment, Assignment | None, int]:
    if strategy in SERVER_STRATEGIES:
        group = GroupInput(topics, members)
        result = assign(group)
        return {m.member_id: list(result.get(m.member_id, [])) for m in members}, None, generation
    # eager client protocols: owned/generation travel as the sticky assignor's userData
    group = GroupInput(topics, members)
    result = assign(group)
    return result, None, generation + 1


def _no_progress(_where: Progress) -> None:
    return None


def _cooperative_rounds(
    topics: dict[str, TopicMeta],
    members: list[MemberMeta],
    generation: int,
    label: str,
    on_round: Callable[[int], None] = lambda _r: None,
) -> tuple[Assignment, Assignment | None, int, int, list[MemberMeta]]:
    """Rebalance rounds until no member revoked anything (`ConsumerCoordinator.onJoinComplete`:
    revoked partitions -> `requestRejoin`). Returns the final assignment, the first round's
    assignment when there were several, the generation, the rounds and the members as they
    then are (owning their assignment as the leader listed it: `_sent_order` turns that into
    the ownedPartitions they send at the next rebalance)."""
    from kgroup.assign.sticky import cooperative_result

    first: Assignment | None = None
    for rounds in range(1, MAX_COOPERATIVE_ROUNDS + 1):
        if rounds > 1:
            on_round(rounds)
            members = [_sent_order(m) for m in members]
        assignment, _transferring = cooperative_result(GroupInput(topics, members))
        generation += 1  # every round is a new generation, held by every member
        revoked: list[tuple[TP, str]] = []
        after = []
        for m in members:
            got = assignment.get(m.member_id, [])
            if m.owned:
                kept = set(got)
                revoked.extend((tp, m.member_id) for tp in m.owned if tp not in kept)
            # the leader's list; put in the order the member sends it only when it is sent
            after.append(replace(m, owned=tuple(got), generation=generation))
        members = after
        result = {m: list(p) for m, p in assignment.items()}
        if first is None:
            first = result
        if not revoked:
            return result, first if rounds > 1 else None, generation, rounds, members
    (topic, partition), member = min(revoked)
    if any(m.rack for m in members):
        hint = (
            "in Kafka's code a member with a rack loses a partition that has no replica on its "
            "rack at every rebalance (the sticky assignors' rack-aware general path), and the "
            "partition may go to another such member: give those members a matching rack, or none"
        )
    else:
        hint = "please report the scenario: Kafka's consumers settle in a few rounds"
    raise KgroupError(
        f"step {label}: cooperative-sticky did not settle: members still revoked partitions "
        f"after {MAX_COOPERATIVE_ROUNDS} rebalance rounds ({len(revoked)} in the last one, "
        f"{topic}-{partition} from {member})",
        hint=hint,
    )


def _sent_order(member: MemberMeta) -> MemberMeta:
    """The member with `owned` (the leader's list of its last assignment) in the order of the
    ownedPartitions it sends when it rejoins."""
    return replace(member, owned=_consumer_owned_order(member.owned))


def _revoke_unsubscribed(member: MemberMeta) -> MemberMeta:
    """`ConsumerCoordinator.onJoinPrepare` (COOPERATIVE): partitions of topics no longer in the
    subscription are revoked before rejoining; what is left is `assignFromSubscribed(owned)`,
    from a `HashSet` copy of the previous assignedPartitions."""
    subscribed = set(member.topics)
    if all(t in subscribed for t, _p in member.owned):
        return member
    in_set = _hashset_order(list(member.owned))
    kept = [tp for tp in in_set if tp[0] in subscribed]
    return replace(member, owned=_assigned_partitions_list(kept))


def _tp_hashes(parts: Sequence[TP]) -> list[int]:
    """`TopicPartition.hashCode()` = `31 * (31 + partition) + topic.hashCode()` (unsigned)."""
    base = {t: 961 + string_hash(t) for t in {t for t, _p in parts}}
    return [(base[t] + 31 * p) & 0xFFFFFFFF for t, p in parts]


def _hashset_order(parts: Sequence[TP]) -> list[TP]:
    """Iteration order of `new HashSet<>(parts)`."""
    return hashmap_order(parts, _tp_hashes(parts), presize_for_copy(len(parts)))


def _assigned_partitions_list(in_order: Sequence[TP]) -> tuple[TP, ...]:
    """`SubscriptionState.assignFromSubscribed(collection)` then `assignedPartitionsList()`:
    a `new HashMap<>(size)` filled in the collection's order, then `PartitionStates.set`
    batches its keys by topic (LinkedHashMap, topics in first-seen order)."""
    ordered = hashmap_order(in_order, _tp_hashes(in_order), len(in_order))
    by_topic: dict[str, list[TP]] = {}
    for tp in ordered:
        by_topic.setdefault(tp[0], []).append(tp)
    return tuple(tp for group in by_topic.values() for tp in group)


def _consumer_owned_order(assigned: Sequence[TP]) -> tuple[TP, ...]:
    """The ownedPartitions a member sends after being assigned `assigned` (the leader's list).

    The assignment travels as `ConsumerProtocol.serializeAssignment`: partitions grouped by
    `CollectionUtils.groupPartitionsByTopic` (a `HashMap` filled with `computeIfAbsent`), each
    topic's partitions in the leader's order; the member reads them back in that order, then
    `onJoinComplete` calls `assignFromSubscribed(new HashSet<>(assignment.partitions()))`.
    """
    if not assigned:
        return ()
    grouped: dict[str, list[TP]] = {}
    topics = JavaHashTable(string_hash)
    for tp in assigned:
        if tp[0] not in grouped:
            grouped[tp[0]] = []
            topics.compute_if_absent(tp[0])
        grouped[tp[0]].append(tp)
    wire = [tp for t in topics.order() for tp in grouped[t]] if len(grouped) > 1 else list(assigned)
    return _assigned_partitions_list(_hashset_order(wire))


def compute_metrics(
    topics: dict[str, TopicMeta],
    members: Sequence[MemberMeta],
    before: dict[str, list[TP]],
    after: Assignment,
    phase1: Assignment | None = None,
) -> dict[str, Any]:
    """Balance, movement, stickiness and rack locality of one rebalance."""
    per_member = {m.member_id: len(after.get(m.member_id, [])) for m in members}
    counted = [per_member[m.member_id] for m in members if _subscribes(m, topics)]
    spread = (max(counted) - min(counted)) if counted else 0
    previous_owner: dict[TP, str] = {}
    for member, parts in before.items():
        for tp in parts:
            previous_owner[tp] = member
    owner = {tp: m for m, parts in after.items() for tp in parts}
    moved = kept = reassigned = 0
    for tp, new in owner.items():
        old = previous_owner.get(tp)
        if old is None:
            reassigned += 1
        elif old == new:
            kept += 1
        else:
            moved += 1
    previously_owned = sum(len(parts) for parts in before.values())
    subscribed = {t for m in members for t in m.topics if t in topics}
    total = sum(topics[t].partitions for t in subscribed)
    metrics: dict[str, Any] = {
        "members": len(members),
        "partitions": total,
        "assigned": len(owner),
        "per_member": per_member,
        "spread": spread,
        "moved": moved,
        "reassigned": reassigned,
        "kept": kept,
        "previously_owned": previously_owned,
        "stickiness": round(kept / previously_owned, 4) if previously_owned else None,
        "rack_local": _rack_local(topics, members, owner),
    }
    if phase1 is not None:
        revoked = sum(len(set(before.get(m, ())) - set(phase1.get(m, ()))) for m in before)
        assigned_phase2 = sum(len(set(after.get(m, ())) - set(phase1.get(m, ()))) for m in after)
        metrics["revoked_phase1"] = revoked
        metrics["assigned_phase2"] = assigned_phase2
    return metrics


def _subscribes(member: MemberMeta, topics: dict[str, TopicMeta]) -> bool:
    return any(t in topics and topics[t].partitions > 0 for t in member.topics)


def _rack_local(
    topics: dict[str, TopicMeta], members: Sequence[MemberMeta], owner: dict[TP, str]
) -> float | None:
    racks = {m.member_id: m.rack for m in members if m.rack}
    if not racks or not any(t.racks for t in topics.values()) or not owner:
        return None
    local = sum(
        1 for (t, p), m in owner.items() if m in racks and racks[m] in topics[t].replica_racks(p)
    )
    return round(local / len(owner), 4)


def compact_partitions(parts: Sequence[TP]) -> str:
    """`topic:0-3,7;other:1` for a member's partitions."""
    by_topic: dict[str, list[int]] = {}
    for t, p in sorted(parts):
        by_topic.setdefault(t, []).append(p)
    chunks = []
    for t, ps in by_topic.items():
        ranges = []
        start = prev = ps[0]
        for p in ps[1:]:
            if p == prev + 1:
                prev = p
                continue
            ranges.append(f"{start}-{prev}" if prev > start else str(start))
            start = prev = p
        ranges.append(f"{start}-{prev}" if prev > start else str(start))
        chunks.append(f"{t}:{','.join(ranges)}")
    return ";".join(chunks)
