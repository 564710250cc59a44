"""Every describe view in every output mode, from constructed results (hand-written expectations).

Members with client ids, hosts and assignments are constructed here because the tansu test broker
returns none of them (TEST_ENVIRONMENT.md).
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from kgroup.core.models import (
    BrokerNode,
    CommittedOffset,
    GroupDescription,
    MemberDescription,
    TopicPartition,
    Watermarks,
)
from kgroup.describe.engine import GroupInput, build_group_lag
from kgroup.render import render
from kgroup.render.describe import (
    format_partitions,
    members_output,
    offsets_output,
    state_output,
)

T = TopicPartition
COORDINATOR = BrokerNode(1, "broker-1", 9092)
MEMBER = MemberDescription(
    "c-1-abc",
    group_instance_id="pod-1",
    client_id="app",
    host="/10.0.0.7",
    assignment=(T("orders", 0), T("orders", 1), T("audit", 2)),
)
ACTIVE = GroupDescription("pay", "Stable", "classic", "consumer", "range", COORDINATOR, (MEMBER,))


def groups():
    committed = {T("orders", 0): CommittedOffset(5), T("orders", 1): CommittedOffset(9)}
    marks = {
        T("orders", 0): Watermarks(0, 8),
        T("orders", 1): Watermarks(2, 9),
        T("audit", 2): Watermarks(0, 4),
    }
    ok = build_group_lag(
        GroupInput(ACTIVE, committed), [T("audit", 2), T("orders", 0), T("orders", 1)], marks
    )
    missing = build_group_lag(
        GroupInput(
            GroupDescription("ghost", "Dead"), {}, "group ghost does not exist", "not_found"
        ),
        [],
        {},
    )
    return [ok, missing]


def text(output, mode: str) -> str:
    buffer = io.StringIO()
    render(output, mode, stream=buffer)
    return buffer.getvalue()


def test_partition_list_format() -> None:
    assert format_partitions([T("b", 3), T("a", 2), T("a", 0)]) == "a:0,2;b:3"


def test_offsets_table() -> None:
    assert text(offsets_output(groups()), "table").splitlines() == [
        "GROUP  TOPIC   PARTITION  CURRENT_OFFSET  LOG_START_OFFSET  LOG_END_OFFSET  LAG  "
        "CONSUMER_ID  HOST       CLIENT_ID",
        "pay    audit           2               -                 0               4    -  "
        "c-1-abc      /10.0.0.7  app",
        "pay    orders          0               5                 0               8    3  "
        "c-1-abc      /10.0.0.7  app",
        "pay    orders          1               9                 2               9    0  "
        "c-1-abc      /10.0.0.7  app",
        "pay: total lag 3 (audit -, orders 3)",
        "ghost: error: group ghost does not exist",
    ]


def test_offsets_json_and_jsonl() -> None:
    document = json.loads(text(offsets_output(groups(), lag_time=False), "json"))
    assert document["schema_version"] == 1
    pay, ghost = document["groups"]
    assert pay["group"] == "pay" and pay["state"] == "Stable" and pay["error"] is None
    assert pay["coordinator"] == {"id": 1, "host": "broker-1", "port": 9092}
    assert pay["total_lag"] == 3
    assert pay["topics"] == [
        {"topic": "audit", "total_lag": None},
        {"topic": "orders", "total_lag": 3},
    ]
    assert pay["partitions"][0] == {
        "topic": "audit",
        "partition": 2,
        "current_offset": None,
        "log_start_offset": 0,
        "log_end_offset": 4,
        "lag": None,
        "consumer_id": "c-1-abc",
        "host": "/10.0.0.7",
        "client_id": "app",
    }
    assert ghost == {
        "group": "ghost",
        "state": None,
        "type": None,
        "coordinator": None,
        "error": "group ghost does not exist",
        "total_lag": None,
        "topics": [],
        "partitions": [],
    }
    lines = [json.loads(line) for line in text(offsets_output(groups()), "jsonl").splitlines()]
    assert [g["group"] for g in lines] == ["pay", "ghost"]


def test_offsets_csv_and_lag_ms_column() -> None:
    rows = list(csv.DictReader(io.StringIO(text(offsets_output(groups(), lag_time=True), "csv"))))
    assert list(rows[0]) == [
        "group",
        "topic",
        "partition",
        "current_offset",
        "log_start_offset",
        "log_end_offset",
        "lag",
        "lag_ms",
        "consumer_id",
        "host",
        "client_id",
    ]
    assert rows[0]["current_offset"] == "" and rows[1]["lag"] == "3"


def test_members_view_verbose_table_and_json() -> None:
    lines = text(members_output(groups(), verbose=True), "table").splitlines()
    assert lines[0].split() == [
        "GROUP",
        "CONSUMER_ID",
        "GROUP_INSTANCE_ID",
        "HOST",
        "CLIENT_ID",
        "PARTITIONS",
        "ASSIGNMENT",
    ]
    assert lines[1].split() == [
        "pay",
        "c-1-abc",
        "pod-1",
        "/10.0.0.7",
        "app",
        "3",
        "audit:2;orders:0,1",
    ]
    document = json.loads(text(members_output(groups(), verbose=False), "json"))
    assert document["groups"][0]["members"] == [
        {
            "consumer_id": "c-1-abc",
            "group_instance_id": "pod-1",
            "host": "/10.0.0.7",
            "client_id": "app",
            "partitions": 3,
        }
    ]


def test_state_view() -> None:
    lines = text(state_output(groups()), "table").splitlines()
    assert lines[0].split() == [
        "GROUP",
        "COORDINATOR",
        "ASSIGNOR",
        "STATE",
        "MEMBERS",
        "TYPE",
        "PROTOCOL_TYPE",
    ]
    assert lines[1].split() == [
        "pay",
        "broker-1:9092",
        "(id",
        "1)",
        "range",
        "Stable",
        "1",
        "classic",
        "consumer",
    ]
    rows = list(csv.DictReader(io.StringIO(text(state_output(groups()), "csv"))))
    assert rows[1] == {
        "group": "ghost",
        "coordinator": "",
        "assignor": "",
        "state": "",
        "members": "",
        "type": "",
        "protocol_type": "",
    }


@pytest.mark.parametrize("mode", ["table", "json", "jsonl", "csv"])
@pytest.mark.parametrize("build", [offsets_output, members_output, state_output])
def test_every_view_renders_in_every_mode_even_when_empty(mode: str, build) -> None:
    empty = text(build([]), mode)
    if mode == "json":
        assert json.loads(empty) == {"schema_version": 1, "groups": []}
    elif mode == "jsonl":
        assert empty == ""
    elif mode == "csv":
        assert len(empty.splitlines()) == 1 and empty.startswith("group,")  # the header only
    else:
        assert empty.strip() in ("No partitions.", "No members.", "No groups.")
    out = text(build(groups()), mode)
    assert "pay" in out


def test_kip848_epochs_and_target_assignment() -> None:
    member = MemberDescription(
        "m-1",
        client_id="app",
        assignment=(T("orders", 0),),
        target_assignment=(T("orders", 0), T("orders", 1)),
        member_epoch=9,
    )
    group = GroupDescription(
        "kip848",
        "Reconciling",
        "consumer",
        "consumer",
        "uniform",
        COORDINATOR,
        (member,),
        group_epoch=10,
        assignment_epoch=10,
    )
    lag = build_group_lag(GroupInput(group, {}), [], {})
    state = json.loads(text(state_output([lag]), "json"))["groups"][0]
    assert (state["group_epoch"], state["assignment_epoch"], state["type"]) == (10, 10, "consumer")
    assert text(state_output([lag]), "table").splitlines()[0].split()[-2:] == [
        "GROUP_EPOCH",
        "ASSIGNMENT_EPOCH",
    ]
    members = json.loads(text(members_output([lag], verbose=True), "json"))["groups"][0]["members"]
    assert members == [
        {
            "consumer_id": "m-1",
            "group_instance_id": None,
            "host": None,
            "client_id": "app",
            "partitions": 1,
            "member_epoch": 9,
            "member_type": None,
            "rack": None,
            "subscribed_topics": None,
            "subscribed_topic_regex": None,
            "assignment": "orders:0",
            "target_assignment": "orders:0,1",
        }
    ]
