"""Restore plan for one group from generated `__consumer_offsets` (issue 27).

`kgroup reset-offsets GROUP --to-committed-at TIME --segments DIR --all-topics -o json`, a dry
run (no cluster), each run a fresh process, with the local engine and with Spark (`local[*]`):
wall time and peak RSS of the whole process tree (driver, JVM, Python workers), sampled from
/proc as benchmarks/bench_spark.py does. Both engines must plan the same offsets.

Inputs: the log directories of benchmarks/bench_decode.py (50 partitions, 90 % offset commits,
10 % group metadata, segments of 100 MiB; generated once under benchmarks/out/). The group is
one of its 400; TIME is within the generated history, so the replay has to read every record
of the group's partition (the other partitions are skipped by key, the coverage of the group's
partition is read from the batch headers).

Usage: python benchmarks/bench_restore.py [--repeat N] [--no-spark] [SIZE_MB ...]
       (default: 64; run by hand with 1024 for the 1 GiB figure)
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_decode
import bench_spark

GROUP = "service-0007-consumers"
WHEN_MS = 1_760_002_000_000  # inside the templates' time span (bench_decode._templates)


def plan(path: str, engine: str) -> dict:
    args = bench_spark.kgroup(
        "-o", "json", "reset-offsets", GROUP, "--to-committed-at", str(WHEN_MS),
        "--segments", path, "--all-topics", "--engine", engine,
    )  # fmt: skip
    result = bench_spark.run(args, stdout=-1)
    doc = json.loads(result["stdout"])["groups"][0]
    result["offsets"] = {(r["topic"], r["partition"]): r["new_offset"] for r in doc["partitions"]}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[64], metavar="SIZE_MB")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-spark", action="store_true")
    opts = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} (1 min)")
    for size in opts.sizes:
        path, records = bench_decode.generate(size)
        mb = bench_decode.log_megabytes(path)
        engines = ["local"] if opts.no_spark else ["local", "spark"]
        found: dict[str, dict] = {}
        for engine in engines:
            runs = sorted(
                (plan(path, engine) for _ in range(opts.repeat)), key=lambda r: r["seconds"]
            )
            best = runs[len(runs) // 2]
            found[engine] = best["offsets"]
            print(
                f"{size:5d} MiB ({mb:,.0f} MB, {records:,} records)  {engine:5s}  "
                f"{best['seconds']:7.1f} s  {mb / best['seconds']:6.1f} MB/s  "
                f"peak RSS {best['rss_mb']:6.0f} MB  {len(best['offsets'])} partitions planned"
            )
        if len(found) == 2 and found["local"] != found["spark"]:
            raise SystemExit("the engines planned different offsets")
        if not found["local"]:
            raise SystemExit(f"{GROUP} had no offsets at {WHEN_MS}: the benchmark measured nothing")


if __name__ == "__main__":
    main()
