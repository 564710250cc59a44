"""Spark engine vs local engine on generated `__consumer_offsets` segments (issue 7).

Inputs: the log directories of benchmarks/bench_decode.py (same realistic mix: 90 % offset
commits v3, 10 % group metadata with 3-10 members; generated once under benchmarks/out/).

For each size, each run a fresh `kgroup decode` process (so start-up is counted end to end):
- `records`: the record stream, `--out DIR` (local: JSONL, spark: Parquet);
- `summary`: `--summary -o json`.
The local engine runs with `--engine local`; Spark with `--engine spark --spark-master local[2]`.
Spark's start-up (a cold `getOrCreate` plus the first Python data source query, whose worker
processes import pyarrow) is measured separately in its own process and subtracted to give the
throughput after start-up. Peak RSS is sampled from /proc for the whole process tree (driver
Python + JVM + Python workers). Results must be identical: the summaries compare equal and the
Parquet output has as many rows as the JSONL output has lines.
Target: on >= 1 GB Spark beats local end to end and reaches >= 1.7x its throughput after
start-up.

Each measurement runs `--repeat N` times (default 1) and the median is reported (the machine's
other load moves single runs by +-30 %). Spark's class-data-sharing archive
(kgroup.scan.spark.cds_archive_path) is made first if missing, as a user's first Spark run
makes it; the figures are those of every later run.

With `--master spark://HOST:PORT` (issue 15) the same runs also go to that cluster (its
executors' start-up measured the same way); `--master start` starts a standalone master and two
1-core workers for the run, as tests/integration/spark_cluster does. On this 2-core machine the
cluster figures are about correctness and overhead, not speed-up.

Usage: python benchmarks/bench_spark.py [--repeat N] [--master URL|start] [--conf K=V]
       [SIZE_MB ...]   (default: 1024 4096)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_decode  # noqa: E402

OUT = os.path.join(ROOT, "benchmarks", "out")
SPARK = ["--engine", "spark", "--spark-master", "local[2]"]
LOCAL = ["--engine", "local"]


def _tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants, from /proc (MB)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    total = 0
    stack = [pid]
    while stack:
        p = stack.pop()
        stack.extend(children.get(p, ()))
        try:
            with open(f"/proc/{p}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def run(args: list[str], stdout: int | None = subprocess.DEVNULL) -> dict:
    """Run a command, sampling its process tree's RSS; wall seconds, peak RSS, stdout."""
    env = dict(os.environ, PYTHONPATH=ROOT, KGROUP_NO_PROGRESS="1")
    started = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    peak = 0.0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.wait(0.5):
            peak = max(peak, _tree_rss_mb(proc.pid))

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    out, err = proc.communicate()
    seconds = time.perf_counter() - started
    done.set()
    thread.join()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{err.decode()[-2000:]}")
    return {"seconds": seconds, "rss_mb": peak, "stdout": out.decode()}


_STARTUP = """
import json, time, sys
sys.path.insert(0, {root!r})
t = time.perf_counter()
from kgroup.scan.spark import start_session
spark = start_session({master!r}, {conf!r})
session = time.perf_counter() - t
from kgroup.scan.local import find_segments
from kgroup.scan.spark import SparkScan
from kgroup.scan.local import DecodeFilter
inputs = find_segments([{path!r}])[:1]
t2 = time.perf_counter()
SparkScan(spark, DecodeFilter(type_ids=frozenset({{99}})), inputs=inputs).frame().count()
first = time.perf_counter() - t2
print(json.dumps({{"session": session, "first_query": first}}))
"""


def kgroup(*args: str) -> list[str]:
    return [sys.executable, "-m", "kgroup", *args]


def _median_run(times: int, args: list[str]) -> dict:
    runs = [run(args) for _ in range(times)]
    runs.sort(key=lambda r: r["seconds"])
    best = runs[len(runs) // 2]
    best["all"] = [round(r["seconds"], 1) for r in runs]
    return best


def _content(out_dir: str, parquet: bool) -> tuple[int, int, dict[str, int]]:
    """(rows, sum of offsets, rows per record type) of a --out directory."""
    if parquet:
        import pyarrow.parquet as pq

        table = pq.read_table(out_dir, columns=["offset", "record_type"])
        types: dict[str, int] = {}
        for t in table.column("record_type").to_pylist():
            types[t] = types.get(t, 0) + 1
        return table.num_rows, sum(table.column("offset").to_pylist()), types
    import orjson

    rows = total = 0
    types = {}
    with open(os.path.join(out_dir, "part-00000.jsonl"), "rb") as fh:
        for line in fh:
            doc = orjson.loads(line)
            rows += 1
            total += doc["offset"]
            types[doc["record_type"]] = types.get(doc["record_type"], 0) + 1
    return rows, total, types


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Spark engine vs local engine (issue 7, 15)")
    parser.add_argument("sizes", nargs="*", type=int, default=[1024, 4096], metavar="SIZE_MB")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--master",
        metavar="URL",
        help="also run on this Spark master (spark://HOST:PORT), or 'start': a standalone "
        "master + 2 workers of 1 core / 1 GB each started for the run (as the cluster tests)",
    )
    parser.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="--spark-conf for the --master runs (default spark.executor.memory=512m)",
    )
    return parser.parse_args(argv)


