"""Ctrl-C or SIGTERM while `kgroup delete` / `reset-offsets --execute` writes its report (the
work is done, the report goes into a pipe nobody reads yet, so the write blocks), through a real
`kgroup` process against scripted brokers (tests/unit/wire/fakeshare.py, fakecoordinator.py).

- `delete` gave its SIGTERM handler back before printing its rows: a SIGTERM then killed the
  process (-15) and cut the rows. Now one mechanism (kgroup.reset.interrupts.Interrupts) holds
  for reset, undo and delete: the rows are written in full, then exit 143.
- Ctrl-C while a report was written left only "kgroup: interrupted" (exit 130): the groups whose
  rows were cut were never said. Now the printing stops, every group's outcome is said on
  stderr, one line each, then exit 130.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import termios
import threading
import time
from array import array
from collections.abc import Iterator

import pytest

from kgroup.protocol import messages as api_table
from tests.cli.test_cli_reset_fence import kgroup_env
from tests.cli.test_cli_streams_internal_topics import make
from tests.unit.wire.fakecoordinator import CoordinatorCluster
from tests.unit.wire.fakegroups import GroupsCluster
from tests.unit.wire.fakeshare import DELETE_GROUPS, ShareCluster

DELETED = [f"g{i:03d}" for i in range(300)]  # rows of ~60 bytes: several times a 4 KiB pipe


def small_pipe() -> tuple[int, int]:
    """A pipe of one page (4 KiB): a report of a few KiB blocks the writer."""
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)
    return read_end, write_end


def unread(fd: int) -> int:
    size = array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, size)
    return size[0]


def start_blocked(command: list[str], env: dict[str, str]) -> tuple[subprocess.Popen, int]:
    """`command` with stdout into a small pipe, once its report has filled the pipe and it is
    stuck writing the rest; returns the process and the pipe's read end."""
    read_end, write_end = small_pipe()
    process = subprocess.Popen(
        command, env=env, stdout=write_end, stderr=subprocess.PIPE, text=True
    )
    os.close(write_end)
    deadline = time.monotonic() + 60
    last, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        now = unread(read_end)
        if now != last:
            last, since = now, time.monotonic()
        elif now > 0 and time.monotonic() - since > 0.5:
            return process, read_end
        time.sleep(0.05)
    process.kill()
    raise AssertionError("the report never filled the pipe")


def finish(process: subprocess.Popen, read_end: int, sig: int) -> tuple[str, str]:
    """Send `sig`, then read everything; the process's stdout and stderr."""
    process.send_signal(sig)
    time.sleep(0.3)  # the signal is there before the report goes on
    chunks = []
    with os.fdopen(read_end, "rb") as out:
        while chunk := out.read(65536):
            chunks.append(chunk)
    stderr = process.stderr.read()
    process.wait(timeout=60)
    return b"".join(chunks).decode(), stderr


@pytest.fixture
def groups() -> Iterator[ShareCluster]:
    made = make(tuple(DELETED))  # empty streams groups: DescribeGroups says them (Empty)
    yield made
    made.close()


def delete_command(cluster: ShareCluster, *output: str) -> list[str]:
    base = [sys.executable, "-m", "kgroup", "-b", cluster.address, "--timeout", "20"]
    return [*base, "delete", *DELETED, *output]


def test_sigterm_while_delete_prints_its_rows_finishes_them_and_exits_143(groups, tmp_path) -> None:
    process, read_end = start_blocked(delete_command(groups, "-o", "json"), kgroup_env(tmp_path))
    stdout, stderr = finish(process, read_end, signal.SIGTERM)
    assert process.returncode == 143, stderr  # was -15: killed while printing the rows
    assert "Traceback" not in stderr
    rows = json.loads(stdout)["groups"]  # every row, the document whole
    assert [(r["group"], r["status"]) for r in rows] == [(g, "deleted") for g in DELETED]
    assert stderr.strip().splitlines()[-1] == (
        "kgroup: error: terminated (SIGTERM) while the report was written; the run had "
        "finished and the report is complete"
    )
    assert not set(DELETED) & set(groups.offsets)


