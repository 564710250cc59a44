"""`kgroup delete` and `kgroup delete-offsets` against the session's real broker."""

from __future__ import annotations

import json

import pytest

from tests.helpers import admin_for, commit_offsets, make_topic, run_kgroup, running_member

pytestmark = pytest.mark.integration


def test_delete_an_empty_group_and_report_unknown_ones(kafka_broker, unique) -> None:
    topic, group = f"del-{unique}", f"del-g-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [2])
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 1})
    result = run_kgroup(
        "-b", kafka_broker.bootstrap, "delete", group, f"ghost-{unique}", "-o", "json", expect=3
    )
    rows = {r["group"]: r["status"] for r in json.loads(result.stdout)["groups"]}
    assert rows == {group: "deleted", f"ghost-{unique}": "not_found"}
    assert admin_for(kafka_broker.bootstrap).committed_offsets_or_none(group) == {}


def _committed(bootstrap: str, group: str) -> dict[tuple[str, int], int]:
    offsets = admin_for(bootstrap).committed_offsets_or_none(group)
    return {(tp.topic, tp.partition): v.offset for tp, v in offsets.items()}


@pytest.mark.real_kafka
def test_delete_offsets_of_one_partition_of_an_empty_group(kafka_broker, unique) -> None:
    """OffsetDelete (KIP-496): tansu does not implement it (TEST_ENVIRONMENT.md)."""
    topic, group = f"delo-{unique}", f"delo-g-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [2, 2])
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 1, (topic, 1): 2})
    result = run_kgroup(
        "-b", kafka_broker.bootstrap, "delete-offsets", group, "--topic", f"{topic}:0", "-o", "json"
    )
    rows = json.loads(result.stdout)["partitions"]
    assert [(r["topic"], r["partition"], r["status"]) for r in rows] == [(topic, 0, "deleted")]
    assert _committed(kafka_broker.bootstrap, group) == {(topic, 1): 2}


@pytest.mark.real_kafka
def test_delete_offsets_of_an_active_group_follows_its_subscription(kafka_broker, unique) -> None:
    """Kafka deletes the offsets of topics an active group does not consume and refuses the
    others with GROUP_SUBSCRIBED_TO_TOPIC (exit 4, naming the topic)."""
    bootstrap = kafka_broker.bootstrap
    consumed, former, group = f"delo-c-{unique}", f"delo-f-{unique}", f"delo-a-{unique}"
    make_topic(bootstrap, consumed, [3])
    make_topic(bootstrap, former, [3])
    commit_offsets(bootstrap, group, {(former, 0): 2})
    with running_member(kafka_broker, group, consumed, {0: 1}):
        refused = run_kgroup(
            "-b", bootstrap, "delete-offsets", group, "--topic", consumed, "-o", "json", expect=4
        )
        assert [r["status"] for r in json.loads(refused.stdout)["partitions"]] == ["refused"]
        line = refused.stderr.strip()
        assert len(line.splitlines()) == 1 and "Traceback" not in line
        assert (
            f"group {group} is subscribed to topic {consumed}: Kafka refuses to delete its "
            "offsets while members consume it" in line
        )
        assert _committed(bootstrap, group)[(consumed, 0)] == 1

        run_kgroup("-b", bootstrap, "delete-offsets", group, "--topic", former)
        assert (former, 0) not in _committed(bootstrap, group)