def _startup(master: str, path: str, repeat: int, conf: list[str]) -> float:
    """Median session start + first query (a tiny input, a filter that matches nothing)."""
    probes = sorted(
        (
            json.loads(
                run(
                    [
                        sys.executable,
                        "-c",
                        _STARTUP.format(
                            root=ROOT,
                            path=path,
                            master=master,
                            conf=[] if master.startswith("local") else _pairs(conf),
                        ),
                    ],
                    None,
                )["stdout"]
            )
            for _ in range(repeat)
        ),
        key=lambda p: p["session"] + p["first_query"],
    )
    startup = probes[len(probes) // 2]
    fixed = startup["session"] + startup["first_query"]
    print(
        f"{master} start-up: session {startup['session']:.1f} s + first query "
        f"{startup['first_query']:.1f} s = {fixed:.1f} s"
    )
    return fixed


def _pairs(conf: list[str]) -> list[tuple[str, str]]:
    return [(k, v) for k, _eq, v in (kv.partition("=") for kv in conf)]


def main() -> None:
    args = parse_args(sys.argv[1:])
    repeat, sizes = args.repeat, args.sizes
    cluster = None
    master = args.master
    if master == "start":
        import tempfile

        from tests.integration.spark_cluster.cluster import SparkCluster

        cluster = SparkCluster(Path(tempfile.mkdtemp(prefix="bench-spark-cluster-"))).start(2)
        master = cluster.url
    try:
        _main(repeat, sizes, master, args.conf or ["spark.executor.memory=512m"])
    finally:
        if cluster is not None:
            cluster.stop()


def _main(repeat: int, sizes: list[int], master: str | None, conf: list[str]) -> None:
    engines = [("local", LOCAL, None), ("local[2]", SPARK, "local[2]")]
    if master:
        cluster_args = ["--engine", "spark", "--spark-master", master]
        for kv in conf:
            cluster_args += ["--spark-conf", kv]
        engines.append(("cluster", cluster_args, master))
    print(
        f"machine: {os.cpu_count()} cores; Spark local[2]"
        + (f" and {master} ({' '.join(conf)})" if master else "")
        + f"; each figure the median of {repeat} fresh process(es)"
    )
    sys.path.insert(0, ROOT)
    from kgroup.scan.spark import cds_archive_path

    archive = cds_archive_path()
    if archive and not os.path.exists(archive):
        path, _ = bench_decode.generate(sizes[0])
        run(kgroup("decode", "--segments", path, *SPARK, "--summary"))  # makes the archive
    print(f"Spark class archive: {archive if archive and os.path.exists(archive) else 'none'}")
    for size in sizes:
        path, records = bench_decode.generate(size)
        mb = bench_decode.log_megabytes(path)
        print(f"== {size} MiB: {records:,} records, {mb:,.0f} MB")
        results = {}
        for name, engine, spark_master in engines:
            fixed = _startup(spark_master, path, repeat, conf) if spark_master else 0.0
            out_dir = os.path.join(OUT, f"bench-spark-{name.replace('[2]', '2')}-{size}")
            recs = []
            for _ in range(repeat):
                shutil.rmtree(out_dir, ignore_errors=True)
                recs.append(run(kgroup("decode", "--segments", path, *engine, "--out", out_dir)))
            recs.sort(key=lambda r: r["seconds"])
            rec = recs[len(recs) // 2]
            rec["all"] = [round(r["seconds"], 1) for r in recs]
            summ = _median_run(
                repeat, kgroup("-o", "json", "decode", "--segments", path, *engine, "--summary")
            )
            content = _content(out_dir, parquet=spark_master is not None)
            shutil.rmtree(out_dir, ignore_errors=True)
            results[name] = (rec, summ, content, json.loads(summ["stdout"])["groups"], fixed)
            for label, r in (
                ("records -> " + ("Parquet" if spark_master else "JSONL"), rec),
                ("--summary", summ),
            ):
                after = r["seconds"] - fixed
                print(
                    f"{name:8} {label:18}: {r['seconds']:7.1f} s end to end "
                    f"({mb / r['seconds']:5.1f} MB/s; after start-up {mb / after:5.1f} MB/s)  "
                    f"peak RSS {r['rss_mb']:6.0f} MB  runs {r['all']}"
                )
        lrec, lsum, lcontent, lgroups, _ = results["local"]
        for name, _engine, _m in engines[1:]:
            srec, ssum, scontent, sgroups, fixed = results[name]
            same = lcontent == scontent and lgroups == sgroups
            for label, lr, sr in (("records", lrec, srec), ("summary", lsum, ssum)):
                end_to_end = lr["seconds"] / sr["seconds"]
                after = lr["seconds"] / max(sr["seconds"] - fixed, 1e-9)
                print(
                    f"{name} vs local, {label}: {end_to_end:.2f}x end to end, "
                    f"{after:.2f}x after start-up"
                )
            print(
                f"{name}: identical results: {same} (rows {lcontent[0]:,} / {scontent[0]:,}, "
                f"offsets and record types compared; {len(lgroups)} groups' summaries)"
            )
    print("target: >= 1 GB: Spark faster end to end and >= 1.7x after start-up; results identical")
    if master:
        print(
            "cluster: 2 cores shared by master, workers, executors and driver here: the figures "
            "measure correctness and overhead, not speed-up"
        )


if __name__ == "__main__":
    main()
