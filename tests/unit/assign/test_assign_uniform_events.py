"""uniform (KIP-848) across a member leaving and a topic growing in one sequence (issue 28).

How the coordinator replays such a sequence, from Kafka's group coordinator
(apache/kafka group-coordinator, org.apache.kafka.coordinator.group):
- a member that leaves is fenced (`consumerGroupFenceMember`): tombstones for its current and
  target assignment and its subscription, and a group epoch bump; the next target assignment is
  computed at a later heartbeat, when the member is gone from `group.members()`, so
  `TargetAssignmentBuilder.build` fills a fresh `memberSpecs` HashMap with the survivors only,
  and its partitions are unowned (also in `invertedTargetAssignment`, which the homogeneous
  builder's `isPartitionAssigned` reads);
- a topic that grows only changes `SubscribedTopicDescriber.numPartitions`: every member keeps
  its target assignment (`Assignment` objects of members without a new record are kept as they
  are), the new partitions are the unassigned ones, in partition order;
- a member whose target assignment changed holds it as `Assignment.fromRecord` replays it
  (`Collectors.toMap` -> HashMap of topic ids, `new HashSet<>(partitions)`), so a partition >= 16
  in a set of capacity 16 shares bucket p & 15 with a lower one and iterates after it.

The expected assignments are traced by hand through `UniformHeterogeneousAssignmentBuilder`
and `UniformHomogeneousAssignmentBuilder` (each step's trace is in the test); member ids x, y,
z, w hash to buckets 8, 9, 10, 7 of a 16-bucket HashMap ("x".hashCode() = 120, ...).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run_kgroup


def _steps(tmp_path: Path, text: str) -> list[tuple[str, dict[str, list[list]]]]:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    out = run_kgroup("simulate-assign", "--scenario", str(path), "-s", "uniform", "-o", "json")
    steps = json.loads(out.stdout)["strategies"][0]["steps"]
    return [(s["event"], s["assignment"]) for s in steps]


def test_heterogeneous_leave_then_grow(tmp_path: Path) -> None:
    steps = _steps(
        tmp_path,
        """\
topics: {a: 2, b: 2}
members:
  - {id: x, topics: [a, b], owned: {a: [0], b: [0]}}
  - {id: y, topics: [a], owned: {a: [1]}}
  - {id: z, topics: [b], owned: {b: [1]}}
events:
  - leave: z
  - partitions: {topic: a, count: 4}
""",
    )
    # step 0: every owned partition is subscribed (maybeRevokePartitions keeps them); a's and
    # b's subscribers differ by one partition (balanceTopic: imbalance <= 1): nothing moves
    assert steps[0] == (
        "initial",
        {"x": [["a", 0], ["b", 0]], "y": [["a", 1]], "z": [["b", 1]]},
    )
    # step 1 (-z): b-1 is unowned, b's only subscriber x takes it (x 3, y 1); balanceTopic(a):
    # members by (size, index) [y, x], x's last partition of a (a-0) goes to y, then the
    # ranges differ by 0: x [b-0, b-1], y [a-0, a-1]
    assert steps[1] == ("-z", {"x": [["b", 0], ["b", 1]], "y": [["a", 0], ["a", 1]]})
    # step 2 (a grows to 4): a-2, a-3 unowned; assignRemainingPartitions over [x (2), y (2)]
    # by index: a-2 -> x, a-3 -> y; a is balanced
    assert steps[2] == (
        "topic:a=4",
        {"x": [["a", 2], ["b", 0], ["b", 1]], "y": [["a", 0], ["a", 1], ["a", 3]]},
    )


def test_leave_makes_the_group_homogeneous_then_grow(tmp_path: Path) -> None:
    steps = _steps(
        tmp_path,
        """\
topics: {a: 3, b: 1}
members:
  - {id: x, topics: [a], owned: {a: [0, 1]}}
  - {id: y, topics: [a], owned: {a: [2]}}
  - {id: z, topics: [a, b], owned: {b: [0]}}
events:
  - leave: z
  - partitions: {topic: a, count: 5}
""",
    )
    assert steps[0][1] == {"x": [["a", 0], ["a", 1]], "y": [["a", 2]], "z": [["b", 0]]}
    # step 1 (-z): x and y both subscribe to a only: homogeneous; 3 partitions, quotas in member
    # order x 2 (the extra one), y 1: both already hold their quota, nothing moves
    assert steps[1] == ("-z", {"x": [["a", 0], ["a", 1]], "y": [["a", 2]]})
    # step 2 (a grows to 5): quotas x 3, y 2; unassigned [a-3, a-4] fill x then y
    assert steps[2] == (
        "topic:a=5",
        {"x": [["a", 0], ["a", 1], ["a", 3]], "y": [["a", 2], ["a", 4]]},
    )


def test_homogeneous_grow_then_leave_with_partitions_past_16(tmp_path: Path) -> None:
    steps = _steps(
        tmp_path,
        """\
topics: {a: 17}
members:
  - {id: x, topics: [a], owned: {a: [0, 1, 2, 3, 4, 5, 16]}}
  - {id: y, topics: [a], owned: {a: [6, 7, 8, 9, 10, 11]}}
  - {id: w, topics: [a], owned: {a: [12, 13, 14, 15]}}
events:
  - partitions: {topic: a, count: 20}
  - leave: w
""",
    )
    # step 0: members in order w, x, y; 17 partitions: quotas w 6, x 6, y 5. x's set iterates
    # 0, 16, 1, 2, 3, 4, 5 (16 shares bucket 0 with 0), so x gives up a-5, not a-16; y gives up
    # a-11; w (4 of 6) takes a-5 and a-11
    assert steps[0][1] == {
        "w": [["a", p] for p in (5, 11, 12, 13, 14, 15)],
        "x": [["a", p] for p in (0, 1, 2, 3, 4, 16)],
        "y": [["a", p] for p in (6, 7, 8, 9, 10)],
    }
    # step 1 (a grows to 20): quotas w 7, x 7, y 6; each is one short: a-17, a-18, a-19 in
    # member order
    assert steps[1][1] == {
        "w": [["a", p] for p in (5, 11, 12, 13, 14, 15, 17)],
        "x": [["a", p] for p in (0, 1, 2, 3, 4, 16, 18)],
        "y": [["a", p] for p in (6, 7, 8, 9, 10, 19)],
    }
    # step 2 (-w): quotas x 10, y 10; w's partitions are unowned, in partition order
    # [5, 11, 12, 13, 14, 15, 17]: x takes 3, y takes 4
    assert steps[2] == (
        "-w",
        {
            "x": [["a", p] for p in (0, 1, 2, 3, 4, 5, 11, 12, 16, 18)],
            "y": [["a", p] for p in (6, 7, 8, 9, 10, 13, 14, 15, 17, 19)],
        },
    )
