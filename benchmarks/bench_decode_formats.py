"""`kgroup decode` output formats: records/s and peak RSS of table, CSV, JSON and JSON Lines.

Issue #13: every format streams, so peak RSS is flat in the input size (target <= 100 MB at
1 GB of segments) and CSV and JSON run within 1.5x of JSON Lines' time. Each run is the whole
CLI in a fresh process, `kgroup decode --segments DIR [-o FORMAT] > /dev/null` (the table as
it prints into a pipe or file); wall time, the child's CPU time (user + sys) and its peak RSS
(wait4) are measured. The machine may be shared: the CPU-time ratio to JSON Lines is the steadier
figure when other work runs beside the benchmark.

The segments are benchmarks/bench_decode.py's realistic mix (90 % offset commits, 10 % group
metadata with members), generated once per size into build/bench-decode-formats/ (cached).

Usage: python benchmarks/bench_decode_formats.py [--runs N] [--formats F,F] [SIZE_MB ...]
(default sizes: 200 1024; jsonl is always run first, as the reference)
Prints one line per size and format, then a JSON line per measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_decode  # noqa: E402

CACHE = os.path.join(ROOT, "build", "bench-decode-formats")
FORMATS = ("jsonl", "json", "csv", "table")


def run_once(path: str, fmt: str) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS in MB) of one `kgroup decode` run to /dev/null."""
    mode = [] if fmt == "table" else ["-o", fmt]
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGROUP_")}
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kgroup", "decode", "--segments", path, *mode],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"kgroup decode -o {fmt} failed:\n{err.decode()}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[200, 1024], metavar="SIZE_MB")
    parser.add_argument("--runs", type=int, default=1, help="runs per format (best kept)")
    parser.add_argument("--formats", default=",".join(FORMATS), help="comma-separated formats")
    args = parser.parse_args()
    formats = ["jsonl", *(f for f in args.formats.split(",") if f and f != "jsonl")]
    bench_decode.OUT = CACHE
    results = []
    for size in args.sizes:
        path, records = bench_decode.generate(size)
        megabytes = bench_decode.log_megabytes(path)
        print(f"{size} MiB: {megabytes:,.0f} MB of segments, {records:,} records")
        times: dict[str, float] = {}
        cpus: dict[str, float] = {}
        for fmt in formats:
            runs = [run_once(path, fmt) for _ in range(args.runs)]
            seconds = min(s for s, _c, _r in runs)
            cpu = min(c for _s, c, _r in runs)
            rss = max(r for _s, _c, r in runs)
            times[fmt], cpus[fmt] = seconds, cpu
            ratio = seconds / times["jsonl"]
            cpu_ratio = cpu / cpus["jsonl"]
            print(
                f"  {fmt:<6} {seconds:7.2f} s  {records / seconds:10,.0f} records/s  "
                f"{megabytes / seconds:6.1f} MB/s  CPU {cpu:7.2f} s  peak RSS {rss:6.1f} MB  "
                f"{ratio:4.2f}x JSONL ({cpu_ratio:4.2f}x in CPU)"
            )
            results.append(
                {
                    "size_mib": size,
                    "format": fmt,
                    "records": records,
                    "seconds": round(seconds, 3),
                    "cpu_seconds": round(cpu, 3),
                    "records_per_s": round(records / seconds),
                    "peak_rss_mb": round(rss, 1),
                    "vs_jsonl": round(ratio, 2),
                    "cpu_vs_jsonl": round(cpu_ratio, 2),
                }
            )
    for item in results:
        print(json.dumps(item))


if __name__ == "__main__":
    main()
