"""cooperative-sticky and sticky with stale generations: issue 28's golden case and the rules
Kafka's code follows, checked on generated scenarios (hypothesis).

The golden values are Kafka's answers quoted in issue 28 (CooperativeStickyAssignor and
StickyAssignor at apache/kafka 1eb7644349cb on the same input), not kgroup's.
"""

from __future__ import annotations

import json
from pathlib import Path

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
