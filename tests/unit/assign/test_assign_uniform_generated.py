"""Seeded random scenarios for the KIP-848 `uniform` assignor: the invariants Kafka's
`UniformHomogeneousAssignmentBuilder` / `UniformHeterogeneousAssignmentBuilder` guarantee.

Scenario classes as in issue 17: fresh groups, event chains (join / leave / subscribe /
partition count grows), static members, explicit current assignments in any order, empty
subscriptions. Per step: no crash; every subscribed partition assigned exactly once, only to a
subscriber; homogeneous groups within one partition of each other and sticky up to the quota;
heterogeneous groups: no member owns a partition of a topic while another subscriber of that
topic has two or fewer partitions than it (Kafka's own test check); the result does not depend
on the order the scenario lists owned partitions in.
"""

from __future__ import annotations

import random

import pytest

from kgroup.assign.model import GroupInput, MemberMeta, TopicMeta
from kgroup.assign.scenario import Event, Scenario
from kgroup.assign.simulate import simulate
from kgroup.assign.uniform import assign_uniform

SEEDS = range(800)


def random_scenario(rng: random.Random) -> Scenario:
    topics = {}
    small = rng.random() < 0.3
    for i in range(rng.randint(1, 6)):
        name = f"t{i}"
        topics[name] = TopicMeta(name, rng.randint(1, 12 if small else 40))
    names = list(topics)
    homogeneous = rng.random() < 0.4
    common = tuple(rng.sample(names, rng.randint(1, len(names))))
    members = []
    for i in range(rng.randint(1, 12)):
        subs = common if homogeneous else tuple(rng.sample(names, rng.randint(0, len(names))))
        instance = f"inst-{i}" if rng.random() < 0.3 else None
        members.append(MemberMeta(f"m{i}-{rng.randrange(10**6)}", subs, instance_id=instance))
    if rng.random() < 0.4:  # explicit current assignments, possibly conflicting, any order
        owned: dict[str, list] = {m.member_id: [] for m in members}
        for t, meta in topics.items():
            for p in range(meta.partitions):
                if rng.random() < 0.6:
                    holder = rng.choice(members)
                    if t in holder.topics or rng.random() < 0.2:
                        owned[holder.member_id].append((t, p))
        members = [
            MemberMeta(
                m.member_id,
                m.topics,
                instance_id=m.instance_id,
                owned=tuple(rng.sample(owned[m.member_id], len(owned[m.member_id]))),
            )
            for m in members
        ]
    events = []
    live = [m.member_id for m in members]
    sizes = {t: meta.partitions for t, meta in topics.items()}
    for j in range(rng.randint(0, 5)):
        kind = rng.choice(["join", "leave", "subscribe", "partitions"])
        if kind == "leave" and len(live) > 1:
            gone = rng.choice(live)
            live.remove(gone)
            events.append(Event("leave", member_id=gone))
        elif kind == "subscribe" and live:
            subs = tuple(rng.sample(names, rng.randint(0, len(names))))
            events.append(Event("subscribe", member_id=rng.choice(live), topics=subs))
        elif kind == "partitions":
            t = rng.choice(names)
            grown = sizes[t] = sizes[t] + rng.randint(1, 10)
            events.append(Event("partitions", topic=t, count=grown))
        else:
            new = f"new-{j}-{rng.randrange(10**4)}"
            live.append(new)
            subs = common if homogeneous else tuple(rng.sample(names, rng.randint(1, len(names))))
            events.append(Event("join", member_id=new, topics=subs))
    return Scenario(topics, members, events)


def check_group(group: GroupInput, result: dict[str, list[tuple[str, int]]]) -> None:
    members = {m.member_id: m for m in group.members}
    subs = {m.member_id: {t for t in m.topics if t in group.topics} for m in group.members}
    owner: dict[tuple[str, int], str] = {}
    for member, parts in result.items():
        assert member in members
        for tp in parts:
            assert tp not in owner, f"{tp} assigned twice"
            assert tp[0] in subs[member], f"{member} got {tp} without subscribing"
            owner[tp] = member
    wanted = {(t, p) for s in subs.values() for t in s for p in range(group.topics[t].partitions)}
    assert set(owner) == wanted
    counts = {m: len(result.get(m, [])) for m in members}
    active = [m for m in members if subs[m]]
    if not active:
        return
    if all(subs[m] == subs[active[0]] for m in members):
        assert max(counts.values()) - min(counts.values()) <= 1
        quota = len(wanted) // len(members)
        for m in members:
            previous = {tp for tp in members[m].owned if tp in wanted}
            kept = len(previous & set(result.get(m, [])))
            # a member keeps its partitions up to its quota (double claims: one wins)
            claimed_elsewhere = sum(
                1
                for tp in previous
                if any(tp in o.owned for o in group.members if o is not members[m])
            )
            assert kept >= min(len(previous) - claimed_elsewhere, quota)
    else:
        for (t, _), a in owner.items():
            for b in members:
                if t in subs[b]:
                    assert counts[a] <= counts[b] + 1, (t, a, b, counts)


@pytest.mark.parametrize("seed", SEEDS)
def test_uniform_random_scenario(seed: int) -> None:
    rng = random.Random(seed)
    scenario = random_scenario(rng)
    sim = simulate(scenario, "uniform")
    assert len(sim.steps) == 1 + len(scenario.events)
    # replay the groups the simulation saw, checking every step
    from kgroup.assign.scenario import apply_event

    topics, members = dict(scenario.topics), list(scenario.members)
    for index, step in enumerate(sim.steps):
        if index:
            topics, members = apply_event(topics, members, scenario.events[index - 1])
        group = GroupInput(topics, members)
        result = assign_uniform(group)
        assert {m: sorted(p) for m, p in result.items() if p} == {
            m: p for m, p in step.assignment.items() if p
        }
        check_group(group, result)
        shuffled = GroupInput(
            topics,
            [
                MemberMeta(
                    m.member_id,
                    m.topics,
                    instance_id=m.instance_id,
                    owned=tuple(rng.sample(list(m.owned), len(m.owned))),
                )
                for m in members
            ],
        )
        if all(
            len({t for t, _ in m.owned}) <= 1 and all(p < 16 for _, p in m.owned) for m in members
        ):
            # one topic per member, partitions below the smallest HashSet capacity (one key per
            # bucket): the coordinator's `new HashSet<>(partitions)` ignores the listed order
            assert {m: sorted(p) for m, p in assign_uniform(shuffled).items()} == {
                m: sorted(p) for m, p in result.items()
            }
        members = [
            MemberMeta(
                m.member_id, m.topics, m.rack, m.instance_id, tuple(result.get(m.member_id, ()))
            )
            for m in members
        ]
