"""Tables on an 80- and 120-column terminal keep every header and number whole (issue 12, B1),
LAG_MS reads as a duration in tables only (B2), unknown is null in describe/list JSON (B3).

Every run is a real `kgroup` process; the table tests give it a real pseudo-terminal."""

from __future__ import annotations

import csv
import io
import json
import re
import time

import pytest

from tests.cli.test_cli_table_width import assert_row
from tests.helpers import commit_offsets, make_topic, run_kgroup, running_member
from tests.ptyrun import run_in_pty

pytestmark = pytest.mark.integration

BASE_MS = 1_767_225_600_000  # make_topic: record i of partition p is stamped BASE + i min + p s
OFFSET_HEADERS = [
    "GROUP",
    "TOPIC",
    "PARTITION",
    "CURRENT_OFFSET",
    "LOG_START_OFFSET",
    "LOG_END_OFFSET",
    "LAG",
]
OWNER_HEADERS = ["CONSUMER_ID", "HOST", "CLIENT_ID"]


@pytest.fixture(scope="module")
def demo(kafka_broker):
    """Two groups as `make demo` seeds them: billing (stopped, lagging) and shipping (a running
    member), on topics with long names."""
    import uuid

    unique = uuid.uuid4().hex[:8]
    bootstrap = kafka_broker.bootstrap
    orders, payments = f"orders.created.v1-{unique}", f"payments.settled.v1-{unique}"
    make_topic(bootstrap, orders, [12, 7, 3])
    make_topic(bootstrap, payments, [9])
    billing, shipping = f"billing-{unique}", f"shipping-{unique}"
    commit_offsets(bootstrap, billing, {(orders, 0): 4, (orders, 1): 7, (payments, 0): 2})
    with running_member(kafka_broker, shipping, orders, {0: 10, 1: 1, 2: 3}):
        yield bootstrap, billing, shipping, orders, payments


def _describe(demo, columns: int, *view: str):
    bootstrap, billing, shipping, _orders, _payments = demo
    shown = run_in_pty("-b", bootstrap, "describe", billing, shipping, *view, columns=columns)
    assert shown.code == 0, shown.stderr
    return shown


@pytest.mark.parametrize("columns", [80, 120])
def test_offsets_view_keeps_every_column_and_number(demo, columns) -> None:
    _bootstrap, billing, shipping, orders, payments = demo
    shown = _describe(demo, columns)
    assert shown.lines[0].split() == OFFSET_HEADERS + OWNER_HEADERS
    assert_row(shown.lines, billing, orders, "0", "4", "0", "12", "8")
    assert_row(shown.lines, billing, orders, "1", "7", "0", "7", "0")
    assert_row(shown.lines, billing, payments, "0", "2", "0", "9", "7")
    assert_row(shown.lines, shipping, orders, "0", "10", "0", "12", "2")
    assert_row(shown.lines, shipping, orders, "2", "3", "0", "3", "0")
    assert f"{billing}: total lag 15 ({orders} 8, {payments} 7)" in shown.screen
    assert "…" not in shown.screen


@pytest.mark.parametrize("columns", [80, 120])
def test_lag_time_shows_a_duration_and_keeps_every_column(demo, columns) -> None:
    _bootstrap, billing, shipping, orders, payments = demo
    before = int(time.time() * 1000)
    shown = _describe(demo, columns, "--lag-time")
    after = int(time.time() * 1000)
    assert shown.lines[0].split() == [*OFFSET_HEADERS, "LAG_TIME", *OWNER_HEADERS]
    # billing's first unconsumed record of orders:0 is offset 4, stamped BASE + 4 min
    age = {before - (BASE_MS + 4 * 60_000), after - (BASE_MS + 4 * 60_000)}
    expected = {f"{ms // 86_400_000}d{ms // 3_600_000 % 24}h" for ms in age}
    line = next(li for li in shown.lines if li.split()[:3] == [billing, orders, "0"])
    words = line.split()
    assert words[3:7] == ["4", "0", "12", "8"]
    assert words[7] in expected, line
    assert_row(shown.lines, billing, orders, "1", "7", "0", "7", "0", "0ms")
    assert_row(shown.lines, billing, payments, "0", "2", "0", "9", "7")
    # no raw millisecond count anywhere (names are removed first: their random suffix may be
    # all digits)
    screen = shown.screen
    for name in (orders, payments, billing, shipping):
        screen = screen.replace(name, "")
    assert not re.search(r"\d{7,}", screen)


