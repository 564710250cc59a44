"""cooperative-sticky and sticky with stale generations: issue 28's golden case and the rules
Kafka's code follows, checked on generated scenarios (hypothesis).

The golden values are Kafka's answers quoted in issue 28 (CooperativeStickyAssignor and
StickyAssignor at apache/kafka 1eb7644349cb on the same input), not kgroup's.
"""

from __future__ import annotations

import json
from pathlib import Path
from unittest.mock import patch

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgroup.assign import sticky as sticky_module
from kgroup.assign.javaorder import string_hashmap_order
from kgroup.assign.model import GroupInput, MemberMeta, TopicMeta
from kgroup.assign.scenario import Event, Scenario, apply_event
from kgroup.assign.simulate import MAX_COOPERATIVE_ROUNDS, simulate
from kgroup.assign.sticky import _all_subscriptions_equal, cooperative_result, member_map_order
from tests.helpers import run_kgroup

# issue 28, "the smallest difference found": m0 claims metrics-0:0 without a generation, m2
# (generation 4) claims it too although it no longer subscribes to metrics-0, fresh is new.
ISSUE_28_REPRO = """\
topics:
  metrics-0: {partitions: 1}
members:
  - {id: m0, topics: [metrics-0], generation: -1, owned: {metrics-0: [0]}}
  - {id: m2, topics: [], generation: 4, owned: {metrics-0: [0]}}
  - {id: fresh, topics: [metrics-0]}
"""


def _strategies(path: Path, *names: str) -> dict[str, list[dict]]:
    args = [a for n in names for a in ("-s", n)]
    out = run_kgroup("simulate-assign", "--scenario", str(path), *args, "-o", "json").stdout
    return {s["strategy"]: s["steps"] for s in json.loads(out)["strategies"]}


def test_issue_28_repro_matches_kafka_for_both_sticky_assignors(tmp_path: Path) -> None:
    path = tmp_path / "repro.yaml"
    path.write_text(ISSUE_28_REPRO, encoding="utf-8")
    steps = _strategies(path, "cooperative-sticky", "sticky")
    (coop,) = steps["cooperative-sticky"]
    # Kafka: CooperativeStickyAssignor gives metrics-0:0 to m0, in one round
    assert coop["assignment"] == {"fresh": [], "m0": [["metrics-0", 0]], "m2": []}
    assert coop["rounds"] == 1
    assert "revoked_phase1" not in coop["metrics"]
    (eager,) = steps["sticky"]
    # Kafka: StickyAssignor gives it to fresh
    assert eager["assignment"] == {"fresh": [["metrics-0", 0]], "m0": [], "m2": []}


def test_issue_28_repro_without_m2_claim_matches_kafka(tmp_path: Path) -> None:
    # the same group once m2's claim on a topic it left is gone (onJoinPrepare): Kafka's
    # CooperativeStickyAssignor still gives metrics-0:0 to m0 in one round
    path = tmp_path / "repro.yaml"
    path.write_text(
        ISSUE_28_REPRO.replace(", owned: {metrics-0: [0]}}\n  - {id: fresh", "}\n  - {id: fresh"),
        encoding="utf-8",
    )
    assert "m2, topics: [], generation: 4}" in path.read_text(encoding="utf-8")
    (coop,) = _strategies(path, "cooperative-sticky")["cooperative-sticky"]
    assert coop["assignment"] == {"fresh": [], "m0": [["metrics-0", 0]], "m2": []}
    assert coop["rounds"] == 1


# --- rules from Kafka's code, on generated stale-generation groups ------------------------------
#
# Each rule names the Java it follows (apache/kafka clients, org.apache.kafka.clients.consumer).
# The groups have members without a generation (none sent, or -1), members that own partitions
# of topics they left, and partitions claimed by two or more members at different (or equal)
# generations.

TOPIC_NAMES = ("t0", "t1", "t2")


@st.composite
def stale_groups(draw, same_topics: bool = False) -> GroupInput:
    counts = draw(st.lists(st.integers(1, 5), min_size=1, max_size=len(TOPIC_NAMES)))
    topics = {TOPIC_NAMES[i]: TopicMeta(TOPIC_NAMES[i], n) for i, n in enumerate(counts)}
    every = [(t, p) for t, meta in topics.items() for p in range(meta.partitions)]
    most = 3 if same_topics else 5  # fewer, fuller members: quotas bite
    names = draw(st.lists(st.sampled_from(MEMBER_NAMES), min_size=1, max_size=most, unique=True))
    members = []
    for name in names:
        subscribed = (
            tuple(topics)
            if same_topics
            else tuple(
                draw(st.lists(st.sampled_from(list(topics)), min_size=1, max_size=3, unique=True))
            )
        )
        # owned partitions of any topic: topics left, and partitions other members claim too
        owned = tuple(
            draw(st.lists(st.sampled_from(every), max_size=10 if same_topics else 6, unique=True))
        )
        generation = draw(st.sampled_from([None, -1, 0, 1, 2, 3, 3, 5]))
        members.append(MemberMeta(name, subscribed, owned=owned, generation=generation))
    return GroupInput(topics, members)


