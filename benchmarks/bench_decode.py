"""Local decode engine speed and memory on generated `__consumer_offsets` segments.

Generates (once, cached under benchmarks/out/, which is gitignored) a log directory of
`__consumer_offsets-N` partitions written by kgroup's encoder with a realistic mix: 90 % of the
records are OffsetCommitValue v3 (batches of 1-8 partitions, one batch per OffsetCommit
request, as the coordinator writes them), 10 % GroupMetadataValue v3 of consumer groups with
3-10 members (subscription/assignment v3). Segments roll at 100 MiB like
`offsets.topic.segment.bytes`.

Then, each in a fresh single-threaded process (so peak RSS is the decoder's own):
- `scan`: the local engine frames, CRC-checks and key-decodes every record; values are decoded
  lazily (what `--latest`, `--as-of` and filters need); best of 3 runs;
- `values`: the same, reading every record's value (group members' protocol bytes included);
- `group`: the same with a --group filter (keys decoded, most values skipped);
- `jsonl`: the whole CLI, `kgroup decode --segments DIR -o jsonl > /dev/null`;
- `out`: the whole CLI, `kgroup decode --segments DIR --out TMPDIR` (JSON Lines files).
Prints records/s, MB/s and peak RSS, plus a calibration figure for this machine's core speed
(`sum(range(1000))`, about 8-10 us on a current desktop core). The CLI runs are rated per
CPU-second (user + sys of the kgroup process), which a busy machine does not distort.
Targets: >= 300,000 records/s on one core for `scan`; >= 300,000 records per CPU-second for
`jsonl` and `out` (issue #13); RSS flat (<= 300 MB) whatever the input size, checked by running
at two sizes.

The C fast path (kgroup/offsets/_speedups.c) is used when built (`pip install -e .` or
`python setup.py build_ext --inplace`); `--pure` measures the pure-Python codec instead.

Usage: python benchmarks/bench_decode.py [--pure] [SIZE_MB ...]   (default: 50 200)
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

from kgroup.offsets import encode as enc  # noqa: E402

OUT = os.path.join(ROOT, "benchmarks", "out")
PARTITIONS = 50
SEGMENT_BYTES = 100 * 1024 * 1024
TEMPLATES = 4000


def _group_value(rng: random.Random, group: str, topics: list[str]) -> bytes:
    members = []
    n = rng.randint(3, 10)
    for i in range(n):
        member_id = f"consumer-{group}-{i}-{rng.getrandbits(64):016x}"
        mine = [{"topic": t, "partitions": [p for p in range(12) if p % n == i]} for t in topics]
        members.append(
            {
                "member_id": member_id,
                "group_instance_id": None,
                "client_id": f"consumer-{group}-{i}",
                "client_host": f"/10.1.{rng.randint(0, 255)}.{rng.randint(0, 255)}",
                "rebalance_timeout": 300000,
                "session_timeout": 45000,
                "subscription": {
                    "version": 3,
                    "topics": topics,
                    "user_data": None,
                    "owned_partitions": mine,
                    "generation_id": 7,
                    "rack_id": None,
                },
                "assignment": {"version": 3, "assigned_partitions": mine, "user_data": None},
            }
        )
    value = enc.encode_value(
        2,
        3,
        {
            "protocol_type": "consumer",
            "generation": 7,
            "protocol": "range",
            "leader": members[0]["member_id"],
            "current_state_timestamp": 1_760_000_000_000,
            "members": members,
        },
    )
    assert value is not None
    return value


def _templates(rng: random.Random) -> list[tuple[int, int, bytes]]:
    """(partition, records, batch bytes) templates; offsets are patched when written."""
    from kgroup.offsets.replay import partition_for

    out = []
    groups = [f"service-{i:04d}-consumers" for i in range(400)]
    ts = 1_760_000_000_000
    offset_records = 0
    group_records = 0
    while len(out) < TEMPLATES:
        group = rng.choice(groups)
        part = partition_for(group, PARTITIONS)
        topics = [f"orders.events.v{j}" for j in range(rng.randint(1, 3))]
        ts += rng.randint(1, 2000)
        if group_records * 9 < offset_records:
            key = enc.encode_key(2, {"group": group})
            batch = enc.encode_batch(
                [(key, _group_value(rng, group, topics))], base_offset=0, timestamp=ts
            )
            group_records += 1
            out.append((part, 1, batch))
        else:
            n = rng.randint(1, 8)
            entries = [
                enc.offset_commit(
                    group,
                    rng.choice(topics),
                    p,
                    rng.randint(0, 10**9),
                    commit_timestamp=ts,
                    leader_epoch=rng.randint(0, 20),
                )
                for p in range(n)
            ]
            batch = enc.encode_batch(entries, base_offset=0, timestamp=ts)
            offset_records += n
            out.append((part, n, batch))
    return out


def log_megabytes(path: str) -> float:
    """MB (10**6 bytes) of the .log segment files below `path`."""
    return (
        sum(
            os.path.getsize(os.path.join(d, f))
            for d, _, fs in os.walk(path)
            for f in fs
            if f.endswith(".log")
        )
        / 1e6
    )


def generate(size_mb: int) -> tuple[str, int]:
    """A log directory of about `size_mb` MiB; returns (path, record count)."""
    path = os.path.join(OUT, f"decode-{size_mb}mb")
    marker = os.path.join(path, "records.json")
    if os.path.exists(marker):
        with open(marker) as fh:
            return path, json.load(fh)["records"]
    rng = random.Random(42)
    templates = _templates(rng)
    files: dict[int, object] = {}
    next_offset = [0] * PARTITIONS
    written = [0] * PARTITIONS
    total = 0
    records = 0
    target = size_mb * 1024 * 1024
    os.makedirs(path, exist_ok=True)
    i = 0
    while total < target:
        part, n, batch = templates[i % len(templates)]
        i += 1
        fh = files.get(part)
        if fh is None or written[part] >= SEGMENT_BYTES:
            if fh is not None:
                fh.close()  # type: ignore[attr-defined]
            d = os.path.join(path, f"__consumer_offsets-{part}")
            os.makedirs(d, exist_ok=True)
            fh = open(os.path.join(d, f"{next_offset[part]:020d}.log"), "wb")  # noqa: SIM115
            files[part] = fh
            written[part] = 0
        # baseOffset is outside the CRC: patching it keeps the batch valid
        data = next_offset[part].to_bytes(8, "big", signed=True) + batch[8:]
        fh.write(data)  # type: ignore[attr-defined]
        next_offset[part] += n
        written[part] += len(data)
        total += len(data)
        records += n
    for fh in files.values():
        fh.close()  # type: ignore[attr-defined]
    with open(marker, "w") as out:
        json.dump({"records": records, "bytes": total}, out)
    return path, records


_SCAN = """
import resource, sys, time, json
sys.path.insert(0, {root!r})
from kgroup.offsets import native
native.set_enabled({native})
from kgroup.scan.local import DecodeFilter, LocalEngine, find_segments
inputs = find_segments([{path!r}])
flt = DecodeFilter(groups=frozenset({groups!r})) if {groups!r} else None
best = None
for _ in range({runs}):
    eng = LocalEngine(flt)
    t = time.perf_counter()
    n = 0
    for rec in eng.plain(eng.segment_records(inputs)):
        n += 1
        if {values}:
            rec.value
    dt = time.perf_counter() - t
    best = dt if best is None else min(best, dt)
