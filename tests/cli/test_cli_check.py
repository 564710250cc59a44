"""`kgroup check` refuses bad input before asking any broker: one line on stderr, exit 2; an
unreachable cluster exits 6. Through a real `kgroup` process; no broker needed."""

from __future__ import annotations

import pytest

from kgroup.sandbox.broker import free_port
from tests.helpers import run_kgroup


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


NOWHERE = ("-b", "127.0.0.1:1")  # never asked: every case fails before any request


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "name the groups to check in exactly one way"),
        (("g", "--all-groups"), "name the groups to check in exactly one way"),
        (("--all-groups", "--match", "x"), "name the groups to check in exactly one way"),
        (("g", "--window", "0s"), "--window must be longer than 0"),
        (("g", "--window", "soon"), "--window: cannot read 'soon' as a duration"),
        (("g", "--window", "2d"), "--window 2d is longer than a day"),
        (("g", "--samples", "1"), "--samples must be between 2 and 1000, got 1"),
        (("g", "--max-lag", "-1"), "--max-lag must be 0 or more, got -1"),
        (("g", "--max-lag-time", "10"), "--max-lag-time: duration '10' has no unit"),
        (("g", "--min-headroom", "-1h"), "--min-headroom -1h: a duration is a length of time"),
        (("g", "--fail-on", "warning"), "--fail-on 'warning' is not warn or err"),
        (("g", "--source", "logs"), "--source 'logs' is not one of auto, history, sampling"),
        (("g", "--watch", "-o", "json"), "--watch prints status changes as lines"),
        (("",), "group name must not be empty"),
        (
            ("g", "--no-lag-time", "--min-headroom", "1h"),
            "--min-headroom needs the lag time, which --no-lag-time skips",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], message: str) -> None:
    result = run_kgroup(*NOWHERE, "check", *args, expect=2)
    line = one_line(result.stderr)
    assert line.startswith("kgroup: error: ")
    assert message in line
    assert "Hint:" in line
    assert result.stdout == ""


def test_unreachable_cluster_exits_6() -> None:
    address = f"127.0.0.1:{free_port()}"
    result = run_kgroup("-b", address, "--timeout", "2", "check", "g", expect=6)
    assert address in one_line(result.stderr)
    assert result.stdout == ""


# --- retention.bytes headroom end to end, on a scripted broker ---------------------------------
# tansu 0.6 offers no DescribeLogDirs (API 35), so these runs use tests/unit/wire/fakecheck.py.


@pytest.fixture()
def size_cluster(monkeypatch: pytest.MonkeyPatch):
    from kgroup.core.wire.log_dirs import WIRE_API
    from kgroup.protocol import messages as api_table
    from tests.unit.wire.fakecheck import CheckCluster

    # FakeBroker picks header layouts from the wire client's API table, which does not list
    # DescribeLogDirs (sent by kgroup.core.wire.log_dirs)
    monkeypatch.setitem(api_table.APIS, WIRE_API.key, WIRE_API)
    made: list = []

    def make(**kw: object):
        cluster = CheckCluster(**kw)
        made.append(cluster)
        return cluster

    yield make
    for cluster in made:
        cluster.close()


def check_json(cluster, *args: str, expect: int):
    import json

    result = run_kgroup(
        "-b", cluster.address, "--timeout", "10", "check", "billing",
        "--window", "2s", "--samples", "3", "-o", "json", *args, expect=expect,
    )  # fmt: skip
    (group,) = json.loads(result.stdout)["groups"]
    (partition,) = group["partitions"]
    return result, group, partition


def test_min_headroom_is_err_by_size_when_retention_bytes_is_nearer(size_cluster) -> None:
    cluster = size_cluster()
    result, group, p = check_json(cluster, "--min-headroom", "1m", expect=5)
    assert (p["status"], p["rule"], p["headroom_by"]) == ("ERR", "min-headroom", "size")
    assert p["reason"].startswith("retention.bytes deletes unconsumed records in about ")
    # 1,000,000 bytes allowed, ~100-200 records of 1000 bytes after the commit, 100 kB/s
    assert 5_000 < p["headroom_ms"] == p["headroom_size_ms"] < 10_000
    assert 3 * 3_600_000 - 70_000 < p["headroom_time_ms"] < 3 * 3_600_000 - 59_000
    assert p["partition_size_bytes"] > 900_000
    assert group["status"] == "ERR"
    assert "Traceback" not in result.stderr
    # one DescribeLogDirs for the partition, at the highest version both speak
    assert [(v, d["topics"]) for v, d in cluster.log_dirs_asked] == [
        (4, [{"topic": "orders", "partitions": [0]}])
    ]


def test_without_a_size_limit_time_decides_and_the_size_is_not_asked(size_cluster) -> None:
    cluster = size_cluster(retention_bytes=-1)
    _, _, p = check_json(cluster, "--min-headroom", "1m", expect=0)
    assert (p["status"], p["rule"], p["headroom_by"]) == ("WARN", "lag-not-decreasing", "time")
    assert p["headroom_size_ms"] is None
    assert cluster.log_dirs_asked == []


def test_a_broker_without_describe_log_dirs_says_so_and_keeps_time(size_cluster) -> None:
    cluster = size_cluster(offer_log_dirs=False)
    result, _, p = check_json(cluster, "--min-headroom", "1m", expect=0)
    assert (p["headroom_by"], p["partition_size_bytes"]) == ("time", None)
    assert (
        "kgroup: retention.bytes headroom skipped for orders:0: broker 127.0.0.1:" in result.stderr
    )
    assert "does not answer DescribeLogDirs v1-v4" in result.stderr
