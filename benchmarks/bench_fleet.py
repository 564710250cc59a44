"""Fleet-scale describe, list and check (issue #29): whole `kgroup` processes against a scripted
broker holding 10,000 groups x 10 partitions; wall time and peak RSS per output mode.

The sandbox (tansu) is far too slow to create 10,000 groups, so the broker is the scripted one
of the tests (tests/unit/wire/fakegroups.py: ListGroups, DescribeGroups, OffsetFetch v8,
ListOffsets and Metadata laid out from Kafka's message definitions), serving 50 topics of 10
partitions; group i committed the 10 partitions of topic i % 50. Its answers are cached by
request bytes, and a first run of each command warms the cache, so the times are kgroup's,
not the fake's. `check` samples (the fake has no __consumer_offsets): `--window 1s --samples 2
--no-lag-time` (the fake serves no Fetch).

Targets: describe --all-groups <= 3 s and <= 120 MB in every mode, list <= 1 s, check
--all-groups <= 10 s and <= 200 MB, the table within 1.3x of JSON.

    python benchmarks/bench_fleet.py [GROUPS]      (KGROUP_BENCH_RUNS: runs per figure, 3)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tests.unit.wire.fakegroups import GroupsCluster

TOPICS = 50
PARTITIONS = 10
WINDOW = ("--window", "1s", "--samples", "2", "--no-lag-time")
# (label, kgroup arguments, wall target s, peak RSS target MB or None)
CASES = [
    ("describe --all-groups (table)", ("describe", "--all-groups"), 3, 120),
    ("describe --all-groups -o json", ("describe", "--all-groups", "-o", "json"), 3, 120),
    ("describe --all-groups -o jsonl", ("describe", "--all-groups", "-o", "jsonl"), 3, 120),
    ("describe --all-groups -o csv", ("describe", "--all-groups", "-o", "csv"), 3, 120),
    ("list (table)", ("list",), 1, None),
    ("list -o json", ("list", "-o", "json"), 1, None),
    ("check --all-groups (table)", ("check", "--all-groups", *WINDOW), 10, 200),
    ("check --all-groups -o json", ("check", "--all-groups", *WINDOW, "-o", "json"), 10, 200),
]
RUNS = int(os.environ.get("KGROUP_BENCH_RUNS", "3"))
# the child's peak RSS (ru_maxrss of the one child it waited for, in KiB), its exit code and
# CPU seconds (a figure that a machine busy with other work inflates less than wall time)
_MEASURE = (
    "import resource, subprocess, sys; "
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE); "
    "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
    "print(u.ru_maxrss, r.returncode, u.ru_utime + u.ru_stime); "
    "sys.stderr.write(r.stderr.decode()[-2000:])"
)


class FleetCluster(GroupsCluster):
    """GroupsCluster with its answers cached by request (the fleet does not change)."""

    def __post_init__(self) -> None:
        self.cache: dict[tuple[int, int, bytes], bytes] = {}
        super().__post_init__()

    def handler(self, api: int, version: int, body: bytes) -> bytes:
        key = (api, version, body)
        answer = self.cache.get(key)
        if answer is None:
            answer = self.cache[key] = super().handler(api, version, body)
        return answer


def fleet(groups: int) -> FleetCluster:
    return FleetCluster(
        topics={f"bench-{t:02d}": PARTITIONS for t in range(TOPICS)},
        offsets={
            f"bench-group-{g:05d}": {
                (f"bench-{g % TOPICS:02d}", p): (g + p) % 7 for p in range(PARTITIONS)
            }
            for g in range(groups)
        },
        log_end=10,
    )


def measure(address: str, *args: str) -> tuple[float, int, float]:
    """(median wall seconds, peak RSS in MB, median CPU seconds) of `kgroup ARGS`, after one
    warm-up run."""
    command = [sys.executable, "-m", "kgroup", "-b", address, "--timeout", "60", *args]
    walls, peaks, cpus = [], [], []
    for run in range(RUNS + 1):
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _MEASURE, *command], capture_output=True, text=True
        )
        wall = time.perf_counter() - started
        rss, status, cpu = done.stdout.split()
        rss_kib, code = int(rss), int(status)
        if code not in (0, 5):
            raise SystemExit(f"kgroup {' '.join(args)} exited {code}: {done.stderr}")
        if run:  # the first run warms the fake's cache
            walls.append(wall)
            peaks.append(rss_kib / 1024)
            cpus.append(float(cpu))
    return statistics.median(walls), round(max(peaks)), statistics.median(cpus)


def main() -> int:
    import compileall

    groups = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    compileall.compile_dir(os.path.join(os.path.dirname(__file__), "..", "kgroup"), quiet=1)
    os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="kgroup-bench-fleet-")
    os.environ["KGROUP_NO_PROGRESS"] = "1"
    cluster = fleet(groups)
    print(f"scripted broker: {groups} groups x {PARTITIONS} partitions ({TOPICS} topics)")
    try:
        figures: dict[str, float] = {}
        for label, args, wall_max, rss_max in CASES:
            wall, rss, cpu = measure(cluster.address, *args)
            figures[label] = wall
            ok = wall <= wall_max and (rss_max is None or rss <= rss_max)
            limit = f"<= {wall_max} s" + (f", <= {rss_max} MB" if rss_max else "")
            verdict = "ok" if ok else "MISSED"
            print(f"  {label:31s} {wall:6.2f} s {rss:4d} MB (cpu {cpu:5.2f} s)  {limit}: {verdict}")
        for command in ("describe", "check"):
            table = figures[f"{command} --all-groups (table)"]
            json_wall = figures[f"{command} --all-groups -o json"]
            print(f"  {command}: table / json = {table / json_wall:.2f} (target <= 1.3)")
    finally:
        cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
