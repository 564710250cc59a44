"""Fleet runs through a real `kgroup` process on a scripted coordinator
(tests/unit/wire/fakegroups.py): groups of a ListGroups type describe and check do not handle
(issue #29; every type Kafka 4.1 lists is handled, so the fake lists types a later Kafka might
add), a missing group found before the window (issue #24 item 8)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.helpers import run_kgroup
from tests.unit.wire.fakegroups import GroupsCluster

SKIP_LINE = (
    "kgroup: {command} skips 2 nextgen groups, 1 oddtype group: "
    "it does not handle groups of that type yet"
)


@pytest.fixture()
def cluster() -> Iterator[GroupsCluster]:
    made = GroupsCluster(
        topics={"orders": 2},
        offsets={"billing": {("orders", 0): 4, ("orders", 1): 10}},
        other_types={"next-a": "nextgen", "next-b": "nextgen", "odd-a": "oddtype"},
    )
    yield made
    made.close()


def kgroup(cluster: GroupsCluster, tmp_path, *args: str, expect: int | None = 0):
    return run_kgroup(
        "-b", cluster.address, "--timeout", "10", *args,
        env={"XDG_CONFIG_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path),
             "KGROUP_NO_PROGRESS": "1"},
        expect=expect,
    )  # fmt: skip


@pytest.mark.parametrize("mode", ["json", "table"])
def test_describe_all_groups_skips_groups_of_unknown_types_once(cluster, tmp_path, mode) -> None:
    result = kgroup(cluster, tmp_path, "describe", "--all-groups", "-o", mode)
    assert result.stderr.splitlines() == [SKIP_LINE.format(command="describe")]
    if mode == "json":
        assert [g["group"] for g in json.loads(result.stdout)["groups"]] == ["billing"]
    else:
        assert "next-a" not in result.stdout and "billing: total lag 6" in result.stdout


def test_describe_a_named_group_of_an_unknown_type_is_still_a_failure(cluster, tmp_path) -> None:
    result = kgroup(cluster, tmp_path, "describe", "next-a", "billing", expect=None)
    assert result.code != 0
    assert "next-a" in result.stderr


def test_check_all_groups_skips_groups_of_unknown_types_once(cluster, tmp_path) -> None:
    result = kgroup(
        cluster, tmp_path, "check", "--all-groups", "--window", "1s", "--samples", "2",
        "--no-lag-time", "-o", "json", expect=None,
    )  # fmt: skip
    assert result.code in (0, 5), result.stderr
    skip = [line for line in result.stderr.splitlines() if "skips" in line]
    assert skip == [SKIP_LINE.format(command="check")]
    assert [g["group"] for g in json.loads(result.stdout)["groups"]] == ["billing"]


def test_check_a_missing_group_exits_3_before_the_window(cluster, tmp_path) -> None:
    result = kgroup(cluster, tmp_path, "check", "nosuch", "--window", "15s", expect=3)
    assert result.seconds < 8, result.seconds  # not after the 15 s window
    assert "nosuch" in result.stderr
    assert "sampling" not in result.stderr  # nothing was sampled for it
    assert "Traceback" not in result.stderr


def test_check_named_groups_missing_beyond_the_first_chunk_exit_3_before_the_window(
    cluster, tmp_path
) -> None:
    # more named groups than one chunk (issue #29's CHUNK_GROUPS), none of them existing: the
    # later chunks are looked up before the window too, so nothing is sampled and the run
    # ends at once with exit 3 (it sampled every missing group of the later chunks for the
    # whole window, then said they were not found)
    from kgroup.check.run import CHUNK_GROUPS

    names = [f"nosuch{i:05d}" for i in range(CHUNK_GROUPS + 1)]
    result = kgroup(cluster, tmp_path, "check", *names, "--window", "20s", expect=3)
    assert result.seconds < 15, result.seconds  # not after the 20 s window
    assert "sampling" not in result.stderr, result.stderr  # nothing was sampled
    assert f"{CHUNK_GROUPS + 1} of {CHUNK_GROUPS + 1} groups not found" in result.stderr


def test_check_missing_and_present_groups_reports_both(cluster, tmp_path) -> None:
    result = kgroup(
        cluster, tmp_path, "check", "nosuch", "billing", "--window", "1s", "--samples", "2",
        "--no-lag-time", "-o", "json", expect=None,
    )  # fmt: skip
    assert result.code in (1, 3, 5), result.stderr
    groups = {g["group"]: g["status"] for g in json.loads(result.stdout)["groups"]}
    assert groups["nosuch"] == "NOTFOUND" and groups["billing"] != "NOTFOUND"


@pytest.mark.parametrize("mode", ["json", "jsonl", "csv", "table"])
def test_describe_failing_before_any_group_prints_nothing(cluster, tmp_path, mode) -> None:
    # the first chunk is described before the output starts: no half-written JSON document
    result = kgroup(
        cluster, tmp_path, "describe", "billing", "--topic", "nosuch", "-o", mode, expect=3
    )
    assert result.stdout == ""
    assert "nosuch" in result.stderr


@pytest.mark.parametrize("mode", ["csv", "table"])
def test_state_view_keeps_kip848_columns_of_a_group_after_the_sampled_rows(tmp_path, mode) -> None:
    # the table's and CSV's columns come from the first rows (SAMPLE_ROWS); a KIP-848 group
    # listed after them must not lose its epochs (the columns were those of the sample only)
    from kgroup.render.stream import SAMPLE_ROWS
    from tests.unit.wire.fakegroups import FakeConsumerGroup

    classic = {f"a{i:05d}": {("orders", 0): 1} for i in range(SAMPLE_ROWS)}
    made = GroupsCluster(
        topics={"orders": 1},
        offsets={**classic, "zz-new": {("orders", 0): 2}},
        consumer_groups={"zz-new": FakeConsumerGroup(group_epoch=7, assignment_epoch=6)},
    )
    try:
        result = kgroup(made, tmp_path, "describe", "--all-groups", "--state", "-o", mode)
    finally:
        made.close()
    lines = result.stdout.splitlines()
    last = next(line for line in lines if line.startswith("zz-new"))
    if mode == "csv":
        header = lines[0].split(",")
        assert "group_epoch" in header and "assignment_epoch" in header, header
        row = dict(zip(header, last.split(","), strict=True))
        assert (row["group_epoch"], row["assignment_epoch"]) == ("7", "6")
    else:
        # GROUP_EPOCH, ASSIGNMENT_EPOCH, and TOPOLOGY_EPOCH (a later streams group may have one)
        assert lines[0].split()[-3:] == ["GROUP_EPOCH", "ASSIGNMENT_EPOCH", "TOPOLOGY_EPOCH"]
        assert last.split()[-3:] == ["7", "6", "-"], last


def test_describe_json_interrupted_after_the_first_chunk_is_still_one_document(tmp_path) -> None:
    # Ctrl-C while a later chunk is described: the groups printed so far and `"error":
    # "interrupted"` in a closed document (as decode's), exit 130; not half a document
    import os
    import signal
    import subprocess
    import sys
    import threading
    import time

    from kgroup.describe.run import CHUNK_GROUPS
    from kgroup.protocol import messages as api_table

    made = GroupsCluster(
        topics={"orders": 1},
        offsets={f"g{i:05d}": {("orders", 0): 1} for i in range(CHUNK_GROUPS + 1)},
    )
    answered = made.handler
    last = f"g{CHUNK_GROUPS:05d}"  # the one group of the second chunk
    asked: list[int] = []
    release = threading.Event()

    def handler(api: int, version: int, body: bytes) -> bytes:
        if api == api_table.DESCRIBE_GROUPS.key and last.encode() in body:
            asked.append(1)  # the second chunk: hold the answer until the test ends
            release.wait(30)
        return answered(api, version, body)

    made.broker.handler = handler
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path),
           "PYTHONPATH": os.getcwd()}  # fmt: skip
    args = [sys.executable, "-m", "kgroup", "-b", made.address, "--timeout", "20",
            "describe", "--all-groups", "-o", "json"]  # fmt: skip
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    chunks: list[bytes] = []  # stdout read while it comes (a full pipe would block kgroup)
    reader = threading.Thread(target=lambda: chunks.extend(iter(proc.stdout.read1, b"")))
    reader.start()
    try:
        deadline = time.monotonic() + 30
        while not asked and time.monotonic() < deadline:
            time.sleep(0.05)
        assert asked, "the second chunk was never asked for"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        reader.join(30)
        stdout, stderr = b"".join(chunks), proc.stderr.read()
    finally:
        release.set()
        if proc.poll() is None:
            proc.kill()
        made.close()
    assert proc.returncode == 130, stderr
    assert stdout.startswith(b"{"), (stdout[:200], stderr)
    document = json.loads(stdout)
    assert document["error"] == "interrupted"
    assert len(document["groups"]) == CHUNK_GROUPS
