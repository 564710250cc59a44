"""`reset-offsets --to-group G` and `--to-committed-at TIME` (live) against the session's broker.

Offsets are checked with an OffsetFetch of the test's own after each run. tansu has no
`__consumer_offsets`, so the live history is a topic of records made by kgroup's encoder, read
with `--offsets-topic` (as decode's live tests do); Kafka's own segments are the fixture of
tests/cli/test_cli_reset_history.py.
"""

from __future__ import annotations

import json

import pytest

from kgroup.offsets import encode as enc
from kgroup.offsets.replay import partition_for
from tests.helpers import admin_for, commit_offsets, make_topic, run_kgroup

pytestmark = pytest.mark.integration


def committed(bootstrap: str, group: str) -> dict[tuple[str, int], int]:
    offsets = admin_for(bootstrap).committed_offsets_or_none(group)
    return {(tp.topic, tp.partition): value.offset for tp, value in offsets.items()}


@pytest.fixture()
def two_groups(kafka_broker, unique, isolated_state):
    """Topic of 10, 8, 6 records; `prod` committed 7, 6 on partitions 0, 1 (not 2); `canary`
    committed 2, 2, 3 (undo then only moves offsets: tansu has no OffsetDelete)."""
    bootstrap = kafka_broker.bootstrap
    topic = f"copy-{unique}"
    prod, canary = f"prod-{unique}", f"canary-{unique}"
    make_topic(bootstrap, topic, [10, 8, 6])
    commit_offsets(bootstrap, prod, {(topic, 0): 7, (topic, 1): 6})
    commit_offsets(bootstrap, canary, {(topic, 0): 2, (topic, 1): 2, (topic, 2): 3})
    return bootstrap, topic, prod, canary, {"XDG_STATE_HOME": str(isolated_state)}


def test_to_group_plans_both_columns_commits_copies_and_undo_restores(two_groups) -> None:
    bootstrap, topic, prod, canary, env = two_groups
    args = ("-b", bootstrap, "reset-offsets", canary, "--to-group", prod, "--topic", topic)
    plan = json.loads(run_kgroup(*args, "-o", "json", env=env).stdout)["groups"][0]
    rows = {r["partition"]: r for r in plan["partitions"]}
    assert {p: (r["current_offset"], r["new_offset"]) for p, r in rows.items()} == {
        0: (2, 7),
        1: (2, 6),
    }
    assert rows[0]["from"] == f"group {prod}"
    assert any(f"left out (group {prod} has no committed offset there): {topic}:2" in w
               for w in plan["warnings"])  # fmt: skip
    run_kgroup(*args, "--execute", env=env)
    assert committed(bootstrap, canary) == {(topic, 0): 7, (topic, 1): 6, (topic, 2): 3}
    assert committed(bootstrap, prod) == {(topic, 0): 7, (topic, 1): 6}  # read, never changed
    run_kgroup("-b", bootstrap, "undo", canary, "--execute", env=env)
    assert committed(bootstrap, canary) == {(topic, 0): 2, (topic, 1): 2, (topic, 2): 3}


def test_to_group_into_a_new_group_with_all_topics(two_groups, unique) -> None:
    bootstrap, topic, prod, _canary, env = two_groups
    fresh = f"fresh-{unique}"
    args = ("-b", bootstrap, "reset-offsets", fresh, "--to-group", prod, "--all-topics")
    dry = run_kgroup(*args, env=env, expect=3)  # a new group: --execute would refuse it
    assert f"{prod}" in dry.stdout and "does not exist" in dry.stdout
    run_kgroup(*args, "--execute", "--allow-new-group", env=env)
    assert committed(bootstrap, fresh) == {(topic, 0): 7, (topic, 1): 6}


def test_to_group_of_a_missing_group_exits_3_and_changes_nothing(two_groups, unique) -> None:
    bootstrap, topic, _prod, canary, env = two_groups
    result = run_kgroup(
        "-b", bootstrap, "reset-offsets", canary, "--to-group", f"nope-{unique}",
        "--topic", topic, "--execute", env=env, expect=3,
    )  # fmt: skip
    assert f"--to-group nope-{unique}: group nope-{unique} does not exist" in result.stderr
    assert committed(bootstrap, canary) == {(topic, 0): 2, (topic, 1): 2, (topic, 2): 3}


T0 = 1_767_225_600_000
OFFSETS_PARTITIONS = 3


