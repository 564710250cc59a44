"""cooperative-sticky across rebalances: issue 17, case 4 (golden values) and the consumer's loop.

What the consumers do (apache/kafka clients ConsumerCoordinator, CooperativeStickyAssignor):
- `onJoinPrepare` (COOPERATIVE) revokes the partitions of topics no longer subscribed before the
  member rejoins, so its next Subscription's ownedPartitions exclude them (case 4a);
- `onJoinComplete` revokes what the assignment took away and requests a rejoin; the group
  rebalances again until a round in which nobody revoked anything (case 4b: Java needed 3-7
  rounds in the issue's scenarios);
- the Subscription carries ownedPartitions and the generation (KIP-792), the assignor settles
  double claims by the highest generation (case 4c: Kafka's Java output quoted in the issue).
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from kgroup.assign import simulate as simulate_module
from kgroup.assign.from_group import scenario_from_group
from kgroup.assign.model import GroupInput, MemberMeta, TopicMeta
from kgroup.assign.scenario import Event, Scenario, parse_scenario_text
from kgroup.assign.simulate import MAX_COOPERATIVE_ROUNDS, simulate
from kgroup.assign.sticky import cooperative_result
from kgroup.core.errors import KgroupError
from kgroup.core.models import (
    GroupDescription,
    GroupSnapshot,
    MemberDescription,
    TopicMetadata,
)
from tests.helpers import run_kgroup

DATA = Path(__file__).parent / "data"
CASE_4A = DATA / "coop_issue17_case4a_unsubscribed.json"
CASE_4C = DATA / "coop_issue17_case4c_racks_generations.json"
J0 = "j0-consumer-5-c308d708-94b6-38f2-d8d1-adbae5c0fca7"

# Kafka's Java output (issue 17, case 4c): after 3 rounds
CASE_4C_JAVA = {
    J0: [["jvn3", 0], ["logs-2", 0], ["t1", 0]],
    "m0": [["t4", 0], ["t4", 1], ["t5", 0]],
}


def cli_steps(path: Path, *extra: str) -> list[dict]:
    out = run_kgroup(
        "simulate-assign", "--scenario", str(path), "--strategy", "cooperative-sticky", "-o",
        "json", *extra,
    ).stdout  # fmt: skip
    doc = json.loads(out)
    (strategy,) = doc["strategies"]
    assert strategy["strategy"] == "cooperative-sticky"
    return strategy["steps"]


def load(path: Path) -> Scenario:
    return parse_scenario_text(path.read_text(encoding="utf-8"), str(path))


# --- case 4c: racks and generations, settled after 3 rounds (Kafka's Java output) ------------


def test_case_4c_racks_and_generations_cli_matches_java() -> None:
    (step,) = cli_steps(CASE_4C)
    assert step["assignment"] == CASE_4C_JAVA
    assert step["rounds"] == 3
    # round 1: m0 (rack r3) gives up t4-1 (rack r4) to j0, which must wait for it; round 2: m0
    # gets t4-1 back and gives up logs-2-0; round 3 hands logs-2-0 to j0, nothing is revoked
    assert step["revoke_phase"] == {
        J0: [["jvn3", 0], ["t1", 0]],
        "m0": [["logs-2", 0], ["t4", 0], ["t5", 0]],
    }
    assert step["metrics"]["assigned"] == 6


def test_case_4c_table_says_three_rounds() -> None:
    out = run_kgroup(
        "simulate-assign", "--scenario", str(CASE_4C), "--strategy", "cooperative-sticky"
    ).stdout
    assert "cooperative: 3 rounds; round 1 revokes, rounds 2-3 assign" in out
    assert "jvn3:0;logs-2:0;t1:0" in out


# --- case 4a: a member that unsubscribed revokes before it rejoins -------------------------


def test_case_4a_unsubscribed_partitions_are_not_claimed_cli() -> None:
    steps = cli_steps(CASE_4A)
    assert steps[0]["assignment"] == {
        "m0": [["t0", 2], ["t1", 0]],
        "m1": [["t0", 0]],
        "m2": [["t0", 1]],
    }
    last = steps[1]
    # m2 drops t0: onJoinPrepare revokes t0-1, so the leader sees it unowned and gives it to the
    # least loaded member subscribed to t0 (m1, 1 partition; m0 holds 2) in round 1; t1-0 moves
    # from m0 to m2 (balance), so round 1 withholds it and round 2 assigns it. kgroup used to let
    # m2 claim t0-1 and ended with m0 [t0-1, t0-2], m1 [t0-0].
    assert last["assignment"] == {
        "m0": [["t0", 2]],
        "m1": [["t0", 0], ["t0", 1]],
        "m2": [["t1", 0]],
    }
    assert last["rounds"] == 2
    assert last["revoke_phase"]["m2"] == []


def test_case_4a_owned_partitions_sent_exclude_unsubscribed_topics(monkeypatch) -> None:
    sent: list[dict[str, tuple]] = []

    def spy(group: GroupInput):
        sent.append({m.member_id: m.owned for m in group.members})
        return cooperative_result(group)

    monkeypatch.setattr("kgroup.assign.sticky.cooperative_result", spy)
    simulate(load(CASE_4A), "cooperative-sticky")
    assert sent[1]["m2"] == ()  # t0-1 revoked in onJoinPrepare, not reported
    assert all(t == "t0" for t, _ in sent[1]["m1"])


def test_initial_owned_lists_are_sent_as_written_less_topics_left(monkeypatch) -> None:
    # The scenario's own `owned` is what members send at the first rebalance, in the order
    # written, except partitions of topics the member left: onJoinPrepare (COOPERATIVE) revokes
    # them before that JoinGroup too (issue 28).
    scenario = Scenario(
        {"a": TopicMeta("a", 2), "b": TopicMeta("b", 3)},
        [
            MemberMeta("x", ("b",), owned=(("b", 2), ("a", 0), ("b", 0)), generation=1),
            MemberMeta("y", ("a", "b"), owned=(("b", 1), ("a", 1)), generation=1),
        ],
    )
    sent: list[dict[str, tuple]] = []

    def spy(group: GroupInput):
        sent.append({m.member_id: m.owned for m in group.members})
        return cooperative_result(group)

    monkeypatch.setattr("kgroup.assign.sticky.cooperative_result", spy)
    simulate(scenario, "cooperative-sticky")
    assert sorted(sent[0]["x"]) == [("b", 0), ("b", 2)]
    assert sent[0]["y"] == (("b", 1), ("a", 1))  # nothing revoked: sent exactly as written


# --- case 4b: rounds until nobody revokes ----------------------------------------------------


def test_rounds_are_reported_per_step_for_every_strategy() -> None:
    for strategy in ("range", "sticky", "uniform"):
        out = run_kgroup(
            "simulate-assign", "--scenario", str(CASE_4A), "-s", strategy, "-o", "json"
        ).stdout
        steps = json.loads(out)["strategies"][0]["steps"]
        assert [s["rounds"] for s in steps] == [1, 1]


def test_rounds_show_in_jsonl_and_compare_table() -> None:
    out = run_kgroup(
        "simulate-assign", "--scenario", str(CASE_4C), "-s", "cooperative-sticky", "-o", "jsonl"
    ).stdout
    assert json.loads(out.splitlines()[0])["rounds"] == 3
    out = run_kgroup(
        "simulate-assign",
        "--scenario",
        str(CASE_4C),
        "-s",
        "sticky",
        "-s",
        "cooperative-sticky",
        "--compare",
    ).stdout
    assert "rounds=3" in out


def test_a_step_that_never_settles_is_a_clear_error(monkeypatch) -> None:
    rounds = {"n": 0}

    def ping_pong(group: GroupInput):
        # t-0 alternates between a and b: every round takes it from its owner
        rounds["n"] += 1
        owner = "b" if rounds["n"] % 2 else "a"
        return {
            m.member_id: ([("t", 0)] if m.member_id == owner else []) for m in group.members
        }, {}

    monkeypatch.setattr("kgroup.assign.sticky.cooperative_result", ping_pong)
    scenario = Scenario(
        {"t": TopicMeta("t", 1)},
        [MemberMeta("a", ("t",), owned=(("t", 0),), generation=1), MemberMeta("b", ("t",))],
    )
    with pytest.raises(KgroupError, match=r"did not settle.* 20 rebalance rounds") as info:
        simulate(scenario, "cooperative-sticky")
    assert info.value.message.startswith("step initial: ")
    assert rounds["n"] == MAX_COOPERATIVE_ROUNDS == 20


def test_members_that_lose_nothing_end_the_step(monkeypatch) -> None:
    # a round that only takes partitions nobody owned settles at once
    calls = []

    def take_all(group: GroupInput):
        calls.append(1)
        return {m.member_id: [] for m in group.members}, {}

    monkeypatch.setattr("kgroup.assign.sticky.cooperative_result", take_all)
    scenario = Scenario(
        {"t": TopicMeta("t", 2)},
        [MemberMeta("a", ("t",), owned=(("t", 0),), generation=1), MemberMeta("b", ("t",))],
    )
    (step,) = simulate(scenario, "cooperative-sticky").steps
    assert len(calls) == step.rounds == 2  # round 1 revokes t-0 from a; round 2 revokes nothing


def test_owned_partitions_are_sent_in_java_order() -> None:
    # new HashSet<>(list): TopicPartition("t", p).hashCode() = 31 * (31 + p) + "t".hashCode()
    # = 1077 + 31p, buckets 5, 4, 3, 2 of 16; the HashMap(4) of assignFromSubscribed keeps that
    # order (8 buckets); PartitionStates batches by topic.
    order = simulate_module._consumer_owned_order
    assert order([("t", 0), ("t", 1), ("t", 2), ("t", 3)]) == (
        ("t", 3),
        ("t", 2),
        ("t", 1),
        ("t", 0),
    )
    mixed = order([("t", 0), ("u", 0), ("t", 1)])
    assert sorted(mixed) == [("t", 0), ("t", 1), ("u", 0)]
    topics_in_order = [t for t, _ in mixed]
    assert topics_in_order in (["t", "t", "u"], ["u", "t", "t"])  # batched by topic
    assert order([]) == ()


# --- property: every cooperative step settles as the consumers do ---------------------------


def _random_scenario(rng: random.Random) -> Scenario:
    topics = {}
    for i in range(rng.randint(1, 4)):
        count = rng.randint(1, 8)
        racks = None
        if rng.random() < 0.4:
            racks = tuple(
                frozenset(rng.sample(["r1", "r2", "r3"], rng.randint(1, 2))) for _ in range(count)
            )
        topics[f"t{i}"] = TopicMeta(f"t{i}", count, racks)
    names = list(topics)
    members = []
    for i in range(rng.randint(1, 5)):
        subs = tuple(sorted(rng.sample(names, rng.randint(1, len(names)))))
        rack = rng.choice([None, "r1", "r2", "r3"])
        members.append(MemberMeta(f"c{i}-{rng.randrange(1000)}", subs, rack))
    events = []
    alive = [m.member_id for m in members]
    for j in range(rng.randint(1, 4)):
        kind = rng.choice(["join", "leave", "subscribe", "partitions"])
        if kind == "join" or len(alive) < 2:
            subs = tuple(sorted(rng.sample(names, rng.randint(1, len(names)))))
            events.append(Event("join", f"new-{j}", subs, rng.choice([None, "r1", "r2"])))
            alive.append(f"new-{j}")
        elif kind == "leave":
            gone = rng.choice(alive)
            alive.remove(gone)
            events.append(Event("leave", gone))
        elif kind == "subscribe":
            who = rng.choice(alive)
            subs = tuple(sorted(rng.sample(names, rng.randint(1, len(names)))))
            events.append(Event("subscribe", who, subs))
        else:
            topic = rng.choice(names)
            events.append(Event("partitions", topic=topic, count=topics[topic].partitions + 2))
    return Scenario(topics, members, events)


@pytest.mark.parametrize("seed", range(40))
def test_every_step_ends_settled(seed: int) -> None:
    rng = random.Random(seed)
    scenario = _random_scenario(rng)
    sim = simulate(scenario, "cooperative-sticky")
    from kgroup.assign.scenario import apply_event

    topics, members = dict(scenario.topics), list(scenario.members)
    for index, step in enumerate(sim.steps):
        if index:
            topics, members = apply_event(topics, members, scenario.events[index - 1])
        assert 1 <= step.rounds <= MAX_COOPERATIVE_ROUNDS
        assert (step.revoke_phase is None) == (step.rounds == 1)
        subscribed = {t for m in members for t in m.topics}
        owners = {}
        for member, parts in step.assignment.items():
            for tp in parts:
                assert tp not in owners, f"step {index}: {tp} twice"
                owners[tp] = member
                assert tp[0] in next(m.topics for m in members if m.member_id == member)
        # settled: the last round revoked nothing, so it withheld nothing (partitions transferring
        # ownership are ones their owner revokes): every subscribed partition has an owner
        assert set(owners) == {(t, p) for t in subscribed for p in range(topics[t].partitions)}
        holding = [replace(m, owned=tuple(step.assignment.get(m.member_id, ()))) for m in members]
        members = holding


# --- --from-group inherits the cooperative loop ------------------------------------------------


def _h(*parts: str) -> bytes:
    return bytes.fromhex("".join(parts).replace(" ", ""))


def _s16(text: str) -> str:
    raw = text.encode()
    return f"{len(raw):04x}" + raw.hex()


def _sub_v3(topics: list[str], rack: str | None, generation: int) -> bytes:
    """ConsumerProtocolSubscription v3: topics, userData null, no ownedPartitions, generation,
    rack (clients/src/main/resources/common/message/ConsumerProtocolSubscription.json)."""
    return _h(
        "0003",
        f"{len(topics):08x}",
        *[_s16(t) for t in topics],
        "ffffffff",
        "00000000",
        f"{generation & 0xFFFFFFFF:08x}",
        _s16(rack) if rack else "ffff",
    )


def _assignment(parts: list[tuple[str, int]]) -> bytes:
    """ConsumerProtocolAssignment v0, one topic entry per partition given."""
    return _h(
        "0000",
        f"{len(parts):08x}",
        *[_s16(t) + "00000001" + f"{p:08x}" for t, p in parts],
        "ffffffff",
    )


def test_from_group_inherits_the_cooperative_fixes() -> None:
    # case 4c as a live Stable group: m0 (rack r3) holds t4-1, j0 holds nothing. The next
    # rebalance is simulated as Kafka's consumers run it: 3 rounds, Kafka's Java result.
    names = ["t1", "logs-2", "jvn3", "t4", "t5"]
    topics = {
        "t1": TopicMetadata("t1", 1, "iOZRTS6ozwE5GTxk-12VcQ"),
        "logs-2": TopicMetadata("logs-2", 1, "5afSNxVtB4W4qRulO7Hqig"),
        "jvn3": TopicMetadata("jvn3", 1, "3aDGX8eDM8TQ4PuFKbAphQ"),
        "t4": TopicMetadata("t4", 2, "HWi0n6wg-ri-tOi6OsVhAQ", (("r3",), ("r4",))),
        "t5": TopicMetadata("t5", 1, "87VEL7ycCtGgmwksv8fm5w", (("r3",),)),
    }
    members = (
        MemberDescription(J0, raw_metadata=_sub_v3(names, None, 0), raw_assignment=_assignment([])),
        MemberDescription(
            "m0", raw_metadata=_sub_v3(names, "r3", 0), raw_assignment=_assignment([("t4", 1)])
        ),
    )
    group = GroupDescription(
        "g", "Stable", "classic", "consumer", "cooperative-sticky", members=members
    )
    built = scenario_from_group(GroupSnapshot(group, topics))
    assert built.strategy == "cooperative-sticky"
    (step,) = simulate(built.scenario, "cooperative-sticky").steps
    assert step.rounds == 3
    assert {m: [list(tp) for tp in parts] for m, parts in step.assignment.items()} == CASE_4C_JAVA


# --- a racked group that never settles (issue 28, "racks") ------------------------------------

NEVER_SETTLES = """\
topics:
  t0: {partitions: 3, racks: [[r2], [r3], [r3]]}
  t1: {partitions: 7, racks: [[r1], [r1], [r3], [r1], [r1], [r3], [r1]]}