def test_ctrl_c_while_delete_prints_its_rows_says_every_group_and_exits_130(
    groups, tmp_path
) -> None:
    process, read_end = start_blocked(delete_command(groups), kgroup_env(tmp_path))
    stdout, stderr = finish(process, read_end, signal.SIGINT)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert not all(g in stdout for g in DELETED)  # the table is cut
    lines = stderr.strip().splitlines()
    said = [line.removeprefix("kgroup: ") for line in lines[:-1]]
    assert said[-len(DELETED) :] == [f"{g}: deleted" for g in DELETED]  # was: none of them
    assert lines[-1] == (
        "kgroup: error: interrupted (SIGINT) while the report was written; the report is cut; "
        "the lines above say what happened to each group"
    )


@pytest.fixture
def coordinator() -> Iterator[CoordinatorCluster]:
    made = CoordinatorCluster(
        topics={"orders": 200},
        offsets={g: {("orders", p): 2 for p in range(200)} for g in ("r0", "r1")},
    )
    yield made
    made.close()


def test_ctrl_c_while_the_reset_report_is_written_says_every_group_and_its_undo(
    coordinator, tmp_path
) -> None:
    command = [sys.executable, "-m", "kgroup", "-b", coordinator.address, "--timeout", "20"]
    command += ["reset-offsets", "r0", "r1", "--all-topics", "--to-offset", "1", "--execute"]
    process, read_end = start_blocked([*command, "-o", "json"], kgroup_env(tmp_path))
    _stdout, stderr = finish(process, read_end, signal.SIGINT)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    lines = [line.removeprefix("kgroup: ") for line in stderr.strip().splitlines()]
    for group in ("r0", "r1"):  # was: only "kgroup: interrupted"
        (line,) = [x for x in lines if x.startswith(f"{group}: ")]
        assert line.startswith(f"{group}: committed and verified; backup ")
        assert f"undo with: kgroup undo {group} --backup " in line
    assert lines[-1] == (
        "error: interrupted (SIGINT) while the report was written; the report is cut; the "
        "lines above say what happened to each group"
    )
    assert coordinator.committed("r0") == {("orders", p): 1 for p in range(200)}


