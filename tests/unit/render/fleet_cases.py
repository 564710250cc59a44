"""Constructed results of `describe` (three views), `check` and `list`, shared by the tests that
pin their output bytes in every mode (test_fleet_output_pinned.py).

The values reach every path of the renderers: several groups, a failed and a missing group,
unknown values, KIP-848 members, text long enough to be narrowed on a terminal, wide characters
and control bytes in names.
"""

from __future__ import annotations

from types import SimpleNamespace

from kgroup.check.model import LogEnd, Observation, Owner, PartitionWindow, Thresholds
from kgroup.check.rules import evaluate_group
from kgroup.core.models import (
    BrokerNode,
    CommittedOffset,
    GroupDescription,
    MemberDescription,
    NextRecord,
    TopicPartition,
    Watermarks,
)
from kgroup.describe.engine import GroupInput, build_group_lag

T = TopicPartition
NOW = 1_800_000_000_000
COORDINATOR = BrokerNode(1, "broker-1.example.internal", 9092)
HOSTILE = "esc\x1b[31mRED\x1b]0;pwned\x07\tx\ny"


def _member(i: int, group: str, tps: tuple[TopicPartition, ...], **kw: object) -> MemberDescription:
    return MemberDescription(
        f"consumer-{group}-{i}-7d3a9c1e-2b4f-4e8a-9d11-0c6f5e2a8b{i:02d}",
        group_instance_id=f"pod-{i}" if i % 2 else None,
        client_id=f"orders-service-{i}",
        host=f"/10.0.{i}.{17 + i}",
        assignment=tps,
        **kw,  # type: ignore[arg-type]
    )


def describe_groups(lag_time: bool = False):
    """GroupLag results of five groups (one failed, one missing, one KIP-848, one hostile)."""
    marks = {
        T("orders", 0): Watermarks(0, 1200),
        T("orders", 1): Watermarks(20, 900),
        T("orders", 2): Watermarks(0, 40),
        T("payments", 0): Watermarks(0, 10),
        T("payments", 1): Watermarks(5, 77),
        T("注文", 0): Watermarks(0, 3),
        T(HOSTILE, 0): Watermarks(0, 9),
    }
    peeked = {
        (T("orders", 0), 1000): NextRecord(NOW - 192_000, True),
        (T("orders", 1), 100): NextRecord(NOW - 28_200_000, True),
        (T("payments", 1), 7): NextRecord(NOW - 850, True),
        (T(HOSTILE, 0), 1): NextRecord(NOW - 90_000_000_000, True),
    }
    billing = GroupDescription(
        "billing",
        "Stable",
        "classic",
        "consumer",
        "range",
        COORDINATOR,
        (
            _member(1, "billing", (T("orders", 0), T("orders", 1))),
            _member(2, "billing", (T("orders", 2), T("payments", 0))),
        ),
    )
    kip848 = GroupDescription(
        "fulfilment",
        "Stable",
        "consumer",
        "consumer",
        "uniform",
        COORDINATOR,
        (
            _member(
                3,
                "fulfilment",
                (T("payments", 1),),
                target_assignment=(T("payments", 1), T("payments", 0)),
                subscription=("payments",),
                subscribed_topic_regex="pay.*",
                member_epoch=12,
                member_type="consumer",
                rack="rack-a",
            ),
        ),
        group_epoch=12,
        assignment_epoch=11,
    )
    hostile = GroupDescription(HOSTILE, "Empty", "classic", None, None, COORDINATOR)
    inputs = [
        (
            GroupInput(
                billing,
                {
                    T("orders", 0): CommittedOffset(1000),
                    T("orders", 1): CommittedOffset(100),
                    T("payments", 0): CommittedOffset(10),
                },
            ),
            [T("orders", 0), T("orders", 1), T("orders", 2), T("payments", 0)],
        ),
        (
            GroupInput(
                GroupDescription("denied", "Unknown", coordinator=COORDINATOR),
                {},
                "not authorized to describe group denied (GROUP_AUTHORIZATION_FAILED)",
                "error",
            ),
            [],
        ),
        (
            GroupInput(
                kip848, {T("payments", 1): CommittedOffset(7), T("注文", 0): CommittedOffset(3)}
            ),
            [T("payments", 1), T("注文", 0)],
        ),
        (
            GroupInput(
                GroupDescription("ghost", "Dead"), {}, "group ghost does not exist", "not_found"
            ),
            [],
        ),
        (GroupInput(hostile, {T(HOSTILE, 0): CommittedOffset(1)}), [T(HOSTILE, 0)]),
        (GroupInput(GroupDescription("idle", "Empty", coordinator=COORDINATOR), {}), []),
    ]
    return [
        build_group_lag(
            gi,
            tps,
            marks,
            next_records=peeked if lag_time else None,
            now_ms=NOW if lag_time else None,
        )
        for gi, tps in inputs
    ]


