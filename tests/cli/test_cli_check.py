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
        (("g", "--min-headroom", "-1h"), "--min-headroom: duration '-1h' has a sign"),
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
