"""`kgroup delete` and `kgroup delete-offsets` against the session's real broker."""

from __future__ import annotations

import json

import pytest

from tests.helpers import admin_for, commit_offsets, make_topic, run_kgroup

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


@pytest.mark.real_kafka
def test_delete_offsets_of_one_partition(kafka_broker, unique) -> None:
    """OffsetDelete (KIP-496): tansu does not implement it (TEST_ENVIRONMENT.md)."""
    topic, group = f"delo-{unique}", f"delo-g-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [2, 2])
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 1, (topic, 1): 2})
    run_kgroup("-b", kafka_broker.bootstrap, "delete-offsets", group, "--topic", f"{topic}:0")
    remaining = admin_for(kafka_broker.bootstrap).committed_offsets_or_none(group)
    assert {(tp.topic, tp.partition): v.offset for tp, v in remaining.items()} == {(topic, 1): 2}