def _window(topic: str, partition: int, commits, committed, log_end, owner=None, slots=3):
    return PartitionWindow(
        topic,
        partition,
        tuple(Observation(ts, off, lag) for ts, off, lag in commits),
        (
            LogEnd(NOW - 10_000, (commits[0][1] + commits[0][2]) if commits else log_end),
            LogEnd(NOW, log_end),
        ),
        committed,
        0,
        log_end,
        lag_ms=None if committed is None else (log_end - committed) * 1000,
        owner=owner,
        slots=slots,
    )


def check_verdicts():
    """GroupVerdicts of four groups: WARN with members, OK, STOP (hostile name), not found."""
    owner = Owner("consumer-pay-1-7d3a9c1e-2b4f-4e8a-9d11-0c6f5e2a8b01", "app", "/10.0.0.1")
    warn = evaluate_group(
        "payments",
        [
            _window(
                "orders",
                0,
                [(NOW - 10_000, 100, 50), (NOW - 5000, 110, 90), (NOW, 120, 130)],
                120,
                250,
                owner,
            ),
            _window("orders", 1, [(NOW - 10_000, 100, 0), (NOW, 120, 0)], 120, 120, owner),
        ],
        now_ms=NOW,
        thresholds=Thresholds(),
        members=[(owner.consumer_id, owner.client_id, owner.host)],
        state="Stable",
        group_type="classic",
        source="sampling",
    )
    ok = evaluate_group(
        "audit",
        [_window("audit", 0, [(NOW - 10_000, 10, 0), (NOW, 20, 0)], 20, 20)],
        now_ms=NOW,
        thresholds=Thresholds(),
        members=[],
        state="Empty",
        group_type="classic",
        source="sampling",
    )
    stop = evaluate_group(
        HOSTILE,
        [_window(HOSTILE, 0, [], 3, 100)],
        now_ms=NOW,
        thresholds=Thresholds(),
        members=[],
        state="Empty",
        group_type="classic",
        source="sampling",
    )
    from kgroup.check.model import GroupVerdict, Status

    missing = GroupVerdict(
        group="gone",
        status=Status.NOTFOUND,
        rule="not-found",
        reason="group gone does not exist",
        source="sampling",
        error="group gone does not exist",
        error_kind="not_found",
    )
    return [warn, ok, stop, missing]


CHECK_REQUEST = SimpleNamespace(
    window_ms=10_000, samples=3, fail_on="err", thresholds=Thresholds(max_lag=1000)
)


def list_rows():
    """`list` rows as kgroup.core.groups.list_groups_with_state returns them."""
    return [
        {
            "group": "billing",
            "state": "Stable",
            "type": "classic",
            "protocol_type": "consumer",
            "members": 2,
        },
        {
            "group": "fulfilment",
            "state": "Stable",
            "type": "consumer",
            "protocol_type": "consumer",
            "members": 1,
        },
        {
            "group": HOSTILE,
            "state": "Empty",
            "type": "classic",
            "protocol_type": None,
            "members": 0,
        },
        {
            "group": "share-1",
            "state": "Empty",
            "type": "share",
            "protocol_type": "share",
            "members": None,
        },
    ]
