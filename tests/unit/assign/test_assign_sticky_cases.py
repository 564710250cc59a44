"""Issue 17, cases 1 and 5: `sticky` / `cooperative-sticky` with member and replica racks.

Expected values are what Kafka's assignor classes (commit 1eb7644349cb) produced, quoted in the
issue; the scenario files live in `data/`. Each case runs through the real CLI
(`kgroup simulate-assign --scenario FILE --strategy S -o json`), through the library, and case 1
also through `--from-group` (the scenario kgroup builds from a described group).

Both come from `AbstractStickyAssignor.ConstrainedAssignmentBuilder.assignRackAwareRoundRobin`
as KAFKA-15170 fixed it: a member filled to `maxQuota` from the exactly-`minQuota` list counts
towards the expected members over `minQuota` (and that list is emptied once they are all there),
and a member reaching `minQuota` is only offered one more partition while members over
`minQuota` are still missing.

- Case 1: before, c532-4 and m3 (rack us-east-1b) both took a second partition, nobody was
  counted over `minQuota`, and `verifyUnfilledMembers` threw ("We haven't reached the expected
  number of members with more than the minQuota partitions...").
- Case 5: before, 353Y_6 (rack r2) took t2-3 as well as 4vwtkh50-2 although c622-1 and
  consumer-59 already held the two `maxQuota` slots, leaving fresh-m1 empty.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgroup.assign.from_group import scenario_from_group
from kgroup.assign.scenario import parse_scenario_text
from kgroup.assign.simulate import simulate
from kgroup.core.models import GroupDescription, GroupSnapshot, MemberDescription, TopicMetadata
from tests.helpers import run_kgroup

DATA = Path(__file__).parent / "data"
CASE1 = DATA / "sticky_issue17_case1_racks_crash.json"
CASE5 = DATA / "sticky_issue17_case5_eager_racks.json"

C59 = "consumer-59-9c8fd5a3-6e7c-92af-4cab-0b2afc3c9274"
C42 = "fresh-consumer-42-2d3c8c18-a805-a2d5-2a3e-be4c6f760233"

# Kafka's Java output (assignments as kgroup prints them: sorted)
CASE1_JAVA = {
    "c532-4": [["t0", 2], ["t0", 4]],
    "fresh-m0": [["t0", 0]],
    "fresh-m1": [["t0", 1]],
    "g92Iw_0": [["t0", 5]],
    "m3": [["t0", 3]],
}
# The issue quotes the two members kgroup got wrong; the others kept what they own (the same on
# both sides) and fresh-consumer-42 takes t2-2, the one partition left.
CASE5_JAVA = {
    "353Y_6": [["4vwtkh50", 2]],
    "c622-1": [["t2", 0], ["t2", 1]],
    C59: [["4vwtkh50", 0], ["4vwtkh50", 1]],
    C42: [["t2", 2]],
    "fresh-m1": [["t2", 3]],
}


def cli_steps(path: Path, strategy: str) -> list[dict]:
    out = run_kgroup(
        "simulate-assign", "--scenario", str(path), "--strategy", strategy, "-o", "json"
    ).stdout
    doc = json.loads(out)
    assert doc["schema_version"] == 1
    [result] = doc["strategies"]
    assert result["strategy"] == strategy
    return [step["assignment"] for step in result["steps"]]


def library_steps(path: Path, strategy: str) -> list[dict]:
    scenario = parse_scenario_text(path.read_text(encoding="utf-8"))
    return [
        {m: [list(tp) for tp in parts] for m, parts in step.assignment.items()}
        for step in simulate(scenario, strategy).steps
    ]


@pytest.mark.parametrize("strategy", ["sticky", "cooperative-sticky"])
def test_case1_cli_racks_no_crash_matches_java(strategy: str) -> None:
    assert cli_steps(CASE1, strategy) == [CASE1_JAVA]


@pytest.mark.parametrize("strategy", ["sticky", "cooperative-sticky"])
def test_case1_library_matches_java(strategy: str) -> None:
    assert library_steps(CASE1, strategy) == [CASE1_JAVA]


def test_case5_cli_eager_sticky_balances_like_java() -> None:
    assert cli_steps(CASE5, "sticky") == [CASE5_JAVA]


def test_case5_library_eager_sticky_balances_like_java() -> None:
    assert library_steps(CASE5, "sticky") == [CASE5_JAVA]


def test_case5_cooperative_is_balanced_too() -> None:
    # not quoted in the issue: only the balance bound Kafka guarantees is checked here
    [step] = library_steps(CASE5, "cooperative-sticky")
    sizes = [len(parts) for parts in step.values()]
    assert len(sizes) == 5 and max(sizes) - min(sizes) <= 1


# --- --from-group inherits the fix ----------------------------------------------------------


def _s16(text: str) -> str:
    raw = text.encode()
    return f"{len(raw):04x}" + raw.hex()


def _subscription_v3(topic: str, generation: int, rack: str | None) -> bytes:
    """ConsumerProtocolSubscription v3: topics, null userData, no ownedPartitions, generation,
    rackId (null when None)."""
    return bytes.fromhex(
        "0003"
        + "00000001"
        + _s16(topic)
        + "ffffffff"
        + "00000000"
        + f"{generation & 0xFFFFFFFF:08x}"
        + (_s16(rack) if rack is not None else "ffff")
    )


@pytest.mark.parametrize("protocol", ["sticky", "cooperative-sticky"])
def test_case1_from_group_matches_java(protocol: str) -> None:
    doc = json.loads(CASE1.read_text(encoding="utf-8"))
    t0 = doc["topics"]["t0"]
    topic = TopicMetadata(
        "t0", t0["partitions"], topic_id=t0["id"], replica_racks=tuple(map(tuple, t0["racks"]))
    )
    members = tuple(
        MemberDescription(
            m["id"],
            raw_metadata=_subscription_v3("t0", m.get("generation", -1), m.get("rack")),
        )
        for m in doc["members"]
    )
    group = GroupDescription(
        "g", "PreparingRebalance", "classic", "consumer", protocol, None, members
    )
    built = scenario_from_group(GroupSnapshot(group, {"t0": topic}))
    assert built.strategy == protocol
    [step] = simulate(built.scenario, protocol).steps
    assert {m: [list(tp) for tp in parts] for m, parts in step.assignment.items()} == CASE1_JAVA