dt = best
print(json.dumps({{"seconds": dt, "emitted": n, "read": eng.stats.records,
                  "bytes": sum(i.size for i in inputs),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


NATIVE = True


def run_scan(path: str, groups: list[str], *, values: bool = False, runs: int = 3) -> dict:
    code = _SCAN.format(
        root=ROOT, path=path, groups=groups, values=values, runs=runs, native=NATIVE
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def run_cli(path: str, *extra: str) -> dict:
    """`kgroup decode --segments PATH EXTRA` in a fresh process (stdout to /dev/null): wall
    seconds, and the CPU seconds (user + sys) of that process alone -- the figure to compare
    on a busy machine, where wall time measures the neighbours too."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    code = (
        f"import sys; sys.path.insert(0, {ROOT!r}); from kgroup.offsets import native; "
        f"native.set_enabled({NATIVE}); from kgroup.cli.app import main; "
        f"sys.argv = ['kgroup', 'decode', '--segments', {path!r}, *{list(extra)!r}]; main()"
    )
    with open(os.devnull, "w") as devnull:
        subprocess.run(
            [sys.executable, "-c", code],
            stdout=devnull,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            check=True,
        )
    dt = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rss = after.ru_maxrss / 1024
    return {"seconds": dt, "cpu": cpu, "rss_mb": rss}


def _cli_line(label: str, records: int, mb: float, run: dict) -> str:
    return (
        f"{label:6s}: {records / run['cpu']:>10,.0f} records/CPU-s "
        f"({records / run['seconds']:,.0f} records/s wall) {mb / run['cpu']:6.1f} MB/CPU-s  "
        f"CPU {run['cpu']:5.2f} s  peak RSS (largest child so far) {run['rss_mb']:.0f} MB"
    )


def main() -> None:
    import timeit

    global NATIVE
    args = sys.argv[1:]
    from kgroup.offsets import native

    NATIVE = "--pure" not in args and native.available()
    sizes = [int(a) for a in args if a != "--pure"] or [50, 200]
    calib = min(timeit.repeat("sum(range(1000))", number=2000, repeat=5)) / 2000 * 1e6
    print(f"calibration: sum(range(1000)) = {calib:.1f} us on this core")
    print(f"compiled fast path: {'on' if NATIVE else 'off (pure Python)'}")
    for size in sizes:
        t = time.perf_counter()
        path, records = generate(size)
        gen = time.perf_counter() - t
        mb = log_megabytes(path)
        print(f"== {size} MiB input: {records:,} records, {mb:.0f} MB (generated in {gen:.1f} s)")
        scan = run_scan(path, [])
        print(
            f"scan  : {scan['read'] / scan['seconds']:>10,.0f} records/s "
            f"{mb / scan['seconds']:6.1f} MB/s  {scan['seconds']:6.1f} s  "
            f"peak RSS {scan['rss_mb']:.0f} MB"
        )
        full = run_scan(path, [], values=True, runs=1)
        print(
            f"values: {full['read'] / full['seconds']:>10,.0f} records/s "
            f"{mb / full['seconds']:6.1f} MB/s  {full['seconds']:6.1f} s  "
            f"peak RSS {full['rss_mb']:.0f} MB  (every value decoded, members included)"
        )
        group = run_scan(path, ["service-0007-consumers"])
        print(
            f"group : {group['read'] / group['seconds']:>10,.0f} records/s "
            f"{mb / group['seconds']:6.1f} MB/s  {group['seconds']:6.1f} s  "
            f"peak RSS {group['rss_mb']:.0f} MB  ({group['emitted']:,} records kept)"
        )
        print(_cli_line("jsonl", records, mb, run_cli(path, "-o", "jsonl")))
        with tempfile.TemporaryDirectory() as tmp:
            out = run_cli(path, "--out", os.path.join(tmp, "out"))
        print(_cli_line("out", records, mb, out))
    print(
        "targets: scan >= 300,000 records/s on one core; jsonl and out >= 300,000 records per "
        "CPU-second (issue #13); peak RSS <= 300 MB at every size"
    )


if __name__ == "__main__":
    main()
