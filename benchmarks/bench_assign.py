"""Speed of `kgroup simulate-assign` on large groups (python benchmarks/bench_assign.py).

Cases (ISSUE 5 targets, whole process on this machine):
- sticky / cooperative-sticky / uniform: 1,000 members x 100,000 partitions over 10 topics, all
  subscribed, one member has left, the survivors own their partitions   (<= 1.5 s / 1.5 s / 1 s)
- range / roundrobin: fresh, 1,000 members x 100,000 partitions, each member on 5 of 10 topics
  (<= 1 s)
- heterogeneous sticky: fresh, 100 members x 10,000 partitions, each member on 5 of 10 topics
  (<= 2.4 s, Java's warm time)
- cooperative-sticky, issue 28's medium "racks" family: 148 members (123 with racks), 5,442
  partitions over 6 topics with replicas on 1-2 of 4 racks, heterogeneous subscriptions, one
  member leaves; every rebalance round of both steps (<= 5 s; Kafka's CooperativeStickyAssignor
  needs minutes on such groups)

Scenario files are written to a temporary directory as JSON (their previous assignments come
from the engines themselves, untimed); each case prints the engine time in-process and the
whole-process time of `python -m kgroup simulate-assign --scenario FILE -s NAME -o json`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kgroup.assign import get_assignor  # noqa: E402
from kgroup.assign.model import GroupInput, MemberMeta, TopicMeta  # noqa: E402
from kgroup.assign.scenario import parse_scenario_text  # noqa: E402
from kgroup.assign.simulate import simulate  # noqa: E402

TOPICS = [f"topic-{i:02d}" for i in range(10)]


def member_id(i: int) -> str:
    return f"consumer-{i:04d}-8f3c2a6e-{i * 7919 % 10007:05d}"


def homogeneous_after_leave(strategy: str, members: int, partitions: int) -> dict:
    per_topic = partitions // len(TOPICS)
    topics = {t: TopicMeta(t, per_topic) for t in TOPICS}
    group = GroupInput(topics, [MemberMeta(member_id(i), tuple(TOPICS)) for i in range(members)])
    previous = get_assignor("sticky" if strategy == "cooperative-sticky" else strategy)(group)
    survivors = []
    for i in range(1, members):  # member 0 has left
        owned: dict[str, list[int]] = {}
        for t, p in previous[member_id(i)]:
            owned.setdefault(t, []).append(p)
        survivors.append({"id": member_id(i), "owned": owned, "generation": 1})
    return {"topics": {t: per_topic for t in TOPICS}, "members": survivors}


def heterogeneous_fresh(members: int, partitions: int) -> dict:
    per_topic = partitions // len(TOPICS)
    out = []
    for i in range(members):
        chosen = [TOPICS[(i + k * 3) % len(TOPICS)] for k in range(5)]
        out.append({"id": member_id(i), "topics": sorted(set(chosen))})
    return {"topics": {t: per_topic for t in TOPICS}, "members": out}


def racks_family() -> dict:
    """Issue 28's medium racks family (seeded): heterogeneous, racked, one member leaves."""
    import random

    rng = random.Random(28)
    racks = ["r1", "r2", "r3", "r4"]
    counts = [1500, 1200, 900, 842, 600, 400]  # 5,442 partitions
    topics = {
        f"topic-{i}": {
            "partitions": n,
            "racks": [sorted(rng.sample(racks, rng.randint(1, 2))) for _ in range(n)],
        }
        for i, n in enumerate(counts)
    }
    names = list(topics)
    members = []
    for i in range(148):
        member = {"id": member_id(i), "topics": sorted(rng.sample(names, rng.randint(2, 5)))}
        if i < 123:
            member["rack"] = rng.choice(racks)
        members.append(member)
    return {"topics": topics, "members": members, "events": [{"leave": member_id(5)}]}


def time_engine(strategy: str, text: str) -> float:
    """CPU seconds of the engine: one assignment, or the whole rebalance sequence when the
    scenario has events (the machine is shared: wall time would measure the neighbours)."""
    scenario = parse_scenario_text(text)
    if scenario.events:
        started = time.process_time()
        simulate(scenario, strategy)
        return time.process_time() - started
    group = GroupInput(scenario.topics, scenario.members)
    assign = get_assignor(strategy)
    started = time.process_time()
    assign(group)
    return time.process_time() - started


def time_process(strategy: str, path: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "kgroup",
            "simulate-assign",
            "--scenario",
            str(path),
            "-s",
            strategy,
            "-o",
            "json",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        env=env,
    )
    return time.perf_counter() - started


def main() -> None:
    cases = [
        (
            "sticky",
            "homogeneous 1000x100000, one left",
            1.5,
            lambda: homogeneous_after_leave("sticky", 1000, 100_000),
        ),
        (
            "cooperative-sticky",
            "homogeneous 1000x100000, one left",
            1.5,
            lambda: homogeneous_after_leave("cooperative-sticky", 1000, 100_000),
        ),
        (
            "uniform",
            "homogeneous 1000x100000, one left",
            1.0,
            lambda: homogeneous_after_leave("uniform", 1000, 100_000),
        ),
        (
            "range",
            "fresh heterogeneous 1000x100000",
            1.0,
            lambda: heterogeneous_fresh(1000, 100_000),
        ),
        (
            "roundrobin",
            "fresh heterogeneous 1000x100000",
            1.0,
            lambda: heterogeneous_fresh(1000, 100_000),
        ),
        ("sticky", "fresh heterogeneous 100x10000", 2.4, lambda: heterogeneous_fresh(100, 10_000)),
        ("cooperative-sticky", "racks family 148x5442, one left", 5.0, racks_family),
    ]
    only = set(sys.argv[1:])
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'strategy':<20} {'case':<36} {'engine cpu':>10} {'process s':>10} {'target s':>9}")
        for strategy, label, target, build in cases:
            if only and strategy not in only:
                continue
            path = Path(tmp) / f"{strategy}-{label.split()[0]}.json"
            text = json.dumps(build())
            path.write_text(text, encoding="utf-8")
            engine = time_engine(strategy, text)
            process = min(time_process(strategy, path) for _ in range(2))
            flag = "ok" if process <= target else "SLOW"
            print(
                f"{strategy:<20} {label:<36} {engine:>10.3f} {process:>10.3f} {target:>9.1f} {flag}"
            )


if __name__ == "__main__":
    main()