@pytest.fixture()
def history_topic(kafka_broker, unique, isolated_state):
    """A group with offsets on a real topic, and its history in a copy of the offsets topic:
    commits at T0+1s (3, 4), T0+2s (5, 6), an aborted-free delete of partition 1 at T0+3s,
    then garbage (1, 1) at T0+4s."""
    from kgroup.core.clients import SeedRecord, create_topics, produce_one_per_request

    bootstrap = kafka_broker.bootstrap
    topic, group, offsets_topic = f"hist-{unique}", f"hist-g-{unique}", f"offsets-{unique}"
    make_topic(bootstrap, topic, [10, 10])
    commit_offsets(bootstrap, group, {(topic, 0): 1, (topic, 1): 1})  # what it has now
    create_topics(admin_for(bootstrap), {offsets_topic: OFFSETS_PARTITIONS})
    p = partition_for(group, OFFSETS_PARTITIONS)

    def commit(partition: int, offset: int, at: int) -> SeedRecord:
        key, value = enc.offset_commit(group, topic, partition, offset, commit_timestamp=at)
        return SeedRecord(offsets_topic, p, at, key, value)

    tombstone = enc.offset_commit(group, topic, 1, 0)[0]
    records = [
        commit(0, 3, T0 + 1000),
        commit(1, 4, T0 + 1000),
        commit(0, 5, T0 + 2000),
        commit(1, 6, T0 + 2000),
        SeedRecord(offsets_topic, p, T0 + 3000, tombstone, None),
        commit(0, 1, T0 + 4000),
        commit(1, 1, T0 + 4000),
    ]
    produce_one_per_request(admin_for(bootstrap), records)
    env = {"XDG_STATE_HOME": str(isolated_state)}
    return bootstrap, topic, group, offsets_topic, env


def test_live_history_restores_the_offsets_of_that_time(history_topic) -> None:
    bootstrap, topic, group, offsets_topic, env = history_topic
    args = ("-b", bootstrap, "reset-offsets", group, "--topic", topic,
            "--offsets-topic", offsets_topic)  # fmt: skip
    at = str(T0 + 2500)
    plan = json.loads(run_kgroup(*args, "--to-committed-at", at, "-o", "json", env=env).stdout)[
        "groups"
    ][0]
    assert {r["partition"]: (r["current_offset"], r["new_offset"]) for r in plan["partitions"]} == {
        0: (1, 5),
        1: (1, 6),
    }
    run_kgroup(*args, "--to-committed-at", at, "--execute", env=env)
    assert committed(bootstrap, group) == {(topic, 0): 5, (topic, 1): 6}
    run_kgroup("-b", bootstrap, "undo", group, "--execute", env=env)  # kgroup's own backup
    assert committed(bootstrap, group) == {(topic, 0): 1, (topic, 1): 1}
    # after the delete, partition 1 had no offset: left out, never restored
    after_delete = json.loads(
        run_kgroup(*args, "--to-committed-at", str(T0 + 3500), "-o", "json", env=env).stdout
    )["groups"][0]
    assert [r["partition"] for r in after_delete["partitions"]] == [0]
    assert any(f"{topic}:1" in w and "left out" in w for w in after_delete["warnings"])
    before = run_kgroup(*args, "--to-committed-at", str(T0 + 500), env=env, expect=5)
    assert "TIME is before the history" in before.stderr


def test_live_transactional_commit_counts_only_from_its_commit_marker(
    kafka_broker, unique, isolated_state
) -> None:
    """Kafka applies a transactional offset commit when its COMMIT marker is written: a commit
    record stamped before TIME whose marker came after TIME was not in force at TIME. A consumer
    never sees markers, so the live history must be read as the log holds it."""
    import time

    from confluent_kafka import Producer

    from kgroup.core.clients import SeedRecord, create_topics, produce_one_per_request

    bootstrap = kafka_broker.bootstrap
    topic, group, offsets_topic = f"txh-{unique}", f"txh-g-{unique}", f"txoffsets-{unique}"
    make_topic(bootstrap, topic, [10])
    commit_offsets(bootstrap, group, {(topic, 0): 1})
    create_topics(admin_for(bootstrap), {offsets_topic: OFFSETS_PARTITIONS})
    p = partition_for(group, OFFSETS_PARTITIONS)
    key, value = enc.offset_commit(group, topic, 0, 3, commit_timestamp=T0 + 1000)
    produce_one_per_request(
        admin_for(bootstrap), [SeedRecord(offsets_topic, p, T0 + 1000, key, value)]
    )
    key, value = enc.offset_commit(group, topic, 0, 7, commit_timestamp=T0 + 2000)
    txn = Producer({"bootstrap.servers": bootstrap, "transactional.id": offsets_topic})
    txn.init_transactions(30)
    txn.begin_transaction()
    txn.produce(offsets_topic, key=key, value=value, partition=p, timestamp=T0 + 2000)
    txn.flush(30)
    txn.commit_transaction(30)  # the broker stamps the COMMIT marker now, long after T0 + 2s
    del txn
    time.sleep(0.01)
    after_marker = int(time.time() * 1000)
    args = ("-b", bootstrap, "-o", "json", "reset-offsets", group, "--topic", topic,
            "--offsets-topic", offsets_topic)  # fmt: skip
    env = {"XDG_STATE_HOME": str(isolated_state)}

    def planned(when: int) -> dict[int, int]:
        doc = json.loads(run_kgroup(*args, "--to-committed-at", str(when), env=env).stdout)
        return {r["partition"]: r["new_offset"] for r in doc["groups"][0]["partitions"]}

    assert planned(T0 + 3000) == {0: 3}  # the transaction was still open at TIME
    assert planned(after_marker) == {0: 7}
