"""Benchmark: plan 100,000 partitions of one group with the pure reset planner.

Target (issue 4): <= 1 s per plan. Run by hand: `python benchmarks/bench_reset_planner.py`.
Prints the best and median of a few runs for several strategies. The scope is given in
reverse order (the planner must sort it) and the inputs are the kgroup.core.models values
GroupAdmin returns, with distinct key objects, as in real use.
"""

from __future__ import annotations

import statistics
import time

from kgroup.reset.model import CommittedOffset, OffsetAtTime, TopicPartition, Watermarks
from kgroup.reset.planner import parse_topic_option, plan_group, resolve_scope
from kgroup.reset.strategy import FileRow, FromFile, ShiftBy, ToEarliest, ToOffset, ToTimestamp

PARTITIONS = 100_000
TOPICS = 100
RUNS = 5
TARGET_S = 1.0
NOW_MS = 1_777_629_600_000


def build_state():
    per_topic = PARTITIONS // TOPICS
    scope = [TopicPartition(f"topic-{t:03d}", p) for t in range(TOPICS) for p in range(per_topic)]
    scope.reverse()  # make the planner sort
    # The values GroupAdmin returns; keys are fresh objects, as they would be from Kafka.
    watermarks = {
        TopicPartition(tp.topic, tp.partition): Watermarks(i % 1000, 1000 + i)
        for i, tp in enumerate(scope)
    }
    committed = {
        TopicPartition(tp.topic, tp.partition): CommittedOffset(offset=500 + i)
        for i, tp in enumerate(scope)
    }
    times = {
        TopicPartition(tp.topic, tp.partition): OffsetAtTime(-1 if i % 10 == 0 else 900)
        for i, tp in enumerate(scope)
    }
    return scope, committed, watermarks, times


def main() -> None:
    scope, committed, watermarks, times = build_state()
    file_rows = tuple(FileRow("g", tp.topic, tp.partition, 700) for tp in scope)
    strategies = {
        "to earliest": ToEarliest(),
        "to-offset (clamped)": ToOffset(1200),
        "shift-by": ShiftBy(-600),
        "to-datetime": ToTimestamp(NOW_MS - 3_600_000),
        "from-file": FromFile(file_rows, "bench.csv"),
    }
    worst = 0.0
    for name, strategy in strategies.items():
        timings, cpu = [], []
        for _ in range(RUNS):
            start, start_cpu = time.perf_counter(), time.process_time()
            plan = plan_group("g", scope, committed, watermarks, times, strategy, NOW_MS)
            timings.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        assert len(plan.rows) == PARTITIONS
        best, median = min(timings), statistics.median(timings)
        worst = max(worst, median)
        print(
            f"{name:22s} {PARTITIONS:,} partitions: best {best:.3f} s, median {median:.3f} s"
            f" (cpu median {statistics.median(cpu):.3f} s)"
        )
    counts = {f"topic-{t:03d}": PARTITIONS // TOPICS for t in range(TOPICS)}
    for name, kwargs in (
        ("--topic (100 topics)", {"selections": [parse_topic_option(t) for t in counts]}),
        ("--all-topics", {"selections": [], "all_topics": True, "committed": list(committed)}),
    ):
        start = time.perf_counter()
        resolved = resolve_scope(partition_counts=counts, **kwargs)
        took = time.perf_counter() - start
        assert len(resolved) == PARTITIONS
        print(f"resolve_scope {name:22s} {PARTITIONS:,} partitions: {took:.3f} s (informative)")
    verdict = "OK" if worst <= TARGET_S else "OVER TARGET"
    print(f"slowest median {worst:.3f} s (target <= {TARGET_S:.1f} s): {verdict}")


if __name__ == "__main__":
    main()
