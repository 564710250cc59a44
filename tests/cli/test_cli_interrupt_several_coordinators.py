"""Ctrl-C while kgroup waits for several coordinators' answers (tests/unit/wire/fakecluster.py,
three scripted brokers; no Kafka here): broker 2 holds its answer, broker 1 has answered.

kgroup used to wait for every coordinator's answer (up to --timeout, 20 s here) before it
stopped and reported. Now an interrupt stops the wait at once; the requests still pending have
an unknown outcome, which the commands already say (`delete`: `unknown whether deleted`), and
no request not yet sent is sent after it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from kgroup.protocol import messages as api_table
from kgroup.protocol.messages.share_groups import DELETE_GROUPS
from tests.cli.test_cli_reset_fence import kgroup_env
from tests.unit.wire.fakecluster import FakeCluster

GROUPS = {"a1": 1, "b1": 2}  # group -> its coordinator broker
START = {("orders", 0): 3, ("orders", 1): 4}
PROMPT_S = 5.0  # an interrupt answered well before --timeout (20 s)


class Held:
    """Broker 2 holds requests of `api` unanswered (until the test ends); `reached` once one
    arrived."""

    def __init__(self, cluster: FakeCluster, api: int) -> None:
        self.reached = threading.Event()
        self.release = threading.Event()
        node = cluster.node(2)
        serve = node.handler

        def handler(key: int, version: int, body: bytes) -> bytes:
            if key == api:
                self.reached.set()
                self.release.wait(60)
                return b"DROP"
            return serve(key, version, body)

        node.handler = handler


@pytest.fixture()
def cluster() -> Iterator[FakeCluster]:
    made = FakeCluster(
        topics={"orders": 2}, offsets={g: dict(START) for g in GROUPS}, coordinators=dict(GROUPS)
    )
    yield made
    made.close()


def interrupted_run(
    cluster: FakeCluster, tmp_path, held: Held, *args: str
) -> tuple[int, str, str, float]:
    command = [sys.executable, "-m", "kgroup", "-b", cluster.address, "--timeout", "20", *args]
    process = subprocess.Popen(
        command, env=kgroup_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert held.reached.wait(30), process.communicate(timeout=5)
        time.sleep(0.3)  # broker 1's answer is in
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        held.release.set()
        if process.poll() is None:
            process.kill()
    assert "Traceback" not in stderr, stderr
    return process.returncode, stdout, stderr, took


def test_describe_stops_at_once(cluster, tmp_path) -> None:
    held = Held(cluster, api_table.DESCRIBE_GROUPS.key)
    code, _stdout, stderr, took = interrupted_run(
        cluster, tmp_path, held, "describe", "a1", "b1", "-o", "json"
    )
    assert code == 130, stderr
    assert took < PROMPT_S, f"waited {took:.1f} s for the other coordinator"


def test_delete_stops_at_once_and_says_each_group(cluster, tmp_path) -> None:
    held = Held(cluster, DELETE_GROUPS.key)
    code, stdout, stderr, took = interrupted_run(
        cluster, tmp_path, held, "delete", "a1", "b1", "-o", "json"
    )
    assert code == 130, stderr
    assert took < PROMPT_S, f"waited {took:.1f} s for the other coordinator"
    rows = {r["group"]: r["status"] for r in json.loads(stdout)["groups"]}
    assert rows == {"a1": "deleted", "b1": "unknown"}
    assert cluster.deleted == ["a1"]


def test_reset_planning_stops_at_once_and_commits_nothing(cluster, tmp_path) -> None:
    held = Held(cluster, api_table.OFFSET_FETCH.key)
    code, _stdout, stderr, took = interrupted_run(
        cluster, tmp_path, held, "reset-offsets", "a1", "b1", "--all-topics", "--to-offset",
        "0", "--execute",
    )  # fmt: skip
    assert code == 130, stderr
    assert took < PROMPT_S, f"waited {took:.1f} s for the other coordinator"
    assert cluster.commits == []
