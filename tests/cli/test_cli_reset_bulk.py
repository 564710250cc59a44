"""Bulk `reset-offsets --execute` (issue 23.1) through a real `kgroup` process against a scripted
coordinator that holds the first join of an empty group as Kafka does
(`group.initial.rebalance.delay.ms`; tests/unit/wire/fakecoordinator.py, a fake: no Kafka runs
here). Groups are fenced concurrently: 50 groups take about one delay, not 50."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgroup.protocol import messages as api_table
from tests.cli.test_cli_reset_fence import kgroup_env, start_reset, wait_for
from tests.unit.wire.fakecoordinator import CoordinatorCluster

DELAY_S = 0.5


def make_cluster(count: int) -> CoordinatorCluster:
    return CoordinatorCluster(
        initial_delay_s=DELAY_S,
        topics={"orders": 2},
        offsets={f"g{i:03d}": {("orders", 0): 2, ("orders", 1): 2} for i in range(count)},
    )


@pytest.fixture()
def fifty() -> Iterator[CoordinatorCluster]:
    made = make_cluster(50)
    yield made
    made.close()


def test_fifty_groups_take_far_less_than_fifty_join_delays(fifty, tmp_path) -> None:
    groups = sorted(fifty.offsets)
    started = time.monotonic()
    process = start_reset(fifty, tmp_path, *groups)
    stdout, stderr = process.communicate(timeout=120)
    elapsed = time.monotonic() - started
    assert process.returncode == 0, stderr
    outcomes = json.loads(stdout)["groups"]
    # the groups' order, each fenced, backed up and verified
    assert [o["group"] for o in outcomes] == groups
    assert all(o["status"] == "committed" and o["fenced"] for o in outcomes), outcomes
    assert all(o["verified_partitions"] == 2 and Path(o["backup"]).is_file() for o in outcomes)
    assert sorted(g for g, _member, _offsets in fifty.member_commits) == groups
    assert fifty.admin_commits == []
    assert all(fifty.committed(g) == {("orders", 0): 9, ("orders", 1): 9} for g in groups)
    # Every group waited its join delay, and the fences overlapped: from the first JoinGroup
    # received to the last answered (kgroup's own start-up and planning left out, which a
    # loaded machine stretches) is far below the 50 delays a serial run needs.
    joined = [when for _g, _member, when in fifty.joins]
    span = max(joined) - min(when for _g, when in fifty.join_requests)
    assert len(joined) == 50 and span < 50 * DELAY_S / 4, f"joins spanned {span:.1f} s"
    assert elapsed < 50 * DELAY_S, f"50 groups took {elapsed:.1f} s"
    print(f"50 groups, join delay {DELAY_S} s: {elapsed:.1f} s, joins over {span:.1f} s")


def test_a_slow_group_does_not_hold_the_others_back(tmp_path) -> None:
    cluster = make_cluster(8)
    try:
        slow = cluster.pause(api_table.JOIN_GROUP, group="g003")
        groups = sorted(cluster.offsets)
        process = start_reset(cluster, tmp_path, *groups)
        wait_for(lambda: len(cluster.member_commits) == 7, timeout_s=30)
        assert "g003" not in {g for g, _m, _o in cluster.member_commits}
        assert slow.reached.is_set() and process.poll() is None
        slow.release.set()
        stdout, stderr = process.communicate(timeout=60)
        assert process.returncode == 0, stderr
        statuses = [(o["group"], o["status"]) for o in json.loads(stdout)["groups"]]
        assert statuses == [(g, "committed") for g in groups]
    finally:
        cluster.close()


def test_a_slow_read_back_does_not_hold_the_others_back(tmp_path) -> None:
    """Each fence reads on its own connection: one group's unanswered read-back (held after its
    commit) leaves the other groups of the same coordinator free to finish."""
    cluster = make_cluster(6)
    try:
        committed = lambda: "g002" in {g for g, _m, _o in cluster.member_commits}  # noqa: E731
        slow = cluster.pause(api_table.OFFSET_FETCH, when=committed, group="g002")
        groups = sorted(cluster.offsets)
        process = start_reset(cluster, tmp_path, *groups)
        assert slow.reached.wait(30), process.communicate(timeout=5)
        others = {g for g in groups if g != "g002"}
        wait_for(lambda: {g for g, _m in cluster.leaves} >= others, timeout_s=30)
        assert process.poll() is None
        slow.release.set()
        stdout, stderr = process.communicate(timeout=60)
        assert process.returncode == 0, stderr
        statuses = [(o["group"], o["status"]) for o in json.loads(stdout)["groups"]]
        assert statuses == [(g, "committed") for g in groups]
    finally:
        cluster.close()


def test_a_refused_group_is_reported_and_the_others_commit(tmp_path) -> None:
    cluster = make_cluster(4)
    try:
        cluster.add_stray_member("g002", "app-1-x", "billing-app", session_s=60)
        groups = sorted(cluster.offsets)
        process = start_reset(cluster, tmp_path, *groups)
        stdout, stderr = process.communicate(timeout=60)
        statuses = [(o["group"], o["status"]) for o in json.loads(stdout)["groups"]]
        assert statuses == [
            ("g000", "committed"),
            ("g001", "committed"),
            ("g002", "refused"),
            ("g003", "committed"),
        ]
        assert process.returncode == 4, stderr
        assert "1 of 4 group(s) not reset: g002: group g002 has 1 active member(s)" in stderr
        assert cluster.committed("g002") == {("orders", 0): 2, ("orders", 1): 2}
    finally:
        cluster.close()


def test_env_helper_keeps_state_private(tmp_path) -> None:
    assert kgroup_env(tmp_path)["XDG_STATE_HOME"].startswith(str(tmp_path))