members:
  - {id: c0, topics: [t0], rack: r1, generation: 1, owned: {t0: [2, 0]}}
  - {id: c1, topics: [t0, t1], generation: 1, owned: {t1: [0]}}
  - {id: c2, topics: [t0], rack: r1}
  - {id: c3, topics: [t0, t1], rack: r1, generation: 1, owned: {t1: [5, 3]}}
  - {id: c4, topics: [t0, t1]}
"""


def test_racked_group_that_keeps_moving_a_partition_is_one_clear_error(tmp_path: Path) -> None:
    # t0-2's only replica is on r3; c0 and c2 (rack r1, t0 only) are the least loaded members
    # of t0. Every round the general builder drops t0-2 from its racked owner
    # (assignOwnedPartitions: racksMismatch), hands it to a member without rack, balancing
    # moves it to the other r1 member, and adjustAssignment withholds it: it never settles.
    path = tmp_path / "racks.yaml"
    path.write_text(NEVER_SETTLES, encoding="utf-8")
    result = run_kgroup(
        "simulate-assign", "--scenario", str(path), "-s", "cooperative-sticky", expect=1
    )
    (line,) = result.stderr.splitlines()
    assert "did not settle" in line and "after 20 rebalance rounds" in line
    assert "(1 in the last one, t0-2 from c" in line
    assert "Hint: in Kafka's code a member with a rack loses a partition" in line
    # without the members' racks the same group settles at once
    path.write_text(NEVER_SETTLES.replace(", rack: r1", ""), encoding="utf-8")
    (step,) = cli_steps(path)
    assert step["rounds"] == 1
