"""`kgroup check` against the session's real broker, one test per status a user meets.

The broker of most sessions is tansu, which has no `__consumer_offsets` (TEST_ENVIRONMENT.md):
there `check` samples, which these tests exercise with short windows. A "consumer" in the
OK/WARN/headroom tests is the test itself committing offsets as an empty group would, which
is what a consumer's commits look like to OffsetFetch.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.helpers import (
    admin_for,
    commit_offsets,
    make_topic,
    run_kgroup,
    running_member,
)

pytestmark = pytest.mark.integration

# Sampling on every broker, so the windows are the same on tansu and on Kafka (history mode,
# which needs __consumer_offsets, is covered with constructed commits in tests/unit/check).
FAST = ("--window", "2s", "--samples", "5", "--source", "sampling")
SLOW = ("--window", "8s", "--samples", "9", "--source", "sampling")
WATCH = ("--window", "1s", "--samples", "2", "--source", "sampling", "--watch")


def check_json(bootstrap: str, *args: str, expect: int) -> dict:
    result = run_kgroup("-b", bootstrap, "check", *args, "-o", "json", expect=expect)
    return json.loads(result.stdout)


def produce(bootstrap: str, topic: str, count: int, timestamp_ms: int | None = None) -> None:
    from kgroup.core.clients import SeedRecord, produce_one_per_request

    ts = timestamp_ms or int(time.time() * 1000)
    produce_one_per_request(
        admin_for(bootstrap), [SeedRecord(topic, 0, ts + i, None, b"x") for i in range(count)]
    )


@contextmanager
def committing(bootstrap: str, group: str, topic: str, step, every_s: float = 0.3) -> Iterator:
    """A consumer stand-in: every `every_s`, `step(offset, log_end)` gives the next offset to
    commit (and may produce first); stops at the end of the block."""
    stop = threading.Event()
    admin = admin_for(bootstrap)
    from kgroup.core.models import TopicPartition

    state = {"offset": None}

    def loop() -> None:
        while not stop.is_set():
            end = admin.watermarks([TopicPartition(topic, 0)])[TopicPartition(topic, 0)].log_end
            state["offset"] = step(state["offset"], end)
            commit_offsets(bootstrap, group, {(topic, 0): state["offset"]})
            stop.wait(every_s)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        stop.set()
        thread.join(10)


@pytest.fixture()
def topic(kafka_broker, unique) -> str:
    name = f"chk-{unique}"
    make_topic(kafka_broker.bootstrap, name, [10])
    return name


def test_stopped_group_is_stop_and_exits_5(kafka_broker, topic, unique) -> None:
    group = f"chk-stop-{unique}"
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 4})
    result = run_kgroup("-b", kafka_broker.bootstrap, "check", group, *FAST, "-o", "json", expect=5)
    (entry,) = json.loads(result.stdout)["groups"]
    assert (entry["status"], entry["rule"]) == ("STOP", "no-members-no-commits")
    assert "STOP: no members and no commit in the window" in result.stderr
    assert entry["source"] == "sampling"
    assert "sampling 5 times over 2s" in result.stderr
    (p0,) = entry["partitions"]
    assert (p0["status"], p0["lag"], p0["current_offset"]) == ("STOP", 6, 4)
    assert [c["offset"] for c in p0["evidence"]["commits"]] == [4]


def test_auto_samples_when_history_cannot_be_read_and_says_why(kafka_broker, topic, unique):
    if not kafka_broker.is_tansu:
        pytest.skip("this broker has __consumer_offsets: check reads the history there")
    group = f"chk-auto-{unique}"
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 10})
    result = run_kgroup(
        "-b", kafka_broker.bootstrap, "check", group, "--window", "1s", "--samples", "2",
        "-o", "json", expect=5,
    )  # fmt: skip
    assert json.loads(result.stdout)["groups"][0]["source"] == "sampling"
    assert (
        "history unavailable: the cluster has no __consumer_offsets topic; sampling 2 times over 1s"
    ) in result.stderr


def test_unknown_group_is_notfound_and_exits_3(kafka_broker, unique) -> None:
    result = run_kgroup(
        "-b", kafka_broker.bootstrap, "check", f"chk-none-{unique}", *FAST, "-o", "json", expect=3
    )
    (entry,) = json.loads(result.stdout)["groups"]
    assert entry["status"] == "NOTFOUND"
    assert "not found" in result.stderr


def test_consumer_keeping_up_is_ok_and_exits_0(kafka_broker, topic, unique) -> None:
    group = f"chk-ok-{unique}"
    bootstrap = kafka_broker.bootstrap

    def keep_up(offset, end):
        produce(bootstrap, topic, 2)
        return end + 2

    with committing(bootstrap, group, topic, keep_up):
        time.sleep(0.5)
        doc = check_json(bootstrap, group, *FAST, expect=0)
    (entry,) = doc["groups"]
    assert entry["status"] == "OK"
    (p0,) = entry["partitions"]
    assert p0["status"] == "OK"
    assert len(p0["evidence"]["commits"]) >= 3  # the offset moved between samples


def test_consumer_falling_behind_is_warn(kafka_broker, topic, unique) -> None:
    group = f"chk-warn-{unique}"
    bootstrap = kafka_broker.bootstrap

    def fall_behind(offset, end):
        produce(bootstrap, topic, 3)
        return 1 if offset is None else offset + 1

    with committing(bootstrap, group, topic, fall_behind):
        time.sleep(0.5)
        doc = check_json(bootstrap, group, *FAST, expect=0)  # WARN passes --fail-on err
        strict = run_kgroup("-b", bootstrap, "check", group, *FAST, "--fail-on", "warn", expect=5)
    (entry,) = doc["groups"]
    assert (entry["status"], entry["rule"]) == ("WARN", "lag-not-decreasing")
    (p0,) = entry["partitions"]
    lags = [c["lag"] for c in p0["evidence"]["commits"]]
    assert lags == sorted(lags) and lags[0] < lags[-1]
    assert p0["falling_behind_per_s"] is not None and p0["falling_behind_per_s"] > 0
    assert "WARN or worse" in strict.stderr


def test_member_committing_the_same_offset_is_stall(kafka_broker, topic, unique) -> None:
    group = f"chk-stall-{unique}"
    bootstrap = kafka_broker.bootstrap
    with running_member(kafka_broker, group, topic, {0: 2}):
        produce(bootstrap, topic, 3)
        doc = check_json(bootstrap, group, *FAST, expect=5)
    (entry,) = doc["groups"]
    assert (entry["status"], entry["rule"]) == ("ERR", "stalled")
    (p0,) = entry["partitions"]
    assert p0["status"] == "STALL"
    assert {c["offset"] for c in p0["evidence"]["commits"]} == {2}
    assert len(p0["evidence"]["commits"]) == 5  # the member's commits, one per sample


def test_reset_offsets_back_is_rewind(kafka_broker, topic, unique) -> None:
    group = f"chk-rewind-{unique}"
    bootstrap = kafka_broker.bootstrap
    commit_offsets(bootstrap, group, {(topic, 0): 8})
    check = subprocess.Popen(
        [sys.executable, "-m", "kgroup", "-b", bootstrap, "check", group, *SLOW, "-o", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # rewind in the second half of the window: earlier, Burrow's STOP rule (checked first)
    # would call a group that only committed once before the rewind stopped
    time.sleep(4.3)
    run_kgroup(
        "-b", bootstrap, "reset-offsets", group, "--topic", topic, "--to-offset", "1", "--execute"
    )
    out, err = check.communicate(timeout=60)
    assert check.returncode == 5, err
    (entry,) = json.loads(out)["groups"]
    assert (entry["status"], entry["rule"]) == ("ERR", "rewind")
    (p0,) = entry["partitions"]
    assert p0["status"] == "REWIND"
    assert [c["offset"] for c in p0["evidence"]["commits"]] == [8, 1]


def test_retention_headroom_below_the_minimum_is_err(kafka_broker, unique) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    bootstrap = kafka_broker.bootstrap
    name = f"chk-ret-{unique}"
    group = f"chk-ret-g-{unique}"
    hour = 3_600_000
    client = AdminClient({"bootstrap.servers": bootstrap})
    created = client.create_topics([NewTopic(name, 1, 1, config={"retention.ms": str(hour)})])
    created[name].result(timeout=15)
    produce(bootstrap, name, 40, timestamp_ms=int(time.time() * 1000) - 50 * 60_000)

    def drain_slowly(offset, end):
        return 1 if offset is None else min(end, offset + 1)

    with committing(bootstrap, group, name, drain_slowly):
        time.sleep(0.5)
        doc = check_json(bootstrap, group, *FAST, "--min-headroom", "30m", expect=5)
        relaxed = check_json(bootstrap, group, *FAST, "--min-headroom", "5m", expect=0)
    (p0,) = doc["groups"][0]["partitions"]
    assert (p0["status"], p0["rule"]) == ("ERR", "min-headroom")
    # the first unconsumed record is ~50 minutes old, retention is an hour
    assert 8 * 60_000 < p0["headroom_ms"] <= 10 * 60_000
    assert p0["drain_eta_ms"] is not None  # consuming faster than producing
    (q0,) = relaxed["groups"][0]["partitions"]
    assert q0["status"] == "OK"


def test_watch_prints_status_changes_and_ctrl_c_exits_130(kafka_broker, topic, unique) -> None:
    import signal

    group = f"chk-watch-{unique}"
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 4})
    watch = subprocess.Popen(
        [sys.executable, "-m", "kgroup", "-b", kafka_broker.bootstrap, "check", group, *WATCH],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a child of a non-interactive shell may inherit SIGINT ignored: restore Ctrl-C
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(4.5)  # at least two windows: the same status twice, printed once
    watch.send_signal(signal.SIGINT)
    out, err = watch.communicate(timeout=30)
    assert watch.returncode == 130, err
    lines = out.splitlines()
    assert [line.split(" ", 1)[1] for line in lines] == [
        f"{group}: - -> STOP (no members and no commit in the window)",
        f"{group} {topic}:0: - -> STOP (no commit for longer than the window's commits span)",
    ]


def test_retention_bytes_headroom_or_why_it_is_missing(kafka_broker, unique) -> None:
    """A topic whose unconsumed bytes already exceed retention.bytes: a broker that answers
    DescribeLogDirs (API 35) gets headroom 0 by size and ERR under --min-headroom; one that
    does not (tansu 0.6) gets a note saying so and the time headroom."""
    from confluent_kafka.admin import AdminClient, NewTopic

    from kgroup.core.config import ClusterConfig
    from kgroup.core.wire.client import WireClient

    bootstrap = kafka_broker.bootstrap
    name = f"chk-bytes-{unique}"
    group = f"chk-bytes-g-{unique}"
    config = {"retention.ms": str(3_600_000), "retention.bytes": "1000"}
    client = AdminClient({"bootstrap.servers": bootstrap})
    client.create_topics([NewTopic(name, 1, 1, config=config)])[name].result(timeout=15)
    produce(bootstrap, name, 40, timestamp_ms=int(time.time() * 1000) - 10 * 60_000)
    with WireClient(ClusterConfig(bootstrap, timeout_s=10)) as wire:
        sizes_offered = 35 in wire.api_versions()

    def drain_slowly(offset, end):
        return 1 if offset is None else min(end, offset + 1)

    with committing(bootstrap, group, name, drain_slowly):
        time.sleep(0.5)
        result = run_kgroup(
            "-b", bootstrap, "check", group, *FAST, "--min-headroom", "30m", "-o", "json",
            expect=None,
        )  # fmt: skip
    (p0,) = json.loads(result.stdout)["groups"][0]["partitions"]
    # ~39 unconsumed records of one batch each (> 60 bytes): more than 1000 bytes
    if sizes_offered:
        assert result.code == 5, result.stderr
        assert (p0["rule"], p0["headroom_ms"], p0["headroom_by"]) == ("min-headroom", 0, "size")
        assert p0["partition_size_bytes"] > 1000
    else:
        assert result.code == 0, result.stderr
        assert f"retention.bytes headroom skipped for {name}:0: broker " in result.stderr
        assert "does not answer DescribeLogDirs v1-v4" in result.stderr
        assert p0["headroom_by"] == "time"
        assert 45 * 60_000 < p0["headroom_ms"] <= 50 * 60_000