# member ids over several buckets of the leader's HashMap, whose order decides who claims first
MEMBER_NAMES = ("m0", "m1", "m2", "fresh", "c-1", "c-10", "old", "z")

STALE = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _generation(member: MemberMeta) -> int:
    # memberData.generation.orElse(DEFAULT_GENERATION); CooperativeStickyAssignor.memberData
    # takes it from the Subscription's generationId (KIP-792), -1 when none was sent
    return -1 if member.generation is None else member.generation


@STALE
@given(stale_groups())
def test_rule_claims_follow_all_subscriptions_equal(group: GroupInput) -> None:
    """AbstractStickyAssignor.allSubscriptionsEqual, walking `subscriptions` in map order:
    - `if (otherConsumer == null) { ownedPartitions.add(tp); ... }`: the first claim holds;
    - `if (memberGeneration == otherMemberGeneration) { partitionsWithMultiplePreviousOwners
      .add(tp); consumerToOwnedPartitions.get(otherConsumer).remove(tp); ... }`: a tie with the
      current owner voids the claim of both;
    - `else if (memberGeneration > otherMemberGeneration) { ownedPartitions.add(tp);
      consumerToOwnedPartitions.get(otherConsumer).remove(tp); ... }`: a higher generation
      takes it; otherwise (`let the other member continue to own`) the claim is ignored;
    - `if (allTopics.contains(tp.topic()))`: claims on topics nobody subscribes to are skipped.
    So a partition is held by its claimant of the highest generation when that claimant is the
    only one at that generation, by nobody otherwise; it is in partitionsWithMultiplePreviousOwners
    when some claimant's generation equals the highest generation of the claimants before it."""
    order = member_map_order(group)
    all_topics = {t for m in group.members for t in m.topics}
    claims = _all_subscriptions_equal(
        all_topics, order, string_hashmap_order([m.member_id for m in order])
    )
    claimants: dict[tuple[str, int], list[MemberMeta]] = {}
    for m in order:
        for tp in m.owned:
            if tp[0] in all_topics:
                claimants.setdefault(tp, []).append(m)
    holder = {tp: m for m, parts in claims.owned.items() for tp in parts}
    assert sum(len(p) for p in claims.owned.values()) == len(holder)  # nobody holds one twice
    for tp, members in claimants.items():
        top = max(_generation(m) for m in members)
        at_top = [m.member_id for m in members if _generation(m) == top]
        assert holder.get(tp) == (at_top[0] if len(at_top) == 1 else None), tp
        tie = any(
            _generation(m) == max(_generation(b) for b in members[:i])
            for i, m in enumerate(members)
            if i
        )
        assert (tp in claims.multiple_owners) == tie, tp
    assert set(holder) <= set(claimants)
    assert claims.max_generation == max(_generation(m) for m in group.members)


def _expected_claims(group: GroupInput) -> tuple[dict[str, list], set]:
    """Who holds which claim after `allSubscriptionsEqual`, worked out per partition (see
    test_rule_claims_follow_all_subscriptions_equal), and the doubly claimed partitions."""
    order = member_map_order(group)
    all_topics = {t for m in group.members for t in m.topics}
    claimants: dict[tuple[str, int], list[MemberMeta]] = {}
    for m in order:
        for tp in m.owned:
            if tp[0] in all_topics:
                claimants.setdefault(tp, []).append(m)
    held: dict[str, list] = {m.member_id: [] for m in order}
    multiple = set()
    for tp, members in claimants.items():
        top = max(_generation(m) for m in members)
        at_top = [m for m in members if _generation(m) == top]
        if len(at_top) == 1:
            held[at_top[0].member_id].append(tp)
        for i, m in enumerate(members):
            if i and _generation(m) == max(_generation(b) for b in members[:i]):
                multiple.add(tp)
    return held, multiple


