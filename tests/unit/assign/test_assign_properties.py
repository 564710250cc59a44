"""Invariants every assignor keeps, checked on random groups (hypothesis).

Each subscribed partition is assigned exactly once, only to a member subscribing to its topic;
the balance bound each assignor guarantees; same input, same output.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgroup.assign import STRATEGIES, get_assignor
from kgroup.assign.model import GroupInput, MemberMeta, TopicMeta
from kgroup.assign.scenario import Event, Scenario
from kgroup.assign.simulate import simulate

TOPICS = ["a", "b", "c", "orders"]


@st.composite
def groups(draw, homogeneous: bool = False) -> GroupInput:
    counts = draw(st.lists(st.integers(0, 9), min_size=1, max_size=len(TOPICS)))
    topics = {TOPICS[i]: TopicMeta(TOPICS[i], n) for i, n in enumerate(counts)}
    names = draw(
        st.lists(
            st.text("abcxyz0123-", min_size=1, max_size=6), min_size=1, max_size=7, unique=True
        )
    )
    every = tuple(topics)
    members = []
    for name in names:
        subs = (
            every
            if homogeneous
            # at least one topic: see test_sticky_quirk_member_with_empty_subscription
            else tuple(draw(st.lists(st.sampled_from(TOPICS), min_size=1, max_size=4, unique=True)))
        )
        members.append(MemberMeta(name, subs))
    return GroupInput(topics, members)


def check_valid(group: GroupInput, assignment: dict) -> None:
    owners: dict = {}
    subs = {m.member_id: set(m.topics) for m in group.members}
    for member, parts in assignment.items():
        for tp in parts:
            assert tp not in owners, f"{tp} assigned twice"
            owners[tp] = member
            assert tp[0] in subs[member], f"{member} got {tp} without subscribing"
    wanted = {
        (t, p)
        for m in group.members
        for t in m.topics
        if t in group.topics
        for p in range(group.topics[t].partitions)
    }
    assert set(owners) == wanted


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(groups())
def test_every_subscribed_partition_once_to_a_subscriber(group: GroupInput) -> None:
    for name in STRATEGIES:
        check_valid(group, get_assignor(name)(group))


@SETTINGS
@given(groups())
def test_deterministic(group: GroupInput) -> None:
    for name in STRATEGIES:
        assign = get_assignor(name)
        assert assign(group) == assign(group)


@SETTINGS
@given(groups(homogeneous=True))
def test_balanced_within_one_when_everyone_subscribes_to_everything(group: GroupInput) -> None:
    # roundrobin, sticky, cooperative-sticky and uniform guarantee max - min <= 1 here
    for name in ("roundrobin", "sticky", "cooperative-sticky", "uniform"):
        result = get_assignor(name)(group)
        sizes = [len(result.get(m.member_id, [])) for m in group.members]
        assert max(sizes) - min(sizes) <= 1, name


@SETTINGS
@given(groups(homogeneous=True), st.data())
def test_range_per_topic_balance(group: GroupInput, data) -> None:
    for name in ("range", "server-range"):
        result = get_assignor(name)(group)
        for topic in group.topics:
            per = [
                sum(1 for t, _ in result.get(m.member_id, []) if t == topic) for m in group.members
            ]
            assert max(per) - min(per) <= 1


@SETTINGS
@given(groups(homogeneous=True))
def test_sticky_survivors_keep_their_partitions_when_a_member_leaves(group: GroupInput) -> None:
    # the new quotas always fit what survivors own, so nothing moves between survivors
    if len(group.members) < 2:
        return
    leaving = group.members[0].member_id
    for name in ("sticky", "cooperative-sticky"):
        scenario = Scenario(dict(group.topics), list(group.members), [Event("leave", leaving)])
        sim = simulate(scenario, name)
        before, after = sim.steps[0].assignment, sim.steps[1].assignment
        for member, parts in after.items():
            assert set(before[member]) <= set(parts), name
        assert sim.steps[1].metrics["moved"] == 0


@SETTINGS
@given(groups(), st.sampled_from(TOPICS))
def test_cooperative_never_moves_a_partition_without_revoking_it_first(group, topic) -> None:
    # step 1 adds a member; in phase 1 no partition goes from one owner straight to another
    sim = simulate(
        Scenario(dict(group.topics), list(group.members), [Event("join", "zz-new", (topic,))]),
        "cooperative-sticky",
    )
    before = sim.steps[0].assignment
    step = sim.steps[1]
    phase1 = step.revoke_phase or step.assignment
    owner_before = {tp: m for m, parts in before.items() for tp in parts}
    for member, parts in phase1.items():
        for tp in parts:
            old = owner_before.get(tp)
            assert old is None or old == member, f"{tp} moved {old}->{member} in one step"


def test_sticky_quirk_member_with_empty_subscription() -> None:
    # Kafka's allSubscriptionsEqual seeds its reference set from the first member with a
    # non-empty subscription, so empty subscriptions iterated before it are never compared: the
    # group counts as homogeneous and the constrained builder hands "0" (subscribed to nothing,
    # first in Java order: hash of "0" is 48) a partition. Reproduced, not fixed.
    group = GroupInput({"a": TopicMeta("a", 2)}, [MemberMeta("0", ()), MemberMeta("0000", ("a",))])
    result = get_assignor("sticky")(group)
    assert sorted(result["0"] + result["0000"]) == [("a", 0), ("a", 1)]
    assert len(result["0"]) == 1
