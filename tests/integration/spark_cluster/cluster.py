"""A real Spark standalone cluster for the tests: one master, workers, started from pyspark's wheel.

Source of truth: Spark's standalone mode (`spark-class org.apache.spark.deploy.master.Master`,
`...deploy.worker.Worker`), whose master reports its workers at `http://HOST:WEBUI/json`.
Each process is started here, in the foreground, and only these processes (and, for a worker
killed on purpose, the executor JVMs it had launched) are ever stopped.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pyspark

SPARK_HOME = os.path.dirname(os.path.abspath(pyspark.__file__))
SPARK_CLASS = os.path.join(SPARK_HOME, "bin", "spark-class")
DAEMON_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def children(pid: int) -> list[int]:
    """Every descendant of `pid` (from /proc), deepest last."""
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(entry))
    out: list[int] = []
    stack = list(kids.get(pid, ()))
    while stack:
        p = stack.pop()
        out.append(p)
        stack.extend(kids.get(p, ()))
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@dataclass
class Worker:
    proc: subprocess.Popen
    work_dir: Path
    log: Path


@dataclass
class SparkCluster:
    """A running standalone cluster: `url` is what `--spark-master` takes."""

    root: Path
    host: str = "127.0.0.1"
    port: int = 0
    webui: int = 0
    master: subprocess.Popen | None = None
    workers: list[Worker] = field(default_factory=list)
    started: int = 0

    @property
    def url(self) -> str:
        return f"spark://{self.host}:{self.port}"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYSPARK_PYTHON")}
        env.update(
            SPARK_HOME=SPARK_HOME,
            SPARK_LOCAL_IP=self.host,
            SPARK_DAEMON_MEMORY="256m",
            SPARK_DAEMON_JAVA_OPTS=DAEMON_OPTS,
        )
        return env

    def _spawn(self, args: list[str], log: Path) -> subprocess.Popen:
        fh = open(log, "ab")  # noqa: SIM115 - the child owns it
        try:
            # spark-class execs java: the Popen's pid is the JVM's
            return subprocess.Popen(
                [SPARK_CLASS, *args],
                stdout=fh,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.env(),
                cwd=self.root,
            )
        finally:
            fh.close()

    def start(self, workers: int = 2, timeout_s: float = 90) -> SparkCluster:
        self.port, self.webui = free_port(), free_port()
        self.master = self._spawn(
            [
                "org.apache.spark.deploy.master.Master",
                "--host",
                self.host,
                "--port",
                str(self.port),
                "--webui-port",
                str(self.webui),
            ],
            self.root / "master.log",
        )
        for _ in range(workers):
            self.add_worker()
        self.wait_workers(workers, timeout_s)
        return self

    def add_worker(self) -> Worker:
        n = self.started
        self.started += 1
        work = self.root / f"worker-{n}"
        work.mkdir()
        log = self.root / f"worker-{n}.log"
        proc = self._spawn(
            [
                "org.apache.spark.deploy.worker.Worker",
                self.url,
                "--host",
                self.host,
                "--cores",
                "1",
                "--memory",
                "1g",
                "--work-dir",
                str(work),
                "--webui-port",
                str(free_port()),
            ],
            log,
        )
        worker = Worker(proc, work, log)
        self.workers.append(worker)
        return worker

    def status(self) -> dict:
        with urllib.request.urlopen(f"http://{self.host}:{self.webui}/json", timeout=5) as resp:
            return json.loads(resp.read())

    def alive_workers(self) -> int:
        try:
            doc = self.status()
        except OSError:
            return 0
        return sum(1 for w in doc.get("workers", []) if w.get("state") == "ALIVE")

    def wait_workers(self, count: int, timeout_s: float = 90) -> None:
        deadline = time.monotonic() + timeout_s
        while self.alive_workers() < count:
            if self.master is not None and self.master.poll() is not None:
                raise RuntimeError(f"the Spark master exited: see {self.root / 'master.log'}")
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"{count} Spark workers did not register in {timeout_s:.0f} s: "
                    f"see the logs in {self.root}"
                )
            time.sleep(0.5)

    def kill_worker(self, worker: Worker) -> list[int]:
        """SIGKILL a worker JVM and the executor processes it launched; their pids."""
        pids = [worker.proc.pid, *children(worker.proc.pid)]
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        worker.proc.wait(timeout=30)
        self.workers.remove(worker)
        deadline = time.monotonic() + 30
        while any(_alive(p) for p in pids[1:]) and time.monotonic() < deadline:
            time.sleep(0.2)
        return pids

    def stop(self) -> None:
        """Stop the workers (each stops its executors), then the master; only these pids."""
        for worker in list(self.workers):
            _stop(worker.proc)
        if self.master is not None:
            _stop(self.master)


def _stop(proc: subprocess.Popen, grace_s: float = 20) -> None:
    if proc.poll() is not None:
        return
    kids = children(proc.pid)
    proc.terminate()
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
    for pid in kids:  # executors a worker started and could not stop itself
        if _alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
