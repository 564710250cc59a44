"""`kgroup describe` against the session's real broker: exact lag numbers, exit codes, batching."""

from __future__ import annotations

import json
import time

import pytest

from tests.helpers import admin_for, commit_offsets, make_topic, run_kgroup

pytestmark = pytest.mark.integration

BASE_MS = 1_767_225_600_000  # record i of partition p: BASE + i minutes + p seconds


@pytest.fixture()
def lagging(kafka_broker, unique):
    """Topic with 10, 6, 0 records; an empty group committed at 4, 6 (partition 2 never)."""
    topic = f"desc-{unique}"
    group = f"desc-g-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [10, 6, 0])
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 4, (topic, 1): 6})
    return kafka_broker.bootstrap, topic, group


def describe_json(bootstrap: str, *args: str, expect: int = 0) -> dict:
    return json.loads(
        run_kgroup("-b", bootstrap, "describe", *args, "-o", "json", expect=expect).stdout
    )


def test_exact_lag_for_a_stopped_group(lagging) -> None:
    bootstrap, topic, group = lagging
    document = describe_json(bootstrap, group)
    (entry,) = document["groups"]
    assert entry["error"] is None
    assert entry["state"] == "Empty"
    rows = [
        (
            p["topic"],
            p["partition"],
            p["current_offset"],
            p["log_start_offset"],
            p["log_end_offset"],
            p["lag"],
            p["consumer_id"],
        )
        for p in entry["partitions"]
    ]
    assert rows == [(topic, 0, 4, 0, 10, 6, None), (topic, 1, 6, 0, 6, 0, None)]
    assert entry["total_lag"] == 6
    assert entry["topics"] == [{"topic": topic, "total_lag": 6}]


def test_lag_time_is_the_age_of_the_first_unconsumed_record(lagging) -> None:
    bootstrap, _topic, group = lagging
    before = int(time.time() * 1000)
    entry = describe_json(bootstrap, group, "--lag-time")["groups"][0]
    after = int(time.time() * 1000)
    p0, p1 = entry["partitions"]
    first_unconsumed = BASE_MS + 4 * 60_000  # record at offset 4 of partition 0
    assert before - first_unconsumed <= p0["lag_ms"] <= after - first_unconsumed
    assert p1["lag_ms"] == 0


def test_topic_filter_and_table_totals(lagging) -> None:
    bootstrap, topic, group = lagging
    out = run_kgroup("-b", bootstrap, "describe", group, "--topic", topic).stdout
    lines = out.splitlines()
    assert lines[0].split()[:7] == [
        "GROUP",
        "TOPIC",
        "PARTITION",
        "CURRENT_OFFSET",
        "LOG_START_OFFSET",
        "LOG_END_OFFSET",
        "LAG",
    ]
    assert lines[1].split()[:7] == [group, topic, "0", "4", "0", "10", "6"]
    assert lines[-1] == f"{group}: total lag 6 ({topic} 6)"
    # a topic the cluster does not have is exit 3 naming it (issue #24 item 9)
    none = run_kgroup("-b", bootstrap, "describe", group, "--topic", "other-topic", expect=3)
    assert "topic other-topic does not exist" in none.stderr


def test_fail_on_lag_exit_codes(lagging) -> None:
    bootstrap, _topic, group = lagging
    failed = run_kgroup("-b", bootstrap, "describe", group, "--fail-on-lag", "5", expect=5)
    assert "lag more than 5" in failed.stderr and "lag 6" in failed.stderr
    assert failed.stdout  # the table is still printed
    run_kgroup("-b", bootstrap, "describe", group, "--fail-on-lag", "6", expect=0)


def test_unknown_group_exits_3_and_others_still_print(lagging) -> None:
    bootstrap, _topic, group = lagging
    alone = run_kgroup("-b", bootstrap, "describe", "no-such-group-xyz", expect=3)
    assert "no-such-group-xyz" in alone.stderr
    document = describe_json(bootstrap, group, "no-such-group-xyz", expect=3)
    ok, missing = document["groups"]
    assert ok["group"] == group and ok["total_lag"] == 6
    assert missing["group"] == "no-such-group-xyz" and "does not exist" in missing["error"]


def test_state_view(lagging) -> None:
    bootstrap, _topic, group = lagging
    (entry,) = describe_json(bootstrap, group, "--state")["groups"]
    assert entry["state"] == "Empty" and entry["members"] == 0
    assert entry["coordinator"]["port"] == int(bootstrap.rsplit(":", 1)[1])


def test_match_selects_groups_by_regex(kafka_broker, unique) -> None:
    topic = f"match-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [3])
    for name in ("alpha", "beta"):
        commit_offsets(kafka_broker.bootstrap, f"m-{name}-{unique}", {(topic, 0): 1})
    document = describe_json(kafka_broker.bootstrap, "--match", f"^m-alpha-{unique}$")
    assert [g["group"] for g in document["groups"]] == [f"m-alpha-{unique}"]
    bad = run_kgroup("-b", kafka_broker.bootstrap, "describe", "--match", "(", expect=2)
    assert "regular expression" in bad.stderr


