"""Faults during --execute: partial writes put back, a fence that lost its group, a cluster lost
in the middle of several groups, and one exit code rule for dry runs and --execute."""

from __future__ import annotations

import pytest

from kgroup.core.errors import KafkaOperationError, NotFoundError, UnreachableError
from kgroup.core.models import CommittedOffset, GroupDescription, MemberDescription, TopicPartition
from kgroup.core.wire.fence import FenceHold, GroupFence
from kgroup.reset import apply
from kgroup.reset.model import GroupPlan, PlanRow
from kgroup.reset.run import combined_exit_code

T0, T1 = TopicPartition("orders", 0), TopicPartition("gone", 0)


class FakeFence:
    """Kafka's answer to a commit touching a deleted topic: the rest is written."""

    def __init__(self) -> None:
        self.commits: list[dict] = []

    def commit(self, offsets):
        self.commits.append(dict(offsets))
        if len(self.commits) == 1:
            error = KafkaOperationError("cannot commit offsets of group g for gone:0")
            error.written = [T0]
            raise error


def test_a_partial_commit_is_put_back_as_it_was() -> None:
    fence = FakeFence()
    previous = {T0: CommittedOffset(offset=30, leader_epoch=None, metadata="m")}
    new = {T0: CommittedOffset(5, None, ""), T1: CommittedOffset(5, None, "")}
    with pytest.raises(KafkaOperationError) as caught:
        apply._fenced_commit(fence, "g", new, {**previous})
    assert fence.commits[1] == previous  # orders:0 restored to 30 with its metadata
    assert "put back as they were: nothing changed" in caught.value.message


def test_a_partial_commit_names_what_could_not_be_put_back() -> None:
    fence = FakeFence()
    with pytest.raises(KafkaOperationError) as caught:
        apply._fenced_commit(fence, "g", {T0: CommittedOffset(5, None, "")}, {})
    assert (
        "orders:0" in caught.value.message and "no committed offset before" in caught.value.message
    )


def _fence_holding(member: str) -> GroupFence:
    fence = GroupFence(client=None, group_id="g", session_ms=6000)
    fence.hold = FenceHold(member, 3)
    return fence


def test_still_alone_sees_a_joiner_or_a_converted_group() -> None:
    fence = _fence_holding("kgroup-reset-offsets pid 1-abc")
    alone = GroupDescription(
        "g", "Stable", members=(MemberDescription("kgroup-reset-offsets pid 1-abc"),)
    )
    assert fence.still_alone(alone) is None
    joined = GroupDescription(
        "g", "PreparingRebalance", members=(*alone.members, MemberDescription("consumer-1-x"))
    )
    assert "consumer-1-x joined" in fence.still_alone(joined)
    converted = GroupDescription("g", "Stable", type="consumer", members=alone.members)
    assert "became a consumer group" in fence.still_alone(converted)


def test_one_group_losing_its_coordinator_does_not_stop_the_others(monkeypatch) -> None:
    """Issue 23.1/23.2: each group is its own unit; the lost one is `unknown` (its commit was
    under way), the others still run, and the report keeps the groups' order."""
    plans = [GroupPlan(g, (PlanRow(g, "orders", 0, 1, 2, 0, 9),), "to-offset 2") for g in "abc"]
    tried = []

    def fake_execute(admin, plan, **kwargs):
        tried.append(plan.group)
        if plan.group == "b":
            kwargs["run"].phase = "committing"
            error = UnreachableError("broker did not answer")
            error.backup_path = "/backups/b.json"
            raise error
        return apply.GroupOutcome(plan.group, "committed", 1, backup=f"/backups/{plan.group}")

    monkeypatch.setattr(apply, "execute_plan", fake_execute)
    monkeypatch.setattr(apply, "guard_refusal", lambda *a, **k: None)
    report = apply.execute_plans(None, plans, backup=None, now_ms=0)
    assert sorted(tried) == ["a", "b", "c"]
    assert [(o.group, o.status, o.exit_code, o.backup) for o in report.outcomes] == [
        ("a", "committed", 0, "/backups/a"),
        ("b", "unknown", 6, "/backups/b.json"),
        ("c", "committed", 0, "/backups/c"),
    ]


def test_no_plan_no_group_run() -> None:
    report = apply.execute_plans(None, [], backup=None, now_ms=0)
    assert report.outcomes == [] and report.interrupted is None


def test_one_exit_code_rule_for_several_groups() -> None:
    assert combined_exit_code([4, 4]) == 4
    assert combined_exit_code([3]) == 3
    assert combined_exit_code([3, 4]) == 4  # all refusals
    assert combined_exit_code([4, 1]) == 1
    assert NotFoundError.exit_code == 3