@STALE
@given(stale_groups(same_topics=True))
def test_rule_same_subscriptions_keep_owned_partitions_up_to_the_quota(group: GroupInput) -> None:
    """AbstractStickyAssignor.ConstrainedAssignmentBuilder.assignOwnedPartitions (every member
    subscribes to the same topics): a member's held claims, less `partitionsWithMultiplePrevious
    Owners` ("Removing it from the ownedPartitions"), are `.sorted(Comparator.comparing(
    TopicPartition::partition).thenComparing(TopicPartition::topic))`; with fewer than
    `minQuota` it keeps them all (`consumerAssignment.addAll(ownedPartitions)`), otherwise at
    least `ownedPartitions.subList(0, minQuota)`. `adjustAssignment` only takes partitions away
    from members they are new to, so the owner still holds them after the round."""
    held, multiple = _expected_claims(group)
    total = sum(t.partitions for t in group.topics.values())
    min_quota = total // len(group.members)
    assignment, _transferring = cooperative_result(group)
    for member, claims in held.items():
        valid = sorted((tp for tp in claims if tp not in multiple), key=lambda tp: (tp[1], tp[0]))
        kept = valid if len(valid) < min_quota else valid[:min_quota]
        assert set(kept) <= set(assignment[member]), (member, kept, assignment[member])


@STALE
@given(stale_groups())
def test_rule_a_partition_another_member_owns_is_withheld(group: GroupInput) -> None:
    """CooperativeStickyAssignor.assign: `adjustAssignment(assignments,
    partitionsTransferringOwnership)` removes every partition that changes owner. The general
    path computes them (`computePartitionsTransferringOwnership`: a partition added to one
    member's assignment, `!ownedPartitionsSet.contains(tp)`, that another member's
    `ownedPartitions` lists and is not assigned, `allRevokedPartitions`); the constrained path
    records them (`assignNewPartition`: `allRevokedPartitions.contains(...) ||
    partitionsWithMultiplePreviousOwners.contains(...)`, and KAFKA-15170's
    `maybeRevokedPartitions`). So after one round no member holds a partition that it did not
    send in ownedPartitions and that another member did."""
    assignment, transferring = cooperative_result(group)
    owned = {m.member_id: set(m.owned) for m in group.members}
    for member, parts in assignment.items():
        for tp in parts:
            if tp in owned[member]:
                continue
            others = [o for o, mine in owned.items() if o != member and tp in mine]
            assert not others, f"{member} got {tp} that {others} still own"
    for tp, member in transferring.items():
        assert tp not in assignment.get(member, [])


@STALE
@given(stale_groups(), st.sampled_from(["leave", "grow", "none"]))
def test_rule_consumers_revoke_topics_left_and_settle(group: GroupInput, event: str) -> None:
    """ConsumerCoordinator.onJoinPrepare, COOPERATIVE: `revokedPartitions =
    ownedPartitions.stream().filter(tp -> !subscriptions.subscription().contains(tp.topic()))`
    before every JoinGroup: the assignor never sees a claim on a topic the member left.
    ConsumerCoordinator.onJoinComplete: revoked partitions make the member `requestRejoin`, so a
    step ends with the first round in which nobody revoked: then nothing is withheld and every
    subscribed partition has exactly one owner, a subscriber."""
    events = []
    if event == "leave" and len(group.members) > 1:
        events.append(Event("leave", group.members[0].member_id))
    elif event == "grow":
        name = next(iter(group.topics))
        events.append(Event("partitions", topic=name, count=group.topics[name].partitions + 2))
    scenario = Scenario(dict(group.topics), list(group.members), events)
    seen: list[GroupInput] = []
    real = sticky_module.cooperative_result

    def spy(g: GroupInput):
        seen.append(g)
        return real(g)

    with patch.object(sticky_module, "cooperative_result", spy):
        sim = simulate(scenario, "cooperative-sticky")
    for g in seen:
        for m in g.members:
            assert all(t in m.topics for t, _p in m.owned), (m.member_id, m.owned)
    topics, members = dict(scenario.topics), list(scenario.members)
    for index, step in enumerate(sim.steps):
        if index:
            topics, members = apply_event(topics, members, scenario.events[index - 1])
        subs = {m.member_id: set(m.topics) for m in members}
        owners: dict[tuple[str, int], str] = {}
        for member, parts in step.assignment.items():
            for tp in parts:
                assert tp not in owners
                assert tp[0] in subs[member]
                owners[tp] = member
        wanted = {
            (t, p) for s in subs.values() for t in s if t in topics
            for p in range(topics[t].partitions)
        }  # fmt: skip
        assert set(owners) == wanted
        assert 1 <= step.rounds <= MAX_COOPERATIVE_ROUNDS
