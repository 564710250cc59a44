"""The kafka engine's pieces that need no broker: the generated server.properties, the quorum
style read from the distribution, and the PID-reuse guard of `stop`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kgroup.sandbox.broker import kafka_properties, quorum_style, stop
from kgroup.sandbox.state import SandboxState, process_is, process_start_ticks


def _props(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def test_properties_of_a_single_node_kraft_broker(tmp_path) -> None:
    voters = _props(kafka_properties(19092, 19093, tmp_path / "data", "voters"))
    assert voters["controller.quorum.voters"] == "1@127.0.0.1:19093"
    assert "controller.quorum.bootstrap.servers" not in voters
    assert voters["listeners"] == "PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093"
    assert voters["advertised.listeners"] == "PLAINTEXT://127.0.0.1:19092"
    assert voters["controller.listener.names"] == "CONTROLLER"
    assert voters["log.dirs"] == str(tmp_path / "data")
    dynamic = _props(kafka_properties(19092, 19093, tmp_path / "data", "bootstrap"))
    assert dynamic["controller.quorum.bootstrap.servers"] == "127.0.0.1:19093"
    assert "controller.quorum.voters" not in dynamic


def test_quorum_style_follows_the_distribution_config(tmp_path) -> None:
    home = tmp_path / "kafka"
    assert quorum_style(home) == "voters"  # no config: the style every 3.7+ accepts
    (home / "config" / "kraft").mkdir(parents=True)
    (home / "config" / "server.properties").write_text(
        "#controller.quorum.voters=1@localhost:9093\n"
        "controller.quorum.bootstrap.servers=localhost:9093\n"
    )
    assert quorum_style(home) == "bootstrap"
    # 3.7/3.8 keep their KRaft config in config/kraft/, read first
    (home / "config" / "kraft" / "server.properties").write_text(
        "controller.quorum.voters=1@localhost:9093\n"
    )
    assert quorum_style(home) == "voters"


def test_stop_never_ends_a_process_that_only_reuses_the_recorded_pid(isolated_state) -> None:
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        ticks = process_start_ticks(other.pid)
        assert ticks is not None and process_is(other.pid, ticks)
        assert not process_is(other.pid, ticks - 1)
        SandboxState(
            engine="kafka",
            bootstrap="127.0.0.1:1",
            pid=other.pid,
            binary=str(Path("/nowhere")),
            started_at="2026-01-01T00:00:00+00:00",
            log_file="",
            process_start=ticks - 1,  # the recorded Kafka started at another time
        ).save()
        stopped = stop()
        assert stopped is not None and stopped.pid == other.pid
        assert other.poll() is None  # still running: not ours
    finally:
        other.kill()
        other.wait()
