"""SIGTERM while `reset-offsets --execute` writes its report: the run had finished, the report
was being written (a large `-o json` document into a pipe nobody reads yet, so the write
blocks). SIGTERM's handler used to be given back before the report: the signal killed the
process (-15) and the document was cut. Now the handler stays until the report is written: the
report is finished, and the run exits 143. The scripted coordinator of
tests/unit/wire/fakecoordinator.py stands in for Kafka (no Kafka here)."""

from __future__ import annotations

import fcntl
import json
import signal
import subprocess
import sys
import termios
import time
from array import array
from collections.abc import Iterator

import pytest

from tests.cli.test_cli_reset_fence import kgroup_env
from tests.unit.wire.fakecoordinator import CoordinatorCluster

PARTITIONS = 1500  # the JSON document is several times a pipe's 64 KiB


@pytest.fixture()
def cluster() -> Iterator[CoordinatorCluster]:
    made = CoordinatorCluster(
        topics={"orders": PARTITIONS},
        offsets={"g0": {("orders", p): 2 for p in range(PARTITIONS)}},
    )
    yield made
    made.close()


def unread(process: subprocess.Popen) -> int:
    """Bytes waiting in the process's stdout pipe."""
    size = array("i", [0])
    fcntl.ioctl(process.stdout.fileno(), termios.FIONREAD, size)
    return size[0]


def wait_blocked_writing(process: subprocess.Popen, timeout_s: float = 60) -> None:
    """Until the process is stuck writing stdout: the pipe holds bytes and stays as it is."""
    deadline = time.monotonic() + timeout_s
    last, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        assert process.poll() is None, "the run ended before its report filled the pipe"
        now = unread(process)
        if now != last:
            last, since = now, time.monotonic()
        elif now > 0 and time.monotonic() - since > 0.5:
            return
        time.sleep(0.05)
    raise AssertionError("the report never filled the pipe")


@pytest.mark.parametrize("command", ["reset", "undo"])
def test_sigterm_while_the_report_is_written_finishes_it_and_exits_143(
    cluster, tmp_path, command
) -> None:
    base = [sys.executable, "-m", "kgroup", "-b", cluster.address, "--timeout", "20"]
    env = kgroup_env(tmp_path)
    if command == "undo":  # a reset first (its backup), then the undo whose report is cut
        first = subprocess.run(
            [*base, "reset-offsets", "g0", "--all-topics", "--to-offset", "9", "--execute"],
            env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert first.returncode == 0, first.stderr
        args = ["undo", "g0", "--execute", "-o", "json"]
    else:
        args = ["reset-offsets", "g0", "--all-topics", "--to-offset", "9", "--execute"]
        args += ["-o", "json"]
    stderr_file = tmp_path / "stderr"
    with stderr_file.open("w") as stderr:
        process = subprocess.Popen(
            [*base, *args], env=env, stdout=subprocess.PIPE, stderr=stderr, text=True
        )
        try:
            wait_blocked_writing(process)
            process.send_signal(signal.SIGTERM)
            time.sleep(0.3)  # the signal is there before the report goes on
            stdout, _ = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
    errors = stderr_file.read_text()
    assert process.returncode == 143, errors  # was -15: killed while writing the report
    assert len(stdout) > 4 * 65536
    assert "Traceback" not in errors
    document = json.loads(stdout)  # the whole report, not cut
    (group,) = document["groups"]
    assert (group["group"], group["status"]) == ("g0", "committed")
    assert errors.strip().splitlines()[-1] == (
        "kgroup: error: terminated (SIGTERM) while the report was written; the run had "
        "finished and the report is complete"
    )
    expected = 9 if command == "reset" else 2
    assert cluster.committed("g0") == {("orders", p): expected for p in range(PARTITIONS)}


def test_a_failure_reported_when_sigterm_came_keeps_its_message_and_exits_143() -> None:
    """In this process: the report ends in an error (a group not reset) and SIGTERM came while
    it was written; the error is said, with exit 143, and the test runner's handler is back."""
    import os

    from kgroup.core.errors import PartialFailure
    from kgroup.reset.interrupts import Interrupts

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(PartialFailure) as raised, Interrupts() as interrupts:
        interrupts.reporting()
        os.kill(os.getpid(), signal.SIGTERM)  # held until the block is left
        raise PartialFailure("1 of 2 group(s) not reset: g1: refused")
    assert raised.value.exit_code == 143
    assert raised.value.message == (
        "1 of 2 group(s) not reset: g1: refused; then SIGTERM came while the report was written"
    )
    assert signal.getsignal(signal.SIGTERM) is before
    assert signal.SIGTERM not in signal.sigpending()
