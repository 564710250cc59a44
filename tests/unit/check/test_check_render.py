"""How check verdicts print: the drain cell, the JSON evidence, and --watch change lines."""

from __future__ import annotations

import json
import math
import random
from types import SimpleNamespace

import pytest

from kgroup.check.model import LogEnd, Observation, Owner, PartitionWindow, Thresholds
from kgroup.check.rules import evaluate_group
from kgroup.render.check import check_output, drain_text, status_changes


def verdict(commits: list[tuple[int, int, int]], committed: int, log_end: int, now: int):
    window = PartitionWindow(
        "t",
        0,
        tuple(Observation(ts, off, lag) for ts, off, lag in commits),
        (LogEnd(commits[0][0], commits[0][1] + commits[0][2]), LogEnd(now, log_end)),
        committed,
        0,
        log_end,
        owner=Owner("m-1", "app", "/10.0.0.1"),
        slots=len(commits),
    )
    return evaluate_group(
        "g", [window], now_ms=now, thresholds=Thresholds(), members=[("m-1", "app", "/10.0.0.1")]
    )


def result_of(*groups):
    return SimpleNamespace(groups=list(groups), now_ms=1_800_000_000_000, source="sampling")


NOW_MS = 1_800_000_000_000
REQUEST = SimpleNamespace(window_ms=10_000, samples=3, fail_on="err", thresholds=Thresholds())


def test_drain_cell_says_eta_behind_or_caught_up() -> None:
    draining = verdict([(0, 100, 50), (5000, 200, 40), (10_000, 300, 30)], 300, 330, 10_000)
    (p,) = draining.partitions
    # consumed 200 in 10 s, produced 330-150=180 in 10 s: net 2/s, 30 left: 15 s
    assert drain_text(p) == "eta 15s"
    behind = verdict([(0, 100, 50), (5000, 110, 90), (10_000, 120, 130)], 120, 250, 10_000)
    assert drain_text(behind.partitions[0]) == "behind 8/s"
    caught = verdict([(0, 100, 0), (10_000, 120, 0)], 120, 120, 10_000)
    assert drain_text(caught.partitions[0]) == "caught up"


def test_json_carries_rule_evidence_and_members() -> None:
    g = verdict([(0, 100, 50), (5000, 110, 90), (10_000, 120, 130)], 120, 250, 10_000)
    out = check_output(result_of(g), REQUEST)
    (doc,) = out.document["groups"]
    assert (doc["status"], doc["rule"]) == ("WARN", "lag-not-decreasing")
    (p,) = doc["partitions"]
    assert p["evidence"]["commits"] == [
        {"timestamp_ms": 0, "offset": 100, "lag": 50},
        {"timestamp_ms": 5000, "offset": 110, "lag": 90},
        {"timestamp_ms": 10_000, "offset": 120, "lag": 130},
    ]
    assert doc["members"] == [
        {
            "consumer_id": "m-1",
            "client_id": "app",
            "host": "/10.0.0.1",
            "partitions": 1,
            "total_lag": 130,
            "hottest": {"topic": "t", "partition": 0, "lag": 130},
        }
    ]
    assert out.rows[0]["status"] == "WARN" and out.jsonl_items == [doc]


def test_watch_prints_only_changes() -> None:
    previous: dict = {}
    warn = verdict([(0, 100, 50), (5000, 110, 90), (10_000, 120, 130)], 120, 250, 10_000)
    first = status_changes(previous, [warn], NOW_MS)
    assert [line.split(" ", 1)[1] for line in first] == [
        "g: - -> WARN (WARN on t:0: offsets move but the lag never decreases: falling behind)",
        "g t:0: - -> WARN (offsets move but the lag never decreases: falling behind)",
    ]
    assert status_changes(previous, [warn], NOW_MS) == []
    ok = verdict([(0, 100, 50), (10_000, 200, 0)], 200, 200, 10_000)
    again = status_changes(previous, [ok], NOW_MS)
    assert [line.split(" ", 1)[1] for line in again] == [
        "g: WARN -> OK (every partition is OK)",
        "g t:0: WARN -> OK (caught up (lag 0))",
    ]