def test_all_groups_returns_every_group(kafka_broker, unique) -> None:
    topic = f"many-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [5, 5])
    names = [f"many-{unique}-{i:03d}" for i in range(200)]
    for i, name in enumerate(names):
        commit_offsets(kafka_broker.bootstrap, name, {(topic, 0): i % 6, (topic, 1): 5})
    document = describe_json(kafka_broker.bootstrap, "--all-groups")
    mine = [g for g in document["groups"] if g["group"].startswith(f"many-{unique}-")]
    assert [g["group"] for g in mine] == names
    assert [g["total_lag"] for g in mine] == [5 - i % 6 for i in range(200)]
    jsonl = run_kgroup(
        "-b", kafka_broker.bootstrap, "describe", "--match", f"^many-{unique}-", "-o", "jsonl"
    ).stdout.splitlines()
    assert len(jsonl) == 200


@pytest.mark.real_kafka
def test_members_of_an_active_group_on_real_kafka(kafka_broker, unique) -> None:
    """Client ids, hosts and assignments: tansu returns none of them, real Kafka does."""
    from confluent_kafka import Consumer

    topic = f"members-{unique}"
    group = f"members-g-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [2, 2])
    consumer = Consumer(
        {
            "bootstrap.servers": kafka_broker.bootstrap,
            "group.id": group,
            "client.id": "members-test",
            "enable.auto.commit": False,
        }
    )
    consumer.subscribe([topic])
    try:
        deadline = time.monotonic() + 60
        while not consumer.assignment() and time.monotonic() < deadline:
            consumer.poll(0.5)
        (entry,) = describe_json(kafka_broker.bootstrap, group, "--members", "-v")["groups"]
        (member,) = entry["members"]
        assert member["client_id"] == "members-test"
        assert member["partitions"] == 2
        assert member["assignment"] == f"{topic}:0,1"
    finally:
        consumer.close()


def _transactional_producer(bootstrap: str, txn_id: str):
    from confluent_kafka import Producer

    producer = Producer(
        {"bootstrap.servers": bootstrap, "transactional.id": txn_id, "linger.ms": 0}
    )
    producer.init_transactions(30)
    return producer


def test_read_committed_removes_the_lag_a_commit_marker_leaves(kafka_broker, unique) -> None:
    """Three records committed in one transaction take offsets 0-2 and the commit marker 3;
    a consumer that read them commits 3. Offset arithmetic says lag 1 forever; a read_committed
    consumer has nothing left to read, so --read-committed says 0."""
    from kgroup.core.clients import create_topics

    topic, group = f"txn-{unique}", f"txn-g-{unique}"
    create_topics(admin_for(kafka_broker.bootstrap), {topic: 1})
    producer = _transactional_producer(kafka_broker.bootstrap, f"txn-{unique}")
    producer.begin_transaction()
    for _ in range(3):
        producer.produce(topic, value=b"r", partition=0)
        producer.flush(30)
    producer.commit_transaction(30)
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 3})
    plain = describe_json(kafka_broker.bootstrap, group)["groups"][0]["partitions"][0]
    assert (plain["log_end_offset"], plain["lag"]) == (4, 1)
    committed_view = describe_json(kafka_broker.bootstrap, group, "--read-committed", "--lag-time")[
        "groups"
    ][0]
    row = committed_view["partitions"][0]
    assert (row["log_end_offset"], row["lag"], row["lag_ms"]) == (4, 0, 0)
    assert committed_view["total_lag"] == 0


@pytest.mark.real_kafka
def test_read_committed_lag_stops_at_an_open_transaction(kafka_broker, unique) -> None:
    """With a transaction open, the last stable offset is its first offset (tansu 0.6.0 answers
    0 there, TEST_ENVIRONMENT.md): read_committed consumers cannot go further."""
    from kgroup.core.clients import create_topics

    topic, group = f"open-{unique}", f"open-g-{unique}"
    create_topics(admin_for(kafka_broker.bootstrap), {topic: 1})
    producer = _transactional_producer(kafka_broker.bootstrap, f"open-{unique}")
    producer.begin_transaction()
    for _ in range(2):
        producer.produce(topic, value=b"r", partition=0)
    producer.commit_transaction(30)  # offsets 0-1, marker 2
    producer.begin_transaction()
    for _ in range(3):
        producer.produce(topic, value=b"o", partition=0)
    producer.flush(30)  # offsets 3-5 in an open transaction
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 2})
    try:
        row = describe_json(kafka_broker.bootstrap, group, "--read-committed")["groups"][0][
            "partitions"
        ][0]
        assert (row["log_end_offset"], row["lag"]) == (3, 0)
        plain = describe_json(kafka_broker.bootstrap, group)["groups"][0]["partitions"][0]
        assert (plain["log_end_offset"], plain["lag"]) == (6, 4)
    finally:
        producer.abort_transaction(30)


def test_watch_refreshes_until_interrupted(lagging) -> None:
    import signal
    import subprocess
    import sys

    bootstrap, _topic, group = lagging
    proc = subprocess.Popen(
        [sys.executable, "-m", "kgroup", "-b", bootstrap, "describe", group, "--watch", "0.3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130
    assert out.count(f"{group}: total lag 6") >= 2, out
    assert "Traceback" not in err
    refused = run_kgroup("-b", bootstrap, "describe", group, "--watch", "1", "-o", "json", expect=2)
    assert "--watch" in refused.stderr
