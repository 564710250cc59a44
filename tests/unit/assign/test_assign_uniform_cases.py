"""Issue 17, cases 2 and 3: the KIP-848 `uniform` assignor against Kafka's Java output.

Expected values are what Kafka's group coordinator classes (commit 1eb7644349cb) produced on
these scenarios; the scenario files live in `data/`. Each case runs through the real CLI
(`kgroup simulate-assign --scenario FILE --strategy uniform -o json`) and through the library.

- Case 2: which partition a member keeps follows its `Map<Uuid, Set<Integer>>` order. Both topic
  ids fall in one bucket, and `HashMap.computeIfAbsent` (used by both uniform builders to add a
  topic) puts a new key at the head of its bucket, so t1 (added second) iterates first.
- Case 3: a member's explicit current assignment is a coordinator `HashSet`: owned [1, 0]
  iterates 0, 1 whatever order the file lists.
"""

from __future__ import annotations

import json
from pathlib import Path

from kgroup.assign.model import GroupInput, MemberMeta, TopicMeta
from kgroup.assign.scenario import parse_scenario_text
from kgroup.assign.simulate import simulate
from kgroup.assign.uniform import assign_uniform
from tests.helpers import run_kgroup

DATA = Path(__file__).parent / "data"
CASE2 = DATA / "uniform_issue17_case2_event_chain.json"
CASE3 = DATA / "uniform_issue17_case3_explicit_owned.json"

C17 = "consumer-17-cfdc867f-4988-1da2-9c15-122580e25191"
C48 = "consumer-48-73df750b-b9da-70e2-5088-c59afbcf3eee"
C38 = "consumer-38-f4446f22-89b1-53a2-40f2-33a919f284f7"

# Kafka's Java output, step by step (assignments as kgroup prints them: sorted)
CASE2_JAVA = [
    {"c769-0": [["t0", 0]], C17: [["t1", 0]]},
    {"c769-0": [["t0", 0], ["t1", 0]]},
    {"c769-0": [["t1", 0]], "new-0-848": [["t0", 0]]},
]
CASE3_JAVA = [{C38: [["drujwlkzdy0", 1]], C48: [["drujwlkzdy0", 0]]}]


def cli_steps(path: Path) -> list[dict]:
    out = run_kgroup(
        "simulate-assign", "--scenario", str(path), "--strategy", "uniform", "-o", "json"
    ).stdout
    doc = json.loads(out)
    assert doc["schema_version"] == 1
    [strategy] = doc["strategies"]
    assert strategy["strategy"] == "uniform"
    return [step["assignment"] for step in strategy["steps"]]


def library_steps(path: Path) -> list[dict]:
    scenario = parse_scenario_text(path.read_text(encoding="utf-8"))
    sim = simulate(scenario, "uniform")
    return [
        {m: [list(tp) for tp in parts] for m, parts in step.assignment.items()}
        for step in sim.steps
    ]


def test_case2_event_chain_cli() -> None:
    assert cli_steps(CASE2) == CASE2_JAVA


def test_case2_event_chain_library() -> None:
    assert library_steps(CASE2) == CASE2_JAVA


def test_case3_explicit_current_assignment_cli() -> None:
    assert cli_steps(CASE3) == CASE3_JAVA


def test_case3_explicit_current_assignment_library() -> None:
    assert library_steps(CASE3) == CASE3_JAVA


def test_case3_owned_order_in_the_file_does_not_matter() -> None:
    topics = {"drujwlkzdy0": TopicMeta("drujwlkzdy0", 2, topic_id="ELE8d7rZMBSOqexGLrUy3Q")}
    results = []
    for owned in ((1, 0), (0, 1)):
        group = GroupInput(
            topics,
            [
                MemberMeta(C48, ("drujwlkzdy0",), owned=tuple(("drujwlkzdy0", p) for p in owned)),
                MemberMeta(C38, ("drujwlkzdy0",)),
            ],
        )
        results.append({m: sorted(p) for m, p in assign_uniform(group).items()})
    assert results[0] == results[1] == {C48: [("drujwlkzdy0", 0)], C38: [("drujwlkzdy0", 1)]}


def test_unchanged_member_keeps_its_previous_java_order() -> None:
    # c769-0 keeps t0-0 and t1-0 (one member, nothing to move): the coordinator writes no
    # record for an unchanged assignment, so the order it iterates next time is the old one
    topics = {
        "t0": TopicMeta("t0", 1, topic_id="Ai5BngzmkRnsRx5kXfjBlw"),
        "t1": TopicMeta("t1", 1, topic_id="iOZRTS6ozwE5GTxk-12VcQ"),
    }
    owned = (("t1", 0), ("t0", 0))
    group = GroupInput(topics, [MemberMeta("c769-0", ("t0", "t1"), owned=owned)])
    assert assign_uniform(group) == {"c769-0": [("t1", 0), ("t0", 0)]}


def test_from_group_inherits_the_coordinator_order() -> None:
    # `simulate-assign --from-group` on a KIP-848 group: the described target assignment goes
    # through the same coordinator order as a scenario file (case 3, listed as [1, 0])
    from kgroup.assign.from_group import scenario_from_group
    from kgroup.core.models import (
        GroupDescription,
        GroupSnapshot,
        MemberDescription,
        TopicMetadata,
        TopicPartition,
    )

    tp = TopicPartition
    group = GroupDescription(
        "g848",
        "Stable",
        "consumer",
        "consumer",
        "uniform",
        members=(
            MemberDescription(
                C48,
                assignment=(tp("drujwlkzdy0", 1), tp("drujwlkzdy0", 0)),
                target_assignment=(tp("drujwlkzdy0", 1), tp("drujwlkzdy0", 0)),
            ),
            MemberDescription(C38),
        ),
    )
    topic = TopicMetadata("drujwlkzdy0", 2, topic_id="ELE8d7rZMBSOqexGLrUy3Q")
    built = scenario_from_group(GroupSnapshot(group, {"drujwlkzdy0": topic}, "librdkafka"))
    assert built.strategy == "uniform"
    [step] = simulate(built.scenario, "uniform").steps
    assert step.assignment == {C38: [("drujwlkzdy0", 1)], C48: [("drujwlkzdy0", 0)]}