def test_a_mode_gets_only_what_it_prints() -> None:
    # a fleet's JSON does not build table rows, nor a table the JSON elements (issue #29)
    from kgroup.render.check import check_part

    g = verdict([(0, 100, 50), (5000, 110, 90), (10_000, 120, 130)], 120, 250, 10_000)
    whole = check_part(g)
    part = check_part(g, "jsonl")
    assert (part.item, list(part.rows), list(part.footer)) == (whole.item, [], [])
    part = check_part(g, "json")  # the element's text only, as the document nests it
    assert (part.item, list(part.rows), list(part.footer)) == (None, [], [])
    assert part.text == json.dumps(whole.item, indent=2).replace("\n", "\n    ")
    for mode in ("table", "csv"):
        part = check_part(g, mode)
        assert (part.item, part.rows, part.footer) == (None, whole.rows, whole.footer)


# values the JSON text of a group must write as json.dumps does: JSON's escapes, what the
# templates use (%, NUL), unicode, bidi and C1 controls, floats that round, NaN and infinities
ODD_TEXT = ["", "a", 'q"uote\\', "%s %d %%", "\x00", "\n\t\x1f", "é 日本", "\u202e\x85", "\x7f"]
ODD_FLOAT = [0.0, 1.0, 2.5e-7, 1 / 3, 123456.789012, -0.0, math.inf, -math.inf, math.nan]


def odd_group(rng: random.Random):
    from kgroup.check.model import (
        Drain,
        GroupVerdict,
        MemberRollup,
        PartitionVerdict,
        Status,
    )

    def text(none: bool = True):
        return None if none and rng.random() < 0.3 else rng.choice(ODD_TEXT)

    def number():
        return rng.choice([None, 0, -1, 7, 2**63 - 1, -(2**63)])

    def real():
        return None if rng.random() < 0.3 else rng.choice(ODD_FLOAT)

    def partition():
        return PartitionVerdict(
            topic=text(False), partition=rng.randrange(1000), status=rng.choice(list(Status)),
            rule=text(False), reason=text(False), committed=number(), log_start=number(),
            log_end=number(), lag=number(), lag_ms=number(), complete=rng.choice(ODD_FLOAT),
            drain=Drain(real(), real(), number(), real()), headroom_ms=number(),
            owner=None if rng.random() < 0.4 else Owner(text(False), text(), text()),
            observations=tuple(
                Observation(rng.randrange(2**41), rng.randrange(10**6), number())
                for _ in range(rng.randrange(4))
            ),
            log_ends=tuple(
                LogEnd(rng.randrange(2**41), rng.randrange(10**6)) for _ in range(rng.randrange(4))
            ),
            headroom_by=text(), headroom_time_ms=number(), headroom_size_ms=number(),
            size_bytes=number(),
        )  # fmt: skip

    partitions = tuple(partition() for _ in range(rng.randrange(4)))
    members = tuple(
        MemberRollup(
            text(False),
            text(),
            text(),
            rng.randrange(9),
            number(),
            rng.choice([None, *partitions]),
        )
        for _ in range(rng.randrange(3))
    )
    return GroupVerdict(
        group=text(False), status=rng.choice(list(Status)), rule=text(False),
        reason=text(False), source=rng.choice(["history", "sampling", "other"]), state=text(),
        type=text(), partitions=partitions, members=members, skew=real(), total_lag=number(),
        complete=rng.choice(ODD_FLOAT), error=text(),
    )  # fmt: skip


@pytest.mark.parametrize("seed", range(40))
def test_a_groups_json_text_is_json_dumps_of_its_element(seed) -> None:
    # issue #29: the JSON document writes each group from a template of its shape; the text
    # must be the element's json.dumps(indent=2) nested in the document, whatever the values
    from kgroup.render.check import group_json, group_text
    from kgroup.render.stream import indented

    g = odd_group(random.Random(seed))
    expected = json.dumps(group_json(g), indent=2, ensure_ascii=False).replace("\n", "\n    ")
    assert group_text(g) == expected
    assert indented(group_json(g), 2) == expected


