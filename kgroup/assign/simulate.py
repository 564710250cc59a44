"""Rebalance sequences and their metrics.

Source of truth: ASSIGNORS.md ("Metrics per step"), Kafka's rebalance protocols: eager
(`range`, `roundrobin`, `sticky`: every member revokes everything, rejoins with its previous
assignment in userData, the leader assigns), cooperative (`cooperative-sticky`, KIP-429: phase 1
assigns without the partitions that must first be revoked; members that lost partitions rejoin
at once and phase 2 hands those out) and the KIP-848 coordinator (`uniform`, `server-range`:
a new target assignment computed from the current target assignment).

Each step reruns the strategy on the group as it is after one event. Generations follow the
client protocol: every rebalance bumps the group generation and every member then holds its
assignment at that generation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kgroup.assign import SERVER_STRATEGIES, get_assignor
from kgroup.assign.model import TP, Assignment, GroupInput, MemberMeta, TopicMeta
from kgroup.assign.scenario import Event, Scenario, apply_event


@dataclass
class Step:
    """One rebalance: the event that caused it, the result and its metrics."""

    event: str
    assignment: Assignment  # member -> partitions, sorted
    metrics: dict[str, Any]
    revoke_phase: Assignment | None = None  # cooperative: the phase-1 assignment


@dataclass
class Simulation:
    strategy: str
    steps: list[Step] = field(default_factory=list)


def simulate(scenario: Scenario, strategy: str) -> Simulation:
    """Run `strategy` on the scenario's group, then once per event."""
    assign = get_assignor(strategy)
    topics = dict(scenario.topics)
    members = list(scenario.members)
    known = [g for m in members if (g := m.generation) is not None]
    generation = max(known) if known else 0
    sim = Simulation(strategy)
    events: list[Event | None] = [None, *scenario.events]
    for event in events:
        if event is not None:
            topics, members = apply_event(topics, members, event)
        before = {m.member_id: list(m.owned) for m in members}
        result, phase1, generation = _rebalance(strategy, assign, topics, members, generation)
        members = [
            replace(m, owned=tuple(result.get(m.member_id, ())), generation=generation)
            for m in members
        ]
        metrics = compute_metrics(topics, members, before, result, phase1)
        sim.steps.append(
            Step(
                event.label if event is not None else "initial",
                {m: sorted(result.get(m, [])) for m in sorted(result)},
                metrics,
                None if phase1 is None else {m: sorted(phase1[m]) for m in sorted(phase1)},
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
    if strategy == "cooperative-sticky":
        from kgroup.assign.sticky import cooperative_result

        phase1, transferring = cooperative_result(GroupInput(topics, members))
        generation += 1
        revoked = any(set(m.owned) - set(phase1.get(m.member_id, ())) for m in members)
        if not revoked and not transferring:
            return phase1, None, generation
        second = [
            replace(m, owned=tuple(phase1.get(m.member_id, ())), generation=generation)
            for m in members
        ]
        phase2, _ = cooperative_result(GroupInput(topics, second))
        generation += 1
        return phase2, {m: list(p) for m, p in phase1.items()}, generation
    # eager client protocols: owned/generation travel as the sticky assignor's userData
    group = GroupInput(topics, members)
    result = assign(group)
    return result, None, generation + 1


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
