"""Reset guardrails: --max-rewind / --max-skip limits, protected groups, reset.properties.

Every expected number below is worked out by hand from the rows written in each test.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

from kgroup.core.errors import SafetyRefusal, UsageError
from kgroup.core.models import GroupDescription, MemberDescription
from kgroup.delete.groups import delete_group_offsets, delete_inactive_groups
from kgroup.reset.guardrails import (
    Limit,
    check_limits,
    config_dir,
    configured_limits,
    offsets_needing_times,
    parse_limit,
    protected_match,
    protected_patterns,
    protection_refusal,
)
from kgroup.reset.model import CommittedOffset, GroupPlan, PlanRow, TopicPartition

H = 3_600_000
M = 60_000
NOW = 1_777_629_600_000  # 2026-05-01T10:00:00Z


def row(partition: int, current: int | None, new: int | None, end: int = 10_000) -> PlanRow:
    return PlanRow("g", "orders", partition, current, new, 0, end)


def plan(*rows: PlanRow) -> GroupPlan:
    return GroupPlan("g", tuple(rows), "test")


def tp(partition: int) -> TopicPartition:
    return TopicPartition("orders", partition)


# --- parse_limit -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "messages", "duration_ms"),
    [
        ("1000", 1000, None),
        (" 0 ", 0, None),
        ("30m", None, 30 * M),
        ("2h", None, 2 * H),
        ("1d", None, 24 * H),
        ("PT30M", None, 30 * M),
        ("P1DT2H", None, 26 * H),
        ("1h30m", None, 90 * M),
    ],
)
def test_parse_limit(text: str, messages: int | None, duration_ms: int | None) -> None:
    limit = parse_limit(text, "--max-rewind")
    assert (limit.messages, limit.duration_ms, limit.text) == (messages, duration_ms, text.strip())


@pytest.mark.parametrize("text", ["", "-5", "+5", "1.5", "abc", "P1M", "10 messages", "٣"])
def test_parse_limit_rejects(text: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_limit(text, "--max-skip")
    assert "--max-skip" in info.value.message
    assert f"'{text}'" in info.value.message


def test_limit_is_frozen() -> None:
    limit = parse_limit("5", "--max-skip")
    with pytest.raises(AttributeError):
        limit.messages = 6  # type: ignore[misc]


# --- check_limits: message counts ------------------------------------------------------------


def test_message_limits() -> None:
    p = plan(
        row(0, 5000, 6500),  # skips 1500
        row(1, 5000, 4000),  # moves back 1000: exactly at the limit, allowed
        row(2, 5000, 3800),  # moves back 1200
        row(3, None, 9000),  # no current offset: not limited
        row(4, 5000, None),  # no new offset: not limited
        row(5, 5000, 5000),  # no move
        row(6, 5000, 5900),  # skips 900
    )
    lines = check_limits(
        p, parse_limit("1000", "--max-rewind"), parse_limit("1000", "--max-skip"), None
    )
    assert lines == [
        "orders:0 skips 1500 messages (limit --max-skip 1000)",
        "orders:2 moves back 1200 messages (limit --max-rewind 1000)",
    ]


def test_only_the_limit_of_the_direction_applies() -> None:
    p = plan(row(0, 5000, 9000), row(1, 5000, 0))
    assert check_limits(p, parse_limit("10", "--max-rewind"), None, None) == [
        "orders:1 moves back 5000 messages (limit --max-rewind 10)"
    ]
    assert check_limits(p, None, parse_limit("10", "--max-skip"), None) == [
        "orders:0 skips 4000 messages (limit --max-skip 10)"
    ]
    assert check_limits(p, None, None, None) == []


def test_zero_limit_refuses_any_move_that_way() -> None:
    p = plan(row(0, 10, 11), row(1, 10, 9))
    assert check_limits(p, None, parse_limit("0", "--max-skip"), None) == [
        "orders:0 skips 1 messages (limit --max-skip 0)"
    ]


# --- check_limits: durations -----------------------------------------------------------------


def test_duration_skip_and_rewind() -> None:
    p = plan(
        row(0, 100, 900),  # skip of 3h 10m
        row(1, 500, 200),  # rewind of 30m: within 1h
        row(2, 500, 100),  # rewind of 2h
    )
    times = {
        (tp(0), 100): NOW - 4 * H,
        (tp(0), 900): NOW - 4 * H + 3 * H + 10 * M,
        (tp(1), 500): NOW - H,
        (tp(1), 200): NOW - H - 30 * M,
        (tp(2), 500): NOW,
        (tp(2), 100): NOW - 2 * H,
    }
    rewind, skip = parse_limit("1h", "--max-rewind"), parse_limit("1h", "--max-skip")
    assert offsets_needing_times(p, rewind, skip) == set(times)
    assert check_limits(p, rewind, skip, times, now_ms=NOW) == [
        "orders:0 skips 3h 10m of records (limit --max-skip 1h)",
        "orders:2 moves back 2h of records (limit --max-rewind 1h)",
    ]


def test_duration_exactly_at_limit_is_allowed() -> None:
    p = plan(row(0, 100, 900))
    times = {(tp(0), 100): NOW - H, (tp(0), 900): NOW}
    assert check_limits(p, None, parse_limit("PT1H", "--max-skip"), times) == []


def test_log_end_counts_as_now() -> None:
    # Skip to the log end: the span runs from the current record's time to now.
    p = plan(row(0, 100, 10_000, end=10_000))
    skip = parse_limit("1h", "--max-skip")
    assert offsets_needing_times(p, None, skip) == {(tp(0), 100)}
    times: dict[tuple[TopicPartition, int], int | None] = {
        (tp(0), 100): NOW - 2 * H - 5 * M,
        (tp(0), 10_000): None,
    }
    assert check_limits(p, None, skip, times, now_ms=NOW) == [
        "orders:0 skips 2h 5m of records (limit --max-skip 1h)"
    ]
    # Without now_ms the span cannot be measured: refused, the safe side.
    assert check_limits(p, None, skip, times) == [
        "orders:0 skips 9900 messages whose time span could not be measured (limit --max-skip 1h)"
    ]


def test_rewind_from_log_end() -> None:
    # A group caught up at the log end rewinds: the current end counts as now.
    p = plan(row(0, 10_000, 9_000, end=10_000))
    rewind = parse_limit("30m", "--max-rewind")
    assert offsets_needing_times(p, rewind, None) == {(tp(0), 9_000)}
    times = {(tp(0), 9_000): NOW - 20 * M}
    assert check_limits(p, rewind, None, times, now_ms=NOW) == []


@pytest.mark.parametrize(
    "times",
    [
        None,
        {},
        {(tp(0), 100): NOW - H},  # new end missing
        {(tp(0), 100): None, (tp(0), 900): NOW},  # current end has no record (not log end)
    ],
)
def test_unknown_time_is_a_violation(times: Any) -> None:
    p = plan(row(0, 100, 900))
    assert check_limits(p, None, parse_limit("1d", "--max-skip"), times, now_ms=NOW) == [
        "orders:0 skips 800 messages whose time span could not be measured (limit --max-skip 1d)"
    ]


def test_offsets_needing_times_only_for_duration_limits() -> None:
    p = plan(row(0, 100, 900), row(1, 500, 200), row(2, None, 50), row(3, 7, 7))
    assert offsets_needing_times(p, parse_limit("10", "--max-rewind"), None) == set()
    assert offsets_needing_times(p, None, parse_limit("1h", "--max-skip")) == {
        (tp(0), 100),
        (tp(0), 900),
    }
    assert offsets_needing_times(p, None, None) == set()


def test_span_shows_milliseconds_only_when_needed() -> None:
    p = plan(row(0, 1, 2), row(1, 1, 2))
    times = {
        (tp(0), 1): 0,
        (tp(0), 2): H + 1 * M + 2_500,  # 1h 1m 2.5s: whole seconds suffice
        (tp(1), 1): 0,
        (tp(1), 2): 60_500,  # 1m 0.5s against a 1m limit: the 500ms matter
    }
    lines = check_limits(p, None, parse_limit("1m", "--max-skip"), times, now_ms=NOW)
    assert lines == [
        "orders:0 skips 1h 1m 2s of records (limit --max-skip 1m)",
        "orders:1 skips 1m 500ms of records (limit --max-skip 1m)",
    ]


def test_limit_dataclass_fields() -> None:
    assert Limit(messages=None, duration_ms=5, text="5ms") == parse_limit("5ms", "--max-skip")


# --- config_dir ------------------------------------------------------------------------------


def test_config_dir(tmp_path) -> None:
    assert config_dir({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "kgroup"
    assert config_dir({"HOME": "/home/x"}) == config_dir({"HOME": "/home/x", "XDG_CONFIG_HOME": ""})
    assert str(config_dir({"HOME": "/home/x"})) == os.path.join("/home/x", ".config", "kgroup")
    # A relative XDG_CONFIG_HOME is ignored (XDG Base Directory spec).
    assert config_dir({"HOME": "/home/x", "XDG_CONFIG_HOME": "rel"}) == config_dir(
        {"HOME": "/home/x"}
    )


# --- protected groups ------------------------------------------------------------------------


def write_config(tmp_path, name: str, text: str) -> dict[str, str]:
    directory = tmp_path / "kgroup"
    directory.mkdir(exist_ok=True)
    (directory / name).write_text(text, encoding="utf-8")
    return {"XDG_CONFIG_HOME": str(tmp_path)}


def test_no_protection_configured(tmp_path) -> None:
    assert protected_patterns({"XDG_CONFIG_HOME": str(tmp_path)}) == []


def test_protected_patterns_from_env_and_file(tmp_path) -> None:
    env = write_config(
        tmp_path,
        "protected-groups",
        "# production consumers\n\n  payments-.*  \n   # indented comment\nbilling{1,2}\n",
    )
    env["KGROUP_PROTECTED_GROUPS"] = " orders , ,audit-[0-9]+,"
    patterns = protected_patterns(env)
    assert [p.pattern for p in patterns] == [
        "orders",
        "audit-[0-9]+",
        "payments-.*",
        "billing{1,2}",
    ]
    assert protected_match("orders", patterns) == "orders"
    assert protected_match("orders-replay", patterns) is None  # full match only
    assert protected_match("my-orders", patterns) is None
    assert protected_match("audit-12", patterns) == "audit-[0-9]+"
    assert protected_match("payments-eu", patterns) == "payments-.*"
    assert protected_match("billingg", patterns) == "billing{1,2}"
    assert protected_match("scratch", patterns) is None


def test_bad_regex_in_env(tmp_path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path), "KGROUP_PROTECTED_GROUPS": "ok,bad(["}
    with pytest.raises(UsageError) as info:
        protected_patterns(env)
    assert "KGROUP_PROTECTED_GROUPS" in info.value.message
    assert "bad([" in info.value.message
    assert "comma" in (info.value.hint or "")


def test_bad_regex_in_file(tmp_path) -> None:
    env = write_config(tmp_path, "protected-groups", "# c\nfine\n*bad\n")
    with pytest.raises(UsageError) as info:
        protected_patterns(env)
    path = tmp_path / "kgroup" / "protected-groups"
    assert f"{path}:3" in info.value.message
    assert "*bad" in info.value.message


def test_unreadable_protected_file(tmp_path) -> None:
    (tmp_path / "kgroup" / "protected-groups").mkdir(parents=True)
    with pytest.raises(UsageError) as info:
        protected_patterns({"XDG_CONFIG_HOME": str(tmp_path)})
    assert "protected-groups" in info.value.message


def test_protection_refusal() -> None:
    patterns = [re.compile("prod-.*")]
    refusal = protection_refusal("prod-orders", patterns)
    assert isinstance(refusal, SafetyRefusal)
    assert refusal.exit_code == 4
    assert "prod-.*" in refusal.one_line() and "--force" in refusal.one_line()
    assert protection_refusal("prod-orders", patterns, force=True) is None
    assert protection_refusal("dev-orders", patterns) is None


# --- reset.properties ------------------------------------------------------------------------


def test_configured_limits(tmp_path) -> None:
    env = write_config(
        tmp_path, "reset.properties", "# defaults\n\nmax.rewind = 100000\n  max.skip=PT2H\n"
    )
    assert configured_limits(env) == (Limit(100_000, None, "100000"), Limit(None, 2 * H, "PT2H"))


def test_configured_limits_absent(tmp_path) -> None:
    assert configured_limits({"XDG_CONFIG_HOME": str(tmp_path)}) == (None, None)
    env = write_config(tmp_path, "reset.properties", "max.skip=1d\n")
    assert configured_limits(env) == (None, Limit(None, 24 * H, "1d"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("max.rewind=10\nmax.rewnd=5\n", ["reset.properties:2", "max.rewnd", "max.rewind"]),
        ("# c\nmax.skip 10\n", ["reset.properties:2", "key=value"]),
        ("max.skip=soon\n", ["reset.properties:1", "max.skip", "'soon'"]),
        ("max.skip=\n", ["reset.properties:1", "max.skip"]),
        ("max.skip=1\nmax.skip=2\n", ["reset.properties:2", "line 1"]),
    ],
)
def test_configured_limits_errors(tmp_path, text: str, expected: list[str]) -> None:
    env = write_config(tmp_path, "reset.properties", text)
    with pytest.raises(UsageError) as info:
        configured_limits(env)
    assert all(part in info.value.one_line() for part in expected), info.value.one_line()


# --- group deletion refuses protected groups -------------------------------------------------


class FakeAdmin:
    """Just enough GroupAdmin for the deletion decisions; records what was asked."""

    def __init__(self, described: dict[str, GroupDescription]) -> None:
        self.described = described
        self.calls: list[tuple[str, Any]] = []

    def describe_groups(self, group_ids):
        self.calls.append(("describe_groups", list(group_ids)))
        return {g: self.described[g] for g in group_ids}

    def committed_offsets_many(self, group_ids):
        self.calls.append(("committed_offsets_many", list(group_ids)))
        return {g: {tp(0): CommittedOffset(1)} for g in group_ids}

    def delete_groups(self, group_ids, progress=None):
        self.calls.append(("delete_groups", list(group_ids)))
        return dict.fromkeys(group_ids)


@pytest.fixture()
def protected_env(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("KGROUP_PROTECTED_GROUPS", "prod-.*")


def test_delete_groups_refuses_protected(protected_env) -> None:
    admin = FakeAdmin(
        {
            "dev-a": GroupDescription("dev-a", "Empty"),
            "dev-busy": GroupDescription(
                "dev-busy", "Stable", members=(MemberDescription("m1", client_id="c1", host="h1"),)
            ),
        }
    )
    rows = delete_inactive_groups(admin, ["prod-orders", "dev-a", "dev-busy"])  # type: ignore[arg-type]
    by_group = {r["group"]: r for r in rows}
    assert [r["group"] for r in rows] == ["dev-a", "dev-busy", "prod-orders"]
    assert by_group["dev-a"]["status"] == "deleted"
    assert by_group["dev-busy"]["status"] == "refused"
    assert by_group["prod-orders"]["status"] == "refused"
    assert "prod-.*" in by_group["prod-orders"]["message"]
    assert "--force" in by_group["prod-orders"]["message"]
    # The protected group is never described nor deleted.
    assert ("describe_groups", ["dev-a", "dev-busy"]) in admin.calls
    assert ("delete_groups", ["dev-a"]) in admin.calls


def test_delete_groups_all_protected_asks_nothing(protected_env) -> None:
    admin = FakeAdmin({})
    rows = delete_inactive_groups(admin, ["prod-a", "prod-b", "prod-a"])  # type: ignore[arg-type]
    assert [(r["group"], r["status"]) for r in rows] == [
        ("prod-a", "refused"),
        ("prod-b", "refused"),
    ]
    assert admin.calls == []


def test_delete_groups_force(protected_env) -> None:
    admin = FakeAdmin({"prod-a": GroupDescription("prod-a", "Empty")})
    rows = delete_inactive_groups(admin, ["prod-a"], force=True)  # type: ignore[arg-type]
    assert rows == [{"group": "prod-a", "status": "deleted", "message": None}]


def test_delete_offsets_refuses_protected(protected_env) -> None:
    admin = FakeAdmin({})
    with pytest.raises(SafetyRefusal) as info:
        delete_group_offsets(admin, "prod-orders", ["orders"])  # type: ignore[arg-type]
    assert "prod-.*" in info.value.one_line() and "--force" in info.value.one_line()
    assert admin.calls == []


class FakeOffsetAdmin(FakeAdmin):
    """FakeAdmin plus what delete_group_offsets asks: offsets of partition 0 of `orders`."""

    def check_can_delete_offsets(self, group_id):
        self.calls.append(("check_can_delete_offsets", group_id))

    def committed_offsets_or_none(self, group_id):
        self.calls.append(("committed_offsets_or_none", group_id))
        return {tp(0): CommittedOffset(1)}

    def topics(self):
        return {"orders": 2}

    def delete_offsets_each(self, group_id, partitions):
        self.calls.append(("delete_offsets_each", list(partitions)))
        return dict.fromkeys(partitions)


def test_delete_offsets_force_goes_on_to_the_cluster(protected_env) -> None:
    admin = FakeOffsetAdmin({})
    # Past the protection, the broker decides (OffsetDelete, KIP-496): kgroup does not refuse
    # an active group up front, Kafka refuses only topics the group consumes.
    rows = delete_group_offsets(admin, "prod-orders", ["orders"], force=True)  # type: ignore[arg-type]
    assert [(r["partition"], r["status"]) for r in rows] == [(0, "deleted"), (1, "no_offset")]
    assert ("delete_offsets_each", [tp(0)]) in admin.calls


# --- plans with nothing to do (issue 24 item 10) ---------------------------------------------


def test_an_empty_plan_is_refused_with_exit_3_naming_the_group() -> None:
    from kgroup.core.errors import NotFoundError
    from kgroup.reset.guardrails import refuse_empty_plans
    from kgroup.reset.model import GroupPlan, PlanRow

    row = PlanRow("a", "t", 0, 1, 0, 0, 5)
    plans = (GroupPlan("a", (row,), "to earliest"), GroupPlan("b", (), "to earliest"))
    with pytest.raises(NotFoundError) as refused:
        refuse_empty_plans(plans, listed=False, reason="why", hint="what")
    assert refused.value.exit_code == 3
    assert refused.value.message == "nothing to reset for group(s) b: why; nothing was written"
    kept = refuse_empty_plans(plans, listed=True, reason="why", hint="what")
    assert [p.group for p in kept] == ["a"]
    assert kept[0].notes == ("left out, no partition in scope (why): b",)
    with pytest.raises(NotFoundError):
        refuse_empty_plans(plans[1:], listed=True, reason="why", hint="what")
    assert refuse_empty_plans(plans[:1], listed=False, reason="why", hint="what") == plans[:1]
