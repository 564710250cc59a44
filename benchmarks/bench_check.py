"""check at scale on the sandbox broker (tansu), whole `kgroup` processes.

Builds 500 groups x 10 partitions (50 topics of 10 partitions, group i commits the 10 partitions
of topic i % 50 at offset i % 3 of 2 records: lag 2, 1 or 0), then measures
`kgroup check --all-groups -o json`: wall time (median of 3; KGROUP_BENCH_RUNS changes it) and
the Kafka requests sent per API (from `--verbose`), for 500 and for 50 groups, to show the counts
do not grow with groups; and `describe --all-groups --lag-time` on the same data, which shares
check's lag-time fetch (GroupAdmin.next_records).

tansu has no `__consumer_offsets` (TEST_ENVIRONMENT.md), so history cannot be read here: the
run samples, `--samples 2` over a `--window` of 1 s, and the time minus the window is what the
3 s target of history mode covers (collect, evaluate, lag times, retention, render). On a real
Kafka set KGROUP_BENCH_BOOTSTRAP to a cluster seeded the same way to time history mode.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from benchmarks.bench_describe import GROUPS, kgroup, request_counts, seed
from kgroup.sandbox.broker import start_tansu, stop_process

WINDOW = ("--window", "1s", "--samples", "2")
RUNS = int(os.environ.get("KGROUP_BENCH_RUNS", "3"))  # median of RUNS whole-process runs


def timed(*args: str, runs: int) -> tuple[float, subprocess.CompletedProcess[str]]:
    times = []
    result = None
    for _ in range(runs):
        started = time.perf_counter()
        result = kgroup(*args)
        times.append(time.perf_counter() - started)
        if result.returncode not in (0, 5):  # 5: some groups are not healthy, as seeded
            raise SystemExit(f"kgroup {' '.join(args)} failed: {result.stderr}")
    assert result is not None
    return statistics.median(times), result


def main() -> int:
    import compileall

    compileall.compile_dir(os.path.join(os.path.dirname(__file__), "..", "kgroup"), quiet=1)
    os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="kgroup-bench-check-")
    os.environ["KGROUP_NO_PROGRESS"] = "1"
    state = start_tansu()
    bootstrap = state.bootstrap
    try:
        seed(bootstrap)
        base = ("-b", bootstrap, "check")
        wall, result = timed(*base, "--all-groups", *WINDOW, "-o", "json", runs=RUNS)
        groups = json.loads(result.stdout)["groups"]
        rows = sum(len(g["partitions"]) for g in groups)
        statuses: dict[str, int] = {}
        for g in groups:
            statuses[g["status"]] = statuses.get(g["status"], 0) + 1
        print(
            f"check --all-groups ({groups[0]['source']}, window 1 s): {len(groups)} groups, "
            f"{rows} partitions, statuses {statuses}"
        )
        print(
            f"  median wall {wall:.2f} s; without the 1 s window {wall - 1:.2f} s (target <= 3 s)"
        )
        quick, _ = timed(*base, "--all-groups", *WINDOW, "--no-lag-time", "-o", "json", runs=RUNS)
        print(f"  --no-lag-time: median wall {quick:.2f} s; without the window {quick - 1:.2f} s")
        described, _ = timed(
            "-b", bootstrap, "describe", "--all-groups", "--lag-time", "-o", "json", runs=RUNS
        )
        print(f"  describe --all-groups --lag-time: median wall {described:.2f} s")
        print(
            "  describe --lag-time requests: "
            + request_counts(
                "-b", bootstrap, "describe", "--all-groups", "--lag-time", "-o", "json"
            )
        )
        print(
            f"  requests ({GROUPS} groups): "
            + request_counts(*base, "--all-groups", *WINDOW, "-o", "json")
        )
        print(
            "  requests (50 groups):  "
            + request_counts(*base, "--match", "^bench-group-0[0-4]", *WINDOW, "-o", "json")
        )
    finally:
        stop_process(state.pid, state.binary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
