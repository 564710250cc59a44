"""A live multi-broker cluster through a real `kgroup` process (issue #23 item 2): coordinators
that move, answer NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS for a while, or die.

Kafka's clients retry those (kgroup.core.wire.retry_policy) until their timeout; groups whose
coordinator is alive are answered at once, the others after Kafka moved them. The cluster is
scripted (tests/unit/wire/fakecluster.py): tansu has one broker and never moves a coordinator.
Each scenario failed before the retry policy (exit 1 on NOT_COORDINATOR after one retry, exit 6
on the first refused connection).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator

import pytest

from kgroup.core.wire.error_codes import (
    COORDINATOR_LOAD_IN_PROGRESS,
    COORDINATOR_NOT_AVAILABLE,
    GROUP_AUTHORIZATION_FAILED,
    NOT_COORDINATOR,
)
from kgroup.protocol import messages as api_table
from tests.helpers import Result, run_kgroup
from tests.unit.wire.fakecluster import CheckFakeCluster, FakeCluster

GROUPS = {"a1": 1, "b1": 2, "b2": 2, "c1": 3}
START = {("orders", 0): 3, ("orders", 1): 4}
LOADING = COORDINATOR_LOAD_IN_PROGRESS


@pytest.fixture()
def make(tmp_path) -> Iterator[Callable[..., FakeCluster]]:
    made: list[FakeCluster] = []

    def build(**kw: object) -> FakeCluster:
        cluster = FakeCluster(
            topics={"orders": 2},
            offsets={g: dict(START) for g in GROUPS},
            coordinators=dict(GROUPS),
            **kw,  # type: ignore[arg-type]
        )
        made.append(cluster)
        return cluster

    yield build
    for cluster in made:
        cluster.close()


def kgroup(cluster: FakeCluster, tmp_path, *args: str, timeout: str = "10", expect=0) -> Result:
    result = run_kgroup(
        "-b", cluster.address, "--timeout", timeout, *args,
        env={"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path)},
        expect=expect,
    )  # fmt: skip
    assert "Traceback" not in result.stderr
    return result


def described(result: Result) -> dict[str, dict]:
    return {g["group"]: g for g in json.loads(result.stdout)["groups"]}


# --- a dead broker: live coordinators answered at once, the others after the move ---------------


def test_describe_all_groups_waits_for_the_groups_of_a_dead_broker_to_move(make, tmp_path) -> None:
    cluster = make(move_after_s=1.5)
    cluster.kill(2, move_to={"b1": 3, "b2": 1})
    result = kgroup(cluster, tmp_path, "describe", "--all-groups", "-o", "json")
    groups = described(result)
    assert sorted(groups) == ["a1", "b1", "b2", "c1"]
    assert all(g["error"] is None for g in groups.values())
    assert groups["b1"]["coordinator"]["id"] == 3 and groups["b2"]["coordinator"]["id"] == 1
    assert result.seconds > 1.5  # the dead broker's groups were retried until they moved


def test_groups_of_a_coordinator_dead_until_the_timeout_get_their_own_error(make, tmp_path) -> None:
    cluster = make()
    port = cluster.node(2).port
    cluster.kill(2)  # never moved within --timeout
    result = kgroup(
        cluster, tmp_path, "describe", "a1", "b1", "c1", "-o", "json", timeout="2", expect=6
    )
    groups = described(result)
    assert groups["a1"]["error"] is None and groups["c1"]["error"] is None
    assert groups["a1"]["total_lag"] == 13
    error = groups["b1"]["error"]
    assert f"connection refused by 127.0.0.1:{port}" in error
    assert "still failing after" in error and "--timeout 2" in error
    line = result.stderr.strip()
    assert line.startswith("kgroup: error: 1 of 3 groups could not be described")
    assert 2 <= result.seconds < 10


def test_bootstrap_falls_over_to_the_next_listed_broker(make, tmp_path) -> None:
    cluster = make(move_after_s=0.8)
    cluster.kill(1, move_to={"a1": 3})  # the first broker of -b
    groups = described(kgroup(cluster, tmp_path, "describe", "--all-groups", "-o", "json"))
    assert sorted(groups) == ["a1", "b1", "b2", "c1"]
    assert all(g["error"] is None for g in groups.values())


def test_reset_waits_for_a_dead_coordinator_to_move(make, tmp_path) -> None:
    cluster = make(move_after_s=1.0)
    cluster.kill(2, move_to={"b1": 3})
    result = kgroup(
        cluster, tmp_path,
        "reset-offsets", "b1", "--all-topics", "--to-offset", "5", "--execute", "-o", "json",
    )  # fmt: skip
    (group,) = json.loads(result.stdout)["groups"]
    assert (group["status"], group["fenced"]) == ("committed", True)
    assert cluster.committed("b1") == {("orders", 0): 5, ("orders", 1): 5}


# --- NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS for a while, then a move ---------------------


def moving(cluster: FakeCluster, group: str, *apis: int, meanwhile: int = NOT_COORDINATOR):
    """`group` leaves broker 2 for broker 3 in 0.8 s; broker 3 is loading at first."""
    cluster.move(group, to=3, after_s=0.8, meanwhile=meanwhile)
    for api in apis:
        cluster.script[(api, group)] = [LOADING, LOADING]


@pytest.mark.parametrize("meanwhile", [NOT_COORDINATOR, LOADING, COORDINATOR_NOT_AVAILABLE])
def test_describe_retries_until_the_coordinator_moved(make, tmp_path, meanwhile: int) -> None:
    cluster = make()
    moving(
        cluster,
        "b1",
        api_table.DESCRIBE_GROUPS.key,
        api_table.OFFSET_FETCH.key,
        meanwhile=meanwhile,
    )
    groups = described(kgroup(cluster, tmp_path, "describe", "b1", "a1", "-o", "json"))
    assert groups["b1"]["error"] is None and groups["b1"]["coordinator"]["id"] == 3
    assert groups["b1"]["total_lag"] == 13


def test_reset_execute_retries_until_the_coordinator_moved(make, tmp_path) -> None:
    cluster = make()
    moving(
        cluster,
        "b1",
        api_table.JOIN_GROUP.key,
        api_table.DESCRIBE_GROUPS.key,
        api_table.OFFSET_FETCH.key,
    )
    result = kgroup(
        cluster, tmp_path,
        "reset-offsets", "b1", "--all-topics", "--to-offset", "6", "--execute", "-o", "json",
    )  # fmt: skip
    (group,) = json.loads(result.stdout)["groups"]
    assert (group["status"], group["fenced"]) == ("committed", True)
    assert cluster.committed("b1") == {("orders", 0): 6, ("orders", 1): 6}


@pytest.mark.parametrize("code", [NOT_COORDINATOR, LOADING, COORDINATOR_NOT_AVAILABLE])
def test_the_fence_joins_again_after_a_coordinator_error_on_join(make, tmp_path, code) -> None:
    cluster = make()
    cluster.script[(api_table.JOIN_GROUP.key, "b1")] = [code, code, code]
    result = kgroup(
        cluster, tmp_path,
        "reset-offsets", "b1", "--all-topics", "--to-offset", "7", "--execute", "-o", "json",
    )  # fmt: skip
    (group,) = json.loads(result.stdout)["groups"]
    assert (group["status"], group["fenced"]) == ("committed", True)
    assert cluster.committed("b1") == {("orders", 0): 7, ("orders", 1): 7}
    assert cluster.script[(api_table.JOIN_GROUP.key, "b1")] == []


def test_delete_offsets_retries_until_the_coordinator_moved(make, tmp_path) -> None:
    cluster = make()
    moving(cluster, "b1", api_table.OFFSET_DELETE.key, api_table.OFFSET_FETCH.key)
    result = kgroup(cluster, tmp_path, "delete-offsets", "b1", "--topic", "orders", "-o", "json")
    statuses = [p["status"] for p in json.loads(result.stdout)["partitions"]]
    assert statuses == ["deleted", "deleted"]
    assert cluster.committed("b1") == {}


def test_list_retries_a_loading_broker(make, tmp_path) -> None:
    cluster = make()
    cluster.list_script[2] = [LOADING, COORDINATOR_NOT_AVAILABLE, LOADING]
    moving(cluster, "b2")
    result = kgroup(cluster, tmp_path, "list", "-o", "json")
    listed = sorted(g["group"] for g in json.loads(result.stdout)["groups"])
    assert listed == ["a1", "b1", "b2", "c1"]


def test_list_with_a_stopped_broker_still_in_the_metadata_at_the_timeout(make, tmp_path) -> None:
    cluster = make(move_after_s=60)  # not fenced within --timeout
    port = cluster.node(2).port
    cluster.kill(2)
    result = kgroup(cluster, tmp_path, "list", timeout="1.5", expect=6)
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1
    assert f"connection refused by 127.0.0.1:{port} (broker 2, asked for its groups)" in line
    assert "still failing after" in line and "Hint: the broker may have stopped" in line


def test_a_coordinator_loading_past_the_timeout_says_so(make, tmp_path) -> None:
    cluster = make()
    cluster.move("b1", to=3, after_s=60, meanwhile=LOADING)
    # still retriable at --timeout: timed out, exit 6 (Kafka's admin client: TimeoutException)
    result = kgroup(cluster, tmp_path, "describe", "b1", "-o", "json", timeout="1.5", expect=6)
    error = described(result)["b1"]["error"]
    assert "COORDINATOR_LOAD_IN_PROGRESS" in error and "still failing after" in error
    assert "--timeout 1.5" in error
    assert result.stderr.strip() == (
        "kgroup: error: 1 of 1 groups could not be described (see their error fields): b1"
    )
    assert 1.5 <= result.seconds < 8


# --- a coordinator killed in the middle of a command ---------------------------------------------


def test_describe_survives_its_coordinator_dying_mid_request(make, tmp_path) -> None:
    cluster = make(move_after_s=0.8)
    cluster.kill_on[(api_table.OFFSET_FETCH.key, "b1")] = (3, 0)
    groups = described(kgroup(cluster, tmp_path, "describe", "b1", "c1", "-o", "json"))
    assert groups["b1"]["error"] is None and groups["b1"]["total_lag"] == 13
    assert cluster.node(2).killed


def test_describe_survives_the_partition_leader_dying_mid_request(make, tmp_path) -> None:
    """ListOffsets to a stopped leader: asked again after a metadata refresh (new leaders)."""
    cluster = make(leader_dies_on=api_table.LIST_OFFSETS.key)
    groups = described(kgroup(cluster, tmp_path, "describe", "b1", "-o", "json"))
    assert groups["b1"]["error"] is None and groups["b1"]["total_lag"] == 13
    assert cluster.node(1).killed


def test_reset_whose_coordinator_dies_on_the_commit_is_unknown_with_its_backup(
    make, tmp_path
) -> None:
    """All or nothing: the commit was never applied; kgroup cannot know, says so, names the
    backup and the broker that closed the connection (no protocol-version guess)."""
    cluster = make(move_after_s=0.5)
    cluster.kill_on[(api_table.OFFSET_COMMIT.key, "b1")] = (3, 0)
    result = kgroup(
        cluster, tmp_path,
        "reset-offsets", "b1", "--all-topics", "--to-offset", "5", "--execute", "-o", "json",
        expect=None,
    )  # fmt: skip
    assert result.code in (1, 6)
    (group,) = json.loads(result.stdout)["groups"]
    assert group["status"] == "unknown"
    assert group["backup"] and os.path.exists(group["backup"])
    assert f"broker 127.0.0.1:{cluster.node(2).port} closed the connection" in group["error"]
    assert "version" not in group["error"]
    assert cluster.committed("b1") == START  # nothing applied


def test_reset_whose_coordinator_dies_on_the_join_joins_the_new_one(make, tmp_path) -> None:
    cluster = make(move_after_s=0.5)
    cluster.kill_on[(api_table.JOIN_GROUP.key, "b1")] = (3, 0)
    result = kgroup(
        cluster, tmp_path,
        "reset-offsets", "b1", "--all-topics", "--to-offset", "5", "--execute", "-o", "json",
    )  # fmt: skip
    (group,) = json.loads(result.stdout)["groups"]
    assert (group["status"], group["fenced"]) == ("committed", True)
    assert cluster.committed("b1") == {("orders", 0): 5, ("orders", 1): 5}
    assert [c[0] for c in cluster.commits] == ["b1"]  # one commit, on the new coordinator


def test_reset_whose_coordinator_dies_after_the_commit_verifies_on_the_new_one(
    make, tmp_path
) -> None:
    """The commit landed; the coordinator dies on the read-back (the 4th OffsetFetch of the
    run: plan, preflight, compare-and-set, read-back) and the read-back is asked again where
    Kafka moved the group: committed and verified."""
    cluster = make(move_after_s=0.5)
    cluster.kill_on[(api_table.OFFSET_FETCH.key, "b1")] = (3, 3)
    result = kgroup(
        cluster, tmp_path,
        "reset-offsets", "b1", "--all-topics", "--to-offset", "5", "--execute", "-o", "json",
    )  # fmt: skip
    (group,) = json.loads(result.stdout)["groups"]
    assert (group["status"], group["verified_partitions"]) == ("committed", 2)
    assert cluster.node(2).killed and cluster.coordinator_of("b1") == 3
    assert cluster.committed("b1") == {("orders", 0): 5, ("orders", 1): 5}


@pytest.fixture()
def check_cluster(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., CheckFakeCluster]]:
    from kgroup.core.wire.log_dirs import WIRE_API

    monkeypatch.setitem(api_table.APIS, WIRE_API.key, WIRE_API)  # as tests/cli/test_cli_check.py
    made: list[CheckFakeCluster] = []

    def build(**kw: object) -> CheckFakeCluster:
        cluster = CheckFakeCluster(coordinators={"billing": 2}, **kw)  # type: ignore[arg-type]
        made.append(cluster)
        return cluster

    yield build
    for cluster in made:
        cluster.close()


def check(cluster: CheckFakeCluster, tmp_path, timeout: str = "10", expect=0) -> Result:
    return kgroup(
        cluster, tmp_path, "check", "billing", "--window", "2s", "--samples", "3", "-o", "json",
        timeout=timeout, expect=expect,
    )  # fmt: skip


def test_check_retries_until_the_coordinator_moved(check_cluster, tmp_path) -> None:
    """Every sample of the window answered: the first one once the group moved."""
    cluster = check_cluster()
    cluster.move("billing", to=3, after_s=0.5)
    (group,) = json.loads(check(cluster, tmp_path).stdout)["groups"]
    (partition,) = group["partitions"]
    assert partition["status"] in ("OK", "WARN") and group.get("error") is None
    assert partition["complete"] == 1.0 and len(partition["evidence"]["commits"]) == 3


def test_check_survives_its_coordinator_dying_mid_window(check_cluster, tmp_path) -> None:
    cluster = check_cluster(move_after_s=0.5)
    cluster.kill_on[(api_table.OFFSET_FETCH.key, "billing")] = (3, 1)  # after the first sample
    (group,) = json.loads(check(cluster, tmp_path).stdout)["groups"]
    (partition,) = group["partitions"]
    assert partition["status"] in ("OK", "WARN") and group.get("error") is None
    assert cluster.node(2).killed


def test_check_reads_the_lag_time_at_the_new_leader_after_the_leader_died(
    check_cluster, tmp_path
) -> None:
    """The lag time's Fetch (the next record a consumer would read) meets a stopped leader: the
    partition is fetched again at its new leader after a metadata refresh."""
    cluster = check_cluster(leader_dies_on=api_table.FETCH.key)
    (group,) = json.loads(check(cluster, tmp_path).stdout)["groups"]
    (partition,) = group["partitions"]
    assert group.get("error") is None and partition["lag_ms"] is not None
    assert 55_000 < partition["lag_ms"] < 70_000  # the fake's records are a minute old
    assert cluster.node(1).killed


def test_check_whose_coordinator_stays_dead_ends_in_one_line(check_cluster, tmp_path) -> None:
    cluster = check_cluster()
    cluster.kill_on[(api_table.OFFSET_FETCH.key, "billing")] = (2, 1)  # dies, never moves away
    port = cluster.node(2).port
    result = check(cluster, tmp_path, timeout="1.5", expect=6)  # unreachable only: exit 6
    (group,) = json.loads(result.stdout)["groups"]
    assert group["status"] == "ERR"
    assert (
        f"connection refused by 127.0.0.1:{port} (broker 2, the coordinator of billing"
        in (group["error"])
    )
    assert "Kafka moves its groups" in group["error"] and "version" not in group["error"]
    assert result.stderr.strip().splitlines()[-1] == (
        "kgroup: error: 1 of 1 groups could not be checked (see their error fields): billing"
    )


# --- review: one group unreadable at planning time does not stop the others ----------------------


def test_reset_plans_the_others_when_one_groups_offsets_cannot_be_read(make, tmp_path) -> None:
    """b1's coordinator stays dead past --timeout while its offsets are read for the plan: b1
    fails on its own row (exit 6, unreachable, nothing written); a1 and c1 are reset; the summary
    counts the three groups asked."""
    cluster = make(move_after_s=60)
    port = cluster.node(2).port
    cluster.kill(2)
    result = kgroup(
        cluster, tmp_path,
        "reset-offsets", "a1", "b1", "c1", "--all-topics", "--to-offset", "5", "--execute",
        "-o", "json", timeout="2", expect=6,
    )  # fmt: skip
    groups = {g["group"]: g for g in json.loads(result.stdout)["groups"]}
    assert list(groups) == ["a1", "b1", "c1"]
    assert groups["a1"]["status"] == groups["c1"]["status"] == "committed"
    assert groups["b1"]["status"] == "failed" and groups["b1"]["backup"] is None
    assert f"127.0.0.1:{port}" in groups["b1"]["error"]
    assert (
        cluster.committed("a1") == cluster.committed("c1") == {("orders", 0): 5, ("orders", 1): 5}
    )
    assert cluster.committed("b1") == START
    assert "1 of 3 group(s) not reset: b1: " in result.stderr


def test_reset_dry_run_names_the_group_whose_offsets_cannot_be_read(make, tmp_path) -> None:
    cluster = make(move_after_s=60)
    cluster.kill(2)
    result = kgroup(
        cluster, tmp_path, "reset-offsets", "a1", "b1", "--all-topics", "--to-offset", "5",
        "-o", "json", timeout="2", expect=6,
    )  # fmt: skip
    groups = {g["group"]: g for g in json.loads(result.stdout)["groups"]}
    assert list(groups) == ["a1", "b1"]
    assert groups["a1"]["error"] is None and len(groups["a1"]["partitions"]) == 2
    assert groups["b1"]["partitions"] == [] and "connection refused" in groups["b1"]["error"]
    assert "b1: not planned: " in result.stderr
    assert "1 of 2 group(s) could not be planned" in result.stderr


def test_describe_exits_1_when_an_unreachable_group_comes_with_another_failure(
    make, tmp_path
) -> None:
    """Exit 6 only when every failed group was unreachable or timed out; mixed with another
    failure (here an ACL refusing c1) it is 1."""
    cluster = make(move_after_s=60)
    cluster.kill(2)
    cluster.script[(api_table.DESCRIBE_GROUPS.key, "c1")] = [GROUP_AUTHORIZATION_FAILED] * 50
    cluster.script[(api_table.OFFSET_FETCH.key, "c1")] = [GROUP_AUTHORIZATION_FAILED] * 50
    result = kgroup(
        cluster, tmp_path, "describe", "a1", "b1", "c1", "-o", "json", timeout="1.5", expect=1
    )
    groups = described(result)
    assert groups["a1"]["error"] is None
    assert groups["b1"]["error"] and groups["c1"]["error"]
    assert "2 of 3 groups could not be described" in result.stderr