def test_lag_ms_stays_milliseconds_in_json_and_csv(demo) -> None:
    bootstrap, billing, _shipping, orders, _payments = demo
    before = int(time.time() * 1000)
    doc = json.loads(
        run_kgroup("-b", bootstrap, "describe", billing, "--lag-time", "-o", "json").stdout
    )
    rows = list(
        csv.DictReader(
            io.StringIO(
                run_kgroup("-b", bootstrap, "describe", billing, "--lag-time", "-o", "csv").stdout
            )
        )
    )
    after = int(time.time() * 1000)
    first = BASE_MS + 4 * 60_000
    p0 = doc["groups"][0]["partitions"][0]
    assert (p0["topic"], p0["partition"]) == (orders, 0)
    assert before - first - 60_000 <= p0["lag_ms"] <= after - first
    assert before - first - 60_000 <= int(rows[0]["lag_ms"]) <= after - first
    assert rows[1]["lag_ms"] == "0"


@pytest.mark.parametrize("columns", [80, 120])
def test_members_view_keeps_every_column(demo, columns) -> None:
    _bootstrap, billing, shipping, *_ = demo
    shown = _describe(demo, columns, "--members")
    assert shown.lines[0].split() == [
        "GROUP",
        "CONSUMER_ID",
        "GROUP_INSTANCE_ID",
        "HOST",
        "CLIENT_ID",
        "PARTITIONS",
    ]
    doc = json.loads(
        run_kgroup("-b", demo[0], "describe", shipping, "--members", "-o", "json").stdout
    )
    (member,) = doc["groups"][0]["members"]
    line = next(li for li in shown.lines if li.startswith(shipping))
    assert line.split()[-1] == str(member["partitions"])
    assert member["consumer_id"][:12] in line
    assert f"{billing}: no active members" in shown.screen


@pytest.mark.parametrize("columns", [80, 120])
def test_state_view_keeps_every_column(demo, columns) -> None:
    bootstrap, billing, shipping, *_ = demo
    shown = _describe(demo, columns, "--state")
    assert shown.lines[0].split() == [
        "GROUP",
        "COORDINATOR",
        "ASSIGNOR",
        "STATE",
        "MEMBERS",
        "TYPE",
        "PROTOCOL_TYPE",
    ]
    billing_line = next(li for li in shown.lines if li.startswith(billing))
    words = billing_line.split()
    # the coordinator `host:port (id N)` may wrap at its blank, never inside the address
    assert words[1] == bootstrap and "(id" in shown.screen
    assert words[-5:] == ["-", "Empty", "0", "classic", "-"]  # unknown: `-`, never a gap
    if columns == 120:
        assert max(len(li) for li in shown.lines) <= columns
    else:  # the key and number columns alone need 85: wider, rather than cut
        piped = run_kgroup("-b", bootstrap, "describe", billing, shipping, "--state").stdout
        assert columns < max(len(li) for li in shown.lines) < max(map(len, piped.splitlines()))


@pytest.mark.parametrize("columns", [80, 120])
def test_reset_plan_keeps_every_column(demo, columns, isolated_state) -> None:
    bootstrap, billing, _shipping, orders, payments = demo
    shown = run_in_pty(
        "-b",
        bootstrap,
        "reset-offsets",
        billing,
        "--all-topics",
        "--to",
        "latest",
        columns=columns,
        env={"XDG_STATE_HOME": str(isolated_state)},
    )
    assert shown.code == 0, shown.stderr
    assert shown.lines[0].split() == [
        "GROUP",
        "TOPIC",
        "PARTITION",
        "CURRENT_OFFSET",
        "NEW_OFFSET",
        "DELTA",
    ]
    assert_row(shown.lines, billing, orders, "0", "4", "12", "8")
    assert_row(shown.lines, billing, payments, "0", "2", "9", "7")
    assert "Dry run" in shown.screen


def test_unknown_is_null_in_describe_and_list_json(demo) -> None:
    bootstrap, billing, shipping, *_ = demo
    doc = json.loads(
        run_kgroup("-b", bootstrap, "describe", billing, shipping, "--state", "-o", "json").stdout
    )
    for group in doc["groups"]:
        for key in ("assignor", "protocol_type", "state", "type"):
            assert group[key] != "", (key, group)
    billing_doc = doc["groups"][0]
    assert billing_doc["protocol_type"] is None and billing_doc["assignor"] is None
    for view in ("--members", "--offsets"):
        text = run_kgroup("-b", bootstrap, "describe", billing, shipping, view, "-o", "json")
        assert '""' not in text.stdout
    listed = json.loads(run_kgroup("-b", bootstrap, "list", "-o", "json").stdout)["groups"]
    mine = [g for g in listed if g["group"] in (billing, shipping)]
    assert mine and all(v != "" for g in mine for v in g.values()), mine
