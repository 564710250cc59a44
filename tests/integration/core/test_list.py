"""`kgroup list` against the session's real broker."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.helpers import commit_offsets, make_topic, run_kgroup

pytestmark = pytest.mark.integration


@pytest.fixture()
def two_groups(kafka_broker, unique):
    topic = f"list-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [5, 5])
    groups = [f"list-a-{unique}", f"list-b-{unique}"]
    for group in groups:
        commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 2, (topic, 1): 3})
    return groups


def test_list_json_has_the_groups_empty_with_no_members(kafka_broker, two_groups) -> None:
    document = json.loads(run_kgroup("-b", kafka_broker.bootstrap, "list", "-o", "json").stdout)
    assert document["schema_version"] == 1
    rows = {row["group"]: row for row in document["groups"]}
    for group in two_groups:
        assert rows[group]["state"] == "Empty"
        assert rows[group]["members"] == 0
        assert rows[group]["type"] == "classic"
    names = [row["group"] for row in document["groups"]]
    assert names == sorted(names)


def test_list_state_filter_and_csv(kafka_broker, two_groups) -> None:
    out = run_kgroup("-b", kafka_broker.bootstrap, "list", "--state", "stable", "-o", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    assert all(row["state"] == "Stable" for row in rows)
    assert not set(two_groups) & {row["group"] for row in rows}
    out = run_kgroup("-b", kafka_broker.bootstrap, "list", "--state", "Empty", "-o", "jsonl").stdout
    listed = {json.loads(line)["group"] for line in out.splitlines()}
    assert set(two_groups) <= listed


def test_list_table_is_sorted_and_aligned(kafka_broker, two_groups) -> None:
    out = run_kgroup("-b", kafka_broker.bootstrap, "list", "--type", "classic").stdout
    lines = out.splitlines()
    assert lines[0].split() == ["GROUP", "STATE", "TYPE", "PROTOCOL_TYPE", "MEMBERS"]
    mine = [line.split() for line in lines[1:] if line.split()[0] in two_groups]
    assert [row[0] for row in mine] == sorted(two_groups)
    assert all(row[1] == "Empty" and row[-1] == "0" for row in mine)
