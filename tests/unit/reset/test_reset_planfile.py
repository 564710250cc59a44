"""Plan files: Kafka's two CSV layouts, kgroup's JSON plan/backup, round trips, bad input.

CSV lines follow Kafka's `ConsumerGroupCommand` export (`group,topic,partition,offset`, no
header) and its group-less three-column variant.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kgroup.core.errors import CorruptInputError, NotFoundError, UsageError
from kgroup.reset.model import GroupPlan, PlanRow, TopicPartition
from kgroup.reset.planfile import (
    parse_csv_plan,
    parse_json_plan,
    parse_plan_text,
    plans_to_csv,
    plans_to_json,
    read_plan_file,
    write_plan_file,
)
from kgroup.reset.planner import plan_group
from kgroup.reset.strategy import FileRow, ToLatest

CREATED = 1_777_629_600_000  # 2026-05-01T10:00:00Z


def rows_of(rows):
    return [(r.group, r.topic, r.partition, r.offset, r.line) for r in rows]


def test_csv_with_group_column() -> None:
    text = "orders-app,orders,0,42\norders-app,orders,1,17\nbilling,payments,0,5\n"
    assert rows_of(parse_csv_plan(text, "p.csv")) == [
        ("orders-app", "orders", 0, 42, 1),
        ("orders-app", "orders", 1, 17, 2),
        ("billing", "payments", 0, 5, 3),
    ]


def test_csv_without_group_column() -> None:
    text = "orders,0,42\r\norders,1,17"
    assert rows_of(parse_csv_plan(text, "p.csv")) == [
        (None, "orders", 0, 42, 1),
        (None, "orders", 1, 17, 2),
    ]


def test_csv_blank_lines_are_skipped_but_counted() -> None:
    text = "\norders,0,1\n\n  \norders,1,2\n"
    assert [r.line for r in parse_csv_plan(text, "p.csv")] == [2, 5]


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("topic,partition,offset\norders,0,1\n", 1, "partition 'partition'"),
        ("orders,0,1\norders,x,1\n", 2, "partition 'x'"),
        ("orders,0,1\norders,1,-5\n", 2, "offset '-5'"),
        ("orders,0,1\norders,1,1.5\n", 2, "offset '1.5'"),
        ("orders,0,1\norders,1\n", 2, "expected 3 or 4"),
        ("orders,0,1\na,b,c,d,e\n", 2, "expected 3 or 4"),
        ("orders,0,1\ng,orders,1,1\n", 2, "where line 1"),
        ("orders,0,1\n\norders,0,2\n", 3, "already given on line 1"),
        ("g,orders,0,1\n,orders,1,1\n", 2, "empty group"),
        ("orders topic,0,1\n", 1, "not a valid topic"),
        ("orders,2147483648,1\n", 1, "out of Kafka's range"),
        ("orders,0,9223372036854775808\n", 1, "out of Kafka's range"),
        ("g,,0,1\n", 1, "not a valid topic"),
    ],
)
def test_bad_csv_lines_name_file_and_line(text: str, line: int, reason: str) -> None:
    with pytest.raises(CorruptInputError) as err:
        parse_csv_plan(text, "plan.csv")
    assert err.value.exit_code == 7
    assert err.value.source == "plan.csv"
    assert err.value.position == line
    assert err.value.message.startswith(f"plan.csv, line {line}: ")
    assert reason in err.value.message


def test_csv_header_gets_a_hint() -> None:
    with pytest.raises(CorruptInputError) as err:
        parse_csv_plan("group,topic,partition,offset\n", "p.csv")
    assert "no header" in err.value.hint


def test_empty_csv_is_corrupt() -> None:
    with pytest.raises(CorruptInputError):
        parse_csv_plan("\n\n", "p.csv")


def test_csv_group_names_are_verbatim_and_numbers_may_be_padded() -> None:
    rows = parse_csv_plan("my group ,orders, 0 , 42\n", "p.csv")
    assert rows_of(rows) == [("my group ", "orders", 0, 42, 1)]


def test_csv_group_that_cannot_be_written() -> None:
    plan = GroupPlan("a,b", (PlanRow("a,b", "t", 0, 5, 6, 0, 9),), "to-offset 6")
    with pytest.raises(UsageError):
        plans_to_csv([plan])


def test_same_partition_for_two_groups_is_fine() -> None:
    rows = parse_csv_plan("a,t,0,1\nb,t,0,2\n", "p.csv")
    assert [(r.group, r.offset) for r in rows] == [("a", 1), ("b", 2)]


def sample_plans() -> list[GroupPlan]:
    tp0, tp1 = TopicPartition("orders", 0), TopicPartition("orders", 1)
    plan_b = plan_group(
        "orders-app", [tp1, tp0], {tp0: 40}, {tp0: (10, 100), tp1: (0, 50)}, None, ToLatest(), 0
    )
    plan_a = GroupPlan(
        "billing",
        (PlanRow("billing", "payments", 3, 7, 5, 5, 9, True, "payments-3: ...", False, "m", 2),),
        "to-offset 1",
        timestamp_ms=CREATED,
    )
    return [plan_b, plan_a]


def test_csv_export_is_kafkas_layout() -> None:
    assert plans_to_csv(sample_plans()) == (
        "billing,payments,3,5\norders-app,orders,0,100\norders-app,orders,1,50\n"
    )


def test_csv_round_trip() -> None:
    rows = parse_csv_plan(plans_to_csv(sample_plans()), "p.csv")
    assert [(r.group, r.topic, r.partition, r.offset) for r in rows] == [
        ("billing", "payments", 3, 5),
        ("orders-app", "orders", 0, 100),
        ("orders-app", "orders", 1, 50),
    ]


def test_csv_cannot_express_removing_an_offset() -> None:
    plan = GroupPlan("g", (PlanRow("g", "t", 0, 5, None, 0, 9),), "undo")
    with pytest.raises(UsageError) as err:
        plans_to_csv([plan])
    assert ".json" in err.value.hint


def test_json_document_layout() -> None:
    doc = json.loads(plans_to_json(sample_plans(), kind="plan", created_at_ms=CREATED))
    assert doc["schema_version"] == 1
    assert doc["kind"] == "plan"
    assert doc["created_at"] == "2026-05-01T10:00:00.000Z"
    assert [g["group"] for g in doc["groups"]] == ["billing", "orders-app"]
    assert doc["groups"][0]["timestamp"] == "2026-05-01T10:00:00.000Z"
    assert "timestamp" not in doc["groups"][1]
    assert doc["groups"][1]["partitions"][0] == {
        "topic": "orders",
        "partition": 0,
        "current_offset": 40,
        "new_offset": 100,
        "delta": 60,
        "log_start_offset": 10,
        "log_end_offset": 100,
        "clamped": False,
        "no_record_after_time": False,
        "warning": None,
        "metadata": None,
        "leader_epoch": None,
    }


@pytest.mark.parametrize("kind", ["plan", "backup"])
def test_json_round_trip(kind: str) -> None:
    plans = sample_plans()
    back = parse_json_plan(plans_to_json(plans, kind=kind, created_at_ms=CREATED), "p.json")
    assert back.kind == kind
    assert back.created_at == "2026-05-01T10:00:00.000Z"
    assert back.plans == tuple(sorted(plans, key=lambda p: p.group))
    assert [
        (r.group, r.topic, r.partition, r.offset, r.metadata, r.leader_epoch) for r in back.rows
    ] == [
        ("billing", "payments", 3, 5, "m", 2),
        ("orders-app", "orders", 0, 100, None, None),
        ("orders-app", "orders", 1, 50, None, None),
    ]


def test_minimal_hand_written_json_plan() -> None:
    text = (
        '{"schema_version": 1, "kind": "backup", "groups": [{"group": "g", "partitions": '
        '[{"topic": "t", "partition": 1, "new_offset": null}, '
        '{"topic": "t", "partition": 0, "new_offset": 9, "metadata": "x", "leader_epoch": 4}]}]}'
    )
    pf = parse_plan_text(text, "b")
    assert pf.format == "json"
    assert pf.plans[0].strategy == "from-file"
    assert [(r.partition, r.new_offset, r.current_offset) for r in pf.plans[0].rows] == [
        (0, 9, None),
        (1, None, None),
    ]
    assert pf.strategy().rows_for_group("g")[TopicPartition("t", 0)] == FileRow(
        "g", "t", 0, 9, "x", 4
    )


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("{not json", "line 1"),
        ("[]", "$: expected an object"),
        ('{"schema_version": 1, "kind": "plan"}', "$.groups"),
        ('{"kind": "plan", "groups": []}', "$.schema_version"),
        ('{"schema_version": 1, "kind": "undo", "groups": []}', "$.kind"),
        (
            '{"schema_version": 1, "kind": "plan", "groups": [{"group": "g", "partitions": '
            '[{"topic": "t", "partition": true, "new_offset": 1}]}]}',
            "$.groups[0].partitions[0].partition",
        ),
        (
            '{"schema_version": 1, "kind": "plan", "groups": [{"group": "g", "partitions": '
            '[{"topic": "t", "partition": 0}]}]}',
            "$.groups[0].partitions[0].new_offset: missing",
        ),
        (
            '{"schema_version": 1, "kind": "plan", "groups": [{"group": "g", "partitions": '
            '[{"topic": "t", "partition": 0, "new_offset": -3}]}]}',
            "$.groups[0].partitions[0].new_offset",
        ),
        (
            '{"schema_version": 1, "kind": "plan", "groups": [{"group": "g", "partitions": '
            '[{"topic": "t", "partition": 0, "new_offset": 1}, '
            '{"topic": "t", "partition": 0, "new_offset": 2}]}]}',
            "appears twice",
        ),
        (
            '{"schema_version": 1, "kind": "plan", "groups": [{"group": "g", "partitions": []},'
            ' {"group": "g", "partitions": []}]}',
            "group g appears twice",
        ),
    ],
)
def test_bad_json_plans(text: str, where: str) -> None:
    with pytest.raises(CorruptInputError) as err:
        parse_json_plan(text, "p.json")
    assert err.value.exit_code == 7
    assert err.value.source == "p.json"
    assert where in err.value.message


def test_newer_schema_version_asks_for_an_upgrade() -> None:
    with pytest.raises(CorruptInputError) as err:
        parse_json_plan('{"schema_version": 2, "kind": "plan", "groups": []}', "p.json")
    assert "upgrade" in err.value.hint


def test_write_and_read_files_by_extension(tmp_path: Path) -> None:
    plans = sample_plans()
    csv_path = write_plan_file(tmp_path / "plan.CSV", plans, created_at_ms=CREATED)
    assert csv_path.read_text() == plans_to_csv(plans)
    assert read_plan_file(csv_path).format == "csv"
    json_path = write_plan_file(tmp_path / "b.json", plans, kind="backup", created_at_ms=CREATED)
    back = read_plan_file(json_path)
    assert (back.format, back.kind) == ("json", "backup")
    assert back.plans == tuple(sorted(plans, key=lambda p: p.group))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.json", "plan.CSV"]  # no temp left


def test_read_sniffs_files_without_a_known_extension(tmp_path: Path) -> None:
    (tmp_path / "plan").write_text("t,0,5\n")
    assert read_plan_file(tmp_path / "plan").format == "csv"
    (tmp_path / "backup.txt").write_text(
        plans_to_json(sample_plans(), kind="backup", created_at_ms=CREATED)
    )
    assert read_plan_file(tmp_path / "backup.txt").kind == "backup"


def test_file_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        write_plan_file(tmp_path / "plan.txt", sample_plans(), created_at_ms=CREATED)
    with pytest.raises(UsageError) as err:
        write_plan_file(tmp_path / "b.csv", sample_plans(), kind="backup", created_at_ms=CREATED)
    assert ".json" in err.value.hint
    with pytest.raises(UsageError):
        write_plan_file(tmp_path / "no" / "dir.json", sample_plans(), created_at_ms=CREATED)
    with pytest.raises(NotFoundError):  # a missing input file is exit 3 (README exit codes)
        read_plan_file(tmp_path / "missing.csv")
    with pytest.raises(UsageError, match="is a directory, not a regular file"):
        read_plan_file(tmp_path)
    (tmp_path / "bin.csv").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(CorruptInputError):
        read_plan_file(tmp_path / "bin.csv")
    (tmp_path / "bad.csv").write_text("t,0,1\nt,0\n")
    with pytest.raises(CorruptInputError) as bad:
        read_plan_file(tmp_path / "bad.csv")
    assert bad.value.source == str(tmp_path / "bad.csv")
    assert bad.value.position == 2


_topic = st.from_regex(r"[a-zA-Z0-9._-]{1,12}", fullmatch=True)
_group = st.text(
    st.characters(blacklist_characters=",\r\n", blacklist_categories=["Cs"]),
    min_size=1,
    max_size=12,
).filter(str.strip)
_off = st.integers(min_value=0, max_value=2**63 - 1)
_opt = st.none() | _off


@st.composite
def group_plans(draw):
    plans = []
    for group in draw(st.lists(_group, min_size=1, max_size=3, unique=True)):
        keys = draw(st.lists(st.tuples(_topic, st.integers(0, 500)), max_size=5, unique=True))
        rows = tuple(
            PlanRow(
                group,
                t,
                p,
                draw(_opt),
                draw(_off),
                draw(_opt),
                draw(_opt),
                metadata=draw(st.none() | st.text(max_size=5)),
                leader_epoch=draw(st.none() | st.integers(0, 99)),
            )
            for t, p in sorted(keys)
        )
        plans.append(GroupPlan(group, rows, "to-offset 1"))
    return plans


# Fixed examples tried first on every run: a group name padded with spaces and not ASCII,
# empty metadata next to none, the largest int64 offset and int32-range partition used, a
# group without rows, a backup row that removes an offset (new_offset None).
EDGE_PLANS = [
    GroupPlan(
        " grüße \t",
        (
            PlanRow(" grüße \t", "a.b-c_D", 0, None, 2**63 - 1, 0, 2**63 - 1, metadata=""),
            PlanRow(" grüße \t", "a.b-c_D", 500, 2**63 - 1, 0, None, None, leader_epoch=0),
        ),
        "to-offset 1",
    ),
    GroupPlan("\x00g\u2028", (), "to-offset 1"),
]
EDGE_BACKUP = [
    GroupPlan("g", (PlanRow("g", "t", 1, 4, None, None, None, metadata='m"\\'),), "undo")
]

# Seeded (derandomize) and without a deadline: the one failure seen in CI was Hypothesis'
# 200 ms deadline on a loaded 2-core machine ("Unreliable test timings": a slow first call, a
# fast rerun), not an input the round trip breaks; 20,000 random examples found none.
PROPERTY = settings(derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(group_plans())
@example(EDGE_PLANS)
@example(EDGE_BACKUP)
def test_json_round_trip_property(plans) -> None:
    text = plans_to_json(plans, kind="plan", created_at_ms=CREATED)
    assert parse_json_plan(text, "p.json").plans == tuple(sorted(plans, key=lambda p: p.group))


@PROPERTY
@given(group_plans())
@example(EDGE_PLANS[:1])
def test_csv_round_trip_property(plans) -> None:
    rows = parse_csv_plan(plans_to_csv(plans), "p.csv") if any(p.rows for p in plans) else ()
    expected = [
        (p.group, r.topic, r.partition, r.new_offset)
        for p in sorted(plans, key=lambda p: p.group)
        for r in p.rows
    ]
    assert [(r.group, r.topic, r.partition, r.offset) for r in rows] == expected
