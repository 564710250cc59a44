"""One command per row of README's exit-code table, through a real `kgroup` process.

The rows come from the README (tests/unit/test_exit_codes_table.py reads the same table): a
row without a case here, or a case for a code the table does not have, fails. Clusters are
scripted (tests/unit/wire/fakegroups.py), so no broker is needed.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers import Result, run_kgroup
from tests.unit.test_exit_codes_table import readme_exit_table
from tests.unit.wire.fakegroups import GroupsCluster


@pytest.fixture()
def cluster() -> Iterator[GroupsCluster]:
    made = GroupsCluster(
        topics={"orders": 2, "audit": 1},
        offsets={"billing": {("orders", 0): 5, ("orders", 1): 6, ("audit", 0): 7}},
    )
    yield made
    made.close()


def kgroup(cluster: GroupsCluster, tmp_path: Path, *args: str, expect: int) -> Result:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state")}
    return run_kgroup("-b", cluster.address, "--timeout", "5", *args, env=env, expect=expect)


def one_line(result: Result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def ok(cluster: GroupsCluster, tmp_path: Path) -> None:
    result = kgroup(
        cluster, tmp_path, "reset-offsets", "billing", "--all-topics", "--to", "earliest", expect=0
    )
    assert "Dry run: nothing was committed" in result.stdout


def kafka_error(cluster: GroupsCluster, tmp_path: Path) -> None:
    cluster.group_errors["billing"] = 30  # GROUP_AUTHORIZATION_FAILED
    result = kgroup(cluster, tmp_path, "delete-offsets", "billing", "--topic", "audit", expect=1)
    assert "Group:billing" in one_line(result)


def usage(cluster: GroupsCluster, tmp_path: Path) -> None:
    for args, needle in (
        (
            (
                "reset-offsets",
                "billing",
                "--all-topics",
                "--to",
                "earliest",
                "--execute",
                "--backup",
                "",
            ),
            "--backup needs a path",
        ),
        (("simulate-assign", "--scenario", "/dev/zero"), "/dev/zero is a character device"),
        (
            (
                "reset-offsets",
                "billing",
                "--backup",
                str(tmp_path / "no" / "b.json"),
                "--execute",
                "--all-topics",
                "--to",
                "earliest",
            ),
            "does not exist",
        ),
    ):
        assert needle in one_line(kgroup(cluster, tmp_path, *args, expect=2))


def not_found(cluster: GroupsCluster, tmp_path: Path) -> None:
    other = tmp_path / "other.csv"
    other.write_text("shipping,orders,0,1\n")
    for args, needle in (
        (("describe", "nosuch"), "not found: nosuch"),
        (("reset-offsets", "billing", "--from-file", str(other)), "has no rows for it"),
        (
            ("reset-offsets", "newgroup", "--all-topics", "--to", "earliest", "--allow-new-group"),
            "nothing to reset for group(s) newgroup",
        ),
        (("reset-offsets", "billing", "--from-file", str(tmp_path / "nope.csv")), "plan file"),
        (("-c", str(tmp_path / "nope.properties"), "describe", "billing"), "command config file"),
        (("simulate-assign", "--scenario", str(tmp_path / "nope.yaml")), "scenario file"),
        (("undo", "billing", "--backup", str(tmp_path / "nope.json")), "backup file"),
        (("decode", "--segments", str(tmp_path / "nope.log")), "no such file"),
    ):
        result = kgroup(cluster, tmp_path, *args, expect=3)
        assert needle in result.stderr, (args, result.stderr)
        assert result.stdout in ("", "No partitions.\n") or "nosuch" in result.stdout


def refused(cluster: GroupsCluster, tmp_path: Path) -> None:
    existing = tmp_path / "plan.csv"
    existing.write_text("keep me\n")
    result = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "billing",
        "--all-topics",
        "--to",
        "earliest",
        "--export",
        str(existing),
        expect=4,
    )
    assert f"{existing} exists already" in one_line(result)
    assert existing.read_text() == "keep me\n"


def check_failed(cluster: GroupsCluster, tmp_path: Path) -> None:
    result = kgroup(cluster, tmp_path, "describe", "billing", "--fail-on-lag", "0", expect=5)
    assert "lag more than 0" in result.stderr


def silent_listener() -> socket.socket:
    """A TCP port that accepts connections and never answers (a hung broker)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    return server


def unreachable(cluster: GroupsCluster, tmp_path: Path) -> None:
    with silent_listener() as server:
        address = f"127.0.0.1:{server.getsockname()[1]}"
        result = run_kgroup("-b", address, "--timeout", "1", "describe", "billing", expect=6)
    assert "Traceback" not in result.stderr


def corrupt(cluster: GroupsCluster, tmp_path: Path) -> None:
    segment = tmp_path / "00000000000000000000.log"
    segment.write_text("this is not a Kafka log segment\n" * 4)
    result = kgroup(cluster, tmp_path, "decode", "--segments", str(segment), expect=7)
    assert "not a Kafka log segment" in result.stderr


def interrupted(cluster: GroupsCluster, tmp_path: Path) -> None:
    with silent_listener() as server:
        address = f"127.0.0.1:{server.getsockname()[1]}"
        proc = subprocess.Popen(
            [sys.executable, "-m", "kgroup", "-b", address, "--timeout", "60", "describe", "g"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(2.0)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert "Traceback" not in err


def committed_at_risk(cluster: GroupsCluster, tmp_path: Path) -> None:
    """A consumer joins while kgroup holds the group for its commit (scripted coordinator)."""
    from tests.cli.test_cli_reset_fence import GROUP, run_with_joiner
    from tests.unit.wire.fakecoordinator import CoordinatorCluster

    coordinator = CoordinatorCluster(
        initial_delay_s=0.3, topics={"orders": 2}, offsets={GROUP: {("orders", 0): 2}}
    )
    try:
        code, _stdout, stderr, _done = run_with_joiner(coordinator, tmp_path, "billing-app")
    finally:
        coordinator.close()
    assert code == 8, stderr


def terminated(cluster: GroupsCluster, tmp_path: Path) -> None:
    """SIGTERM while the scripted coordinator holds the read-back after the commit."""
    from kgroup.protocol import messages as api_table
    from tests.cli.test_cli_reset_fence import start_reset
    from tests.unit.wire.fakecoordinator import CoordinatorCluster

    coordinator = CoordinatorCluster(
        initial_delay_s=0.2, topics={"orders": 2}, offsets={"g0": {("orders", 0): 2}}
    )
    try:
        held = coordinator.pause(
            api_table.OFFSET_FETCH, when=lambda: bool(coordinator.member_commits)
        )
        process = start_reset(coordinator, tmp_path, "g0")
        assert held.reached.wait(30), process.communicate(timeout=5)
        process.send_signal(signal.SIGTERM)
        _out, err = process.communicate(timeout=30)
        held.release.set()
    finally:
        coordinator.close()
    assert process.returncode == 143, err
    assert "Traceback" not in err


CASES: dict[int, Callable[[GroupsCluster, Path], None]] = {
    0: ok,
    1: kafka_error,
    2: usage,
    3: not_found,
    4: refused,
    5: check_failed,
    6: unreachable,
    7: corrupt,
    8: committed_at_risk,
    130: interrupted,
    143: terminated,
}


def test_every_row_of_the_table_has_a_case() -> None:
    assert set(readme_exit_table()) == set(CASES)


@pytest.mark.parametrize("code", sorted(CASES))
def test_row(code: int, cluster: GroupsCluster, tmp_path: Path) -> None:
    CASES[code](cluster, tmp_path)