def pinned_group():
    """A group whose every field of the JSON element has a value of its own (no two alike)."""
    from kgroup.check.model import Drain, GroupVerdict, MemberRollup, PartitionVerdict, Status

    hot = PartitionVerdict(
        topic="orders", partition=3, status=Status.WARN, rule="lag-not-decreasing",
        reason="falling behind", committed=120, log_start=7, log_end=250, lag=130,
        lag_ms=61_000, complete=2 / 3, drain=Drain(2.00049, 14.12345, None, 12.12296),
        headroom_ms=3_539_000, owner=Owner("m-1", "app-1", "/10.0.0.1"),
        observations=(Observation(1000, 100, 50), Observation(5000, 110, None)),
        log_ends=(LogEnd(1000, 150),), headroom_by="time", headroom_time_ms=3_539_000,
        headroom_size_ms=None, size_bytes=4096,
    )  # fmt: skip
    idle = PartitionVerdict(
        topic="audit", partition=0, status=Status.OK, rule="no-committed-offset",
        reason="nothing", committed=None, log_start=0, log_end=0, lag=None, lag_ms=None,
        complete=1.0, drain=Drain(None, None, 0, None), headroom_ms=None, owner=None,
        observations=(), log_ends=(),
    )  # fmt: skip
    return GroupVerdict(
        group="payments", status=Status.WARN, rule="lag-not-decreasing",
        reason="WARN on orders:3: falling behind", source="history", state="Stable",
        type="classic", partitions=(idle, hot),
        members=(
            MemberRollup("m-1", "app-1", "/10.0.0.1", 1, 130, hot),
            MemberRollup("m-2", None, None, 0, None, None),
        ),
        skew=1.23456, total_lag=130, complete=0.83333, error=None,
    )  # fmt: skip


# The element of `groups` written by hand: every key, in order, with the value the verdict
# gives it. group_json (JSON Lines, the table's document) and group_text (the JSON document)
# must both give exactly this (they take their facts from one list: render/check.py).
PINNED_ELEMENT = {
    "group": "payments", "status": "WARN", "rule": "lag-not-decreasing",
    "reason": "WARN on orders:3: falling behind", "state": "Stable", "type": "classic",
    "source": "history", "log_end_source": "list_offsets_by_timestamp", "error": None,
    "total_lag": 130, "complete": 0.833, "skew": 1.235,
    "partitions": [
        {
            "topic": "audit", "partition": 0, "status": "OK", "rule": "no-committed-offset",
            "reason": "nothing", "current_offset": None, "log_start_offset": 0,
            "log_end_offset": 0, "lag": None, "lag_ms": None, "complete": 1.0,
            "consume_rate": None, "produce_rate": None, "drain_eta_ms": 0,
            "falling_behind_per_s": None, "headroom_ms": None, "headroom_by": None,
            "headroom_time_ms": None, "headroom_size_ms": None, "partition_size_bytes": None,
            "consumer_id": None, "client_id": None, "host": None,
            "evidence": {"commits": [], "log_ends": []},
        },
        {
            "topic": "orders", "partition": 3, "status": "WARN", "rule": "lag-not-decreasing",
            "reason": "falling behind", "current_offset": 120, "log_start_offset": 7,
            "log_end_offset": 250, "lag": 130, "lag_ms": 61_000, "complete": 0.667,
            "consume_rate": 2.0, "produce_rate": 14.123, "drain_eta_ms": None,
            "falling_behind_per_s": 12.123, "headroom_ms": 3_539_000, "headroom_by": "time",
            "headroom_time_ms": 3_539_000, "headroom_size_ms": None,
            "partition_size_bytes": 4096, "consumer_id": "m-1", "client_id": "app-1",
            "host": "/10.0.0.1",
            "evidence": {
                "commits": [
                    {"timestamp_ms": 1000, "offset": 100, "lag": 50},
                    {"timestamp_ms": 5000, "offset": 110, "lag": None},
                ],
                "log_ends": [{"timestamp_ms": 1000, "offset": 150}],
            },
        },
    ],
    "members": [
        {
            "consumer_id": "m-1", "client_id": "app-1", "host": "/10.0.0.1", "partitions": 1,
            "total_lag": 130, "hottest": {"topic": "orders", "partition": 3, "lag": 130},
        },
        {
            "consumer_id": "m-2", "client_id": None, "host": None, "partitions": 0,
            "total_lag": None, "hottest": None,
        },
    ],
}  # fmt: skip


def _keys_in_order(value):
    """The document's keys as nested lists, in order (dict equality ignores order)."""
    if isinstance(value, dict):
        return [(k, _keys_in_order(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_keys_in_order(v) for v in value]
    return None


def test_a_groups_element_is_pinned_in_every_mode() -> None:
    from kgroup.render.check import check_part, group_json, group_text

    g = pinned_group()
    assert group_json(g) == PINNED_ELEMENT
    assert _keys_in_order(group_json(g)) == _keys_in_order(PINNED_ELEMENT)
    assert check_part(g, "jsonl").item == PINNED_ELEMENT
    expected_text = json.dumps(PINNED_ELEMENT, indent=2).replace("\n", "\n    ")
    assert group_text(g) == expected_text
    assert check_part(g, "json").text == expected_text