class HeldDescribe(ShareCluster):
    """DescribeGroups held unanswered (`described` set when it arrives) until close()."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.described = threading.Event()

    def handler(self, api: int, version: int, body: bytes) -> bytes:
        if api == api_table.DESCRIBE_GROUPS.key:
            self.described.set()
            self.release.wait(30)
        return super().handler(api, version, body)


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupt_before_delete_groups_ends_in_the_signals_words_and_code(
    tmp_path, sig, code
) -> None:
    """SIGTERM while `delete` described the groups (before DeleteGroups) killed kgroup (-15);
    both signals now end the run with one line and the signal's exit code, nothing deleted."""
    made = HeldDescribe(
        topics={"orders": 1}, offsets={"a": {("orders", 0): 5}, "b": {("orders", 0): 5}}
    )
    try:
        command = [sys.executable, "-m", "kgroup", "-b", made.address, "--timeout", "20"]
        process = subprocess.Popen(
            [*command, "delete", "a", "b"],
            env=kgroup_env(tmp_path),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert made.described.wait(30), process.communicate(timeout=5)
        process.send_signal(sig)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        made.close()
    name = "SIGTERM" if sig == signal.SIGTERM else "SIGINT"
    assert process.returncode == code, stderr  # SIGTERM: was -15
    assert stderr.strip().splitlines()[-1] == f"kgroup: error: interrupted ({name})"
    assert stdout == ""
    assert not [r for key, r in made.requests if key == DELETE_GROUPS.key]


def test_the_signal_table_is_the_one_rule() -> None:
    """Which signal gives which exit code and words: one table, used by every caller."""
    from kgroup.reset.interrupts import (
        Terminated,
        interrupted_error,
        signal_exit_code,
        signal_of,
    )

    assert (signal_of(Terminated()), signal_of(KeyboardInterrupt())) == ("SIGTERM", "SIGINT")
    assert (signal_exit_code("SIGINT"), signal_exit_code("SIGTERM")) == (130, 143)
    error = interrupted_error("SIGTERM", "while deleting groups", "the rows say", hint="h")
    assert (error.one_line(), error.exit_code) == (
        "interrupted (SIGTERM) while deleting groups; the rows say. Hint: h",
        143,
    )


@pytest.fixture
def offsets() -> Iterator[GroupsCluster]:
    made = GroupsCluster(topics={"orders": 300}, offsets={"billing": dict.fromkeys(PARTITIONS, 5)})
    yield made
    made.close()


PARTITIONS = [("orders", p) for p in range(300)]


def delete_offsets_command(cluster: GroupsCluster, *output: str) -> list[str]:
    base = [sys.executable, "-m", "kgroup", "-b", cluster.address, "--timeout", "20"]
    return [*base, "delete-offsets", "billing", "--topic", "orders", *output]


def test_sigterm_while_delete_offsets_prints_its_rows_finishes_them_and_exits_143(
    offsets, tmp_path
) -> None:
    command = delete_offsets_command(offsets, "-o", "json")
    process, read_end = start_blocked(command, kgroup_env(tmp_path))
    stdout, stderr = finish(process, read_end, signal.SIGTERM)
    assert process.returncode == 143, stderr  # was -15: killed while printing the rows
    rows = json.loads(stdout)["partitions"]
    assert [(r["topic"], r["partition"], r["status"]) for r in rows] == [
        (t, p, "deleted") for t, p in PARTITIONS
    ]
    assert "terminated (SIGTERM) while the report was written" in stderr
    assert offsets.offsets.get("billing", {}) == {}


def test_ctrl_c_while_delete_offsets_prints_its_rows_says_every_partition(
    offsets, tmp_path
) -> None:
    process, read_end = start_blocked(delete_offsets_command(offsets), kgroup_env(tmp_path))
    _stdout, stderr = finish(process, read_end, signal.SIGINT)
    assert process.returncode == 130, stderr
    said = [line.removeprefix("kgroup: ") for line in stderr.strip().splitlines()]
    assert said[-len(PARTITIONS) - 1 : -1] == [f"billing {t}:{p}: deleted" for t, p in PARTITIONS]
    assert said[-1].startswith("error: interrupted (SIGINT) while the report was written")


class HeldOffsetDelete(GroupsCluster):
    """OffsetDelete held unanswered (`asked` set when it arrives) until close(): the request
    may have been applied or not, nobody can tell from the client."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.asked = threading.Event()
        self.release = threading.Event()

    def handler(self, api: int, version: int, body: bytes) -> bytes:
        if api == api_table.OFFSET_DELETE.key:
            self.asked.set()
            self.release.wait(30)
        return super().handler(api, version, body)

    def close(self) -> None:
        self.release.set()
        super().close()


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupt_during_offset_delete_says_each_partition_unknown(tmp_path, sig, code) -> None:
    """An interrupt while OffsetDelete was in flight ended in a bare 'interrupted (SIGTERM)':
    nothing said whether the offsets were gone. Now, as `delete` does for DeleteGroups, each
    partition asked for is a row `unknown` (the document whole) and the last line says so."""
    made = HeldOffsetDelete(topics={"orders": 3}, offsets={"billing": {("orders", 0): 5}})
    try:
        command = [sys.executable, "-m", "kgroup", "-b", made.address, "--timeout", "20"]
        process = subprocess.Popen(
            [*command, "delete-offsets", "billing", "--topic", "orders", "-o", "json"],
            env=kgroup_env(tmp_path),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert made.asked.wait(30), process.communicate(timeout=5)
        process.send_signal(sig)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        made.close()
    name = "SIGTERM" if sig == signal.SIGTERM else "SIGINT"
    assert process.returncode == code, stderr
    assert "Traceback" not in stderr
    rows = json.loads(stdout)["partitions"]  # was: no rows at all
    assert [(r["partition"], r["status"]) for r in rows] == [
        (0, "unknown"),
        (1, "no_offset"),
        (2, "no_offset"),
    ]
    assert "kgroup describe billing" in rows[0]["message"]
    assert stderr.strip().splitlines()[-1] == (
        f"kgroup: error: interrupted ({name}) while deleting offsets; the rows say which "
        "partitions' offsets may be deleted (unknown). Hint: check them with `kgroup describe "
        "billing`"
    )
