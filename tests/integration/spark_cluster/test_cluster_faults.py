"""Faults during `kgroup decode --out` on the standalone cluster: a worker (and its executor)
killed mid-job, and the driver (kgroup itself) killed mid-job.

A worker lost: Spark runs the lost tasks again on the other worker; the commit takes one
attempt per input partition, so the part files are contiguous, hold the local engine's rows
once each, and `_SUCCESS` is written once. The driver lost: nothing is committed (no part
file, no `_SUCCESS`); the next run into the same directory removes the stage and writes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import run_kgroup
from tests.integration.spark_cluster.cluster import _alive, children
from tests.integration.spark_cluster.conftest import cluster_args
from tests.integration.spark_cluster.test_cluster_decode import parquet_records

pytestmark = [pytest.mark.spark_cluster, pytest.mark.spark]

SPLIT = "spark.sql.files.maxPartitionBytes=128k"


@pytest.fixture(scope="module")
def big_expected(big_segments: str) -> list[dict]:
    """The local engine's record stream of the big segments (as the CLI prints it)."""
    out = run_kgroup("-o", "jsonl", "decode", "--segments", big_segments, "--engine", "local")
    return [json.loads(line) for line in out.stdout.splitlines()]


def start_kgroup(*args: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGROUP_")}
    return subprocess.Popen(
        [sys.executable, "-m", "kgroup", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def wait_staged(out: Path, proc: subprocess.Popen, count: int = 1, timeout_s: float = 120) -> None:
    """Until tasks have staged `count` part files under out/_temporary/<job>/ (tasks running)."""
    deadline = time.monotonic() + timeout_s
    while len(list(out.glob("_temporary/*/part-*.parquet"))) < count:
        if proc.poll() is not None:
            raise AssertionError(f"kgroup ended before the kill: {proc.communicate()}")
        assert time.monotonic() < deadline, "no task staged a part file in time"
        time.sleep(0.1)


def test_worker_killed_mid_job(spark_cluster, big_segments, big_expected, tmp_path) -> None:
    out = tmp_path / "out"
    proc = start_kgroup(
        "decode",
        "--segments",
        big_segments,
        *cluster_args(spark_cluster, SPLIT),
        "--out",
        str(out),
    )
    try:
        wait_staged(out, proc)
        victim = spark_cluster.workers[0]
        executors = children(victim.proc.pid)
        assert executors, "the worker had launched no executor"
        killed = spark_cluster.kill_worker(victim)
        assert proc.poll() is None, "the job ended before the worker was killed"
        _stdout, stderr = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
        # the fixture's cluster gets its second worker back for the tests after this one
        spark_cluster.add_worker()
        spark_cluster.wait_workers(2)
    assert not any(_alive(p) for p in killed)
    assert proc.returncode == 0, stderr
    names = sorted(p.name for p in out.iterdir())
    parts = [n for n in names if n.startswith("part-")]
    assert names == ["_SUCCESS", *parts]
    assert parts == [f"part-{i:05d}.parquet" for i in range(len(parts))]
    assert len(parts) > 6  # several tasks per segment file
    assert parquet_records(out) == big_expected


def test_driver_killed_mid_job_leaves_out_uncommitted(
    spark_cluster, big_segments, big_expected, tmp_path
) -> None:
    out = tmp_path / "out"
    args = ["decode", "--segments", big_segments, *cluster_args(spark_cluster, SPLIT)]
    proc = start_kgroup(*args, "--out", str(out))
    jvms: list[int] = []
    try:
        wait_staged(out, proc)
        jvms = children(proc.pid)  # the driver JVM PySpark launched (it exits when we do)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 60
    while (
        any(_alive(p) for p in jvms) or spark_cluster.status().get("activeapps")
    ) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not any(_alive(p) for p in jvms), "the driver JVM outlived kgroup"
    assert not spark_cluster.status().get("activeapps"), "the application is still running"
    # left as it was: nothing committed, only the stage of the dead job
    assert sorted(p.name for p in out.iterdir()) == ["_temporary"]
    assert not list(out.glob("*.parquet"))

    again = run_kgroup(*args, "--out", str(out), timeout=240)
    assert f"--out {out}: removed _temporary/ left by an interrupted run" in again.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names[0] == "_SUCCESS" and "_temporary" not in names
    assert parquet_records(out) == big_expected
