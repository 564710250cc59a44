"""Share and streams groups against a real Kafka (KGROUP_TEST_BOOTSTRAP, or Docker).

The scripted Kafka 4.1 coordinator (tests/unit/wire/fakeshare.py) stands in for them on tansu,
which has none of these APIs; these tests check what a real broker says, whatever its version:
a group no API knows is still "not found" (exit 3) after kgroup asked ShareGroupDescribe and
StreamsGroupDescribe where offered, and `list --type share` works with or without them.
"""

from __future__ import annotations

import json

import pytest

from tests.helpers import run_kgroup


@pytest.mark.real_kafka
def test_unknown_group_is_still_not_found_after_the_share_and_streams_apis(
    kafka_broker, unique
) -> None:
    result = run_kgroup(
        "-b", kafka_broker.bootstrap, "describe", f"ghost-{unique}", "-o", "json", expect=3
    )
    (group,) = json.loads(result.stdout)["groups"]
    assert "does not exist" in group["error"]


@pytest.mark.real_kafka
def test_list_share_groups_on_real_kafka(kafka_broker) -> None:
    result = run_kgroup("-b", kafka_broker.bootstrap, "list", "--type", "share", "-o", "json")
    for row in json.loads(result.stdout)["groups"]:
        assert row["type"] == "share" and row["state"] != "Dead"
