"""`kgroup delete` against a live multi-broker cluster, through a real `kgroup` process.

DeleteGroups is sent by kgroup's own client for every group type and retried as Kafka's
DeleteConsumerGroupsHandler does (kgroup.core.wire.retry_policy): NOT_COORDINATOR finds the
coordinator again, COORDINATOR_LOAD_IN_PROGRESS retries in place, a dead coordinator's groups are
retried once Kafka moved them. librdkafka (2.16), which deleted groups before, returned those
codes as the group's error (row `failed`, exit 1). A group that got a member meanwhile is
NON_EMPTY_GROUP: row `refused`, exit 4, nothing deleted. The cluster is scripted
(tests/unit/wire/fakecluster.py): tansu has one broker and never moves a coordinator.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest

from kgroup.core.wire.error_codes import (
    COORDINATOR_LOAD_IN_PROGRESS,
    COORDINATOR_NOT_AVAILABLE,
    NON_EMPTY_GROUP,
    NOT_COORDINATOR,
)
from kgroup.protocol.messages.share_groups import DELETE_GROUPS
from tests.helpers import Result, run_kgroup
from tests.unit.wire.fakecluster import FakeCluster

GROUPS = {"a1": 1, "b1": 2, "c1": 3}
START = {("orders", 0): 3, ("orders", 1): 4}
DELETE = DELETE_GROUPS.key


@pytest.fixture()
def make() -> Iterator[Callable[..., FakeCluster]]:
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


def delete(cluster: FakeCluster, tmp_path, *groups: str, timeout: str = "10", expect=0) -> Result:
    result = run_kgroup(
        "-b", cluster.address, "--timeout", timeout, "delete", *groups, "-o", "json",
        env={"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path)},
        expect=expect,
    )  # fmt: skip
    assert "Traceback" not in result.stderr
    return result


def rows(result: Result) -> dict[str, dict]:
    return {r["group"]: r for r in json.loads(result.stdout)["groups"]}


def statuses(result: Result) -> dict[str, str]:
    return {g: r["status"] for g, r in rows(result).items()}


def delete_requests(cluster: FakeCluster) -> dict[int, int]:
    """Broker id -> DeleteGroups requests it received."""
    return {
        node.node_id: sum(1 for api, _ in node.received if api == DELETE) for node in cluster.nodes
    }


def test_delete_groups_on_three_coordinators(make, tmp_path) -> None:
    cluster = make()
    result = delete(cluster, tmp_path, "a1", "b1", "c1")
    assert statuses(result) == {"a1": "deleted", "b1": "deleted", "c1": "deleted"}
    assert sorted(cluster.deleted) == ["a1", "b1", "c1"]
    assert cluster.offsets == {}
    assert delete_requests(cluster) == {1: 1, 2: 1, 3: 1}  # one request per coordinator


@pytest.mark.parametrize("meanwhile", [NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE])
def test_delete_follows_a_coordinator_that_moved(make, tmp_path, meanwhile: int) -> None:
    cluster = make()
    # b1's coordinator (broker 2) gives the group up when DeleteGroups reaches it: it answers
    # NOT_COORDINATOR for 0.8 s, then FindCoordinator names broker 3
    cluster.move_on[(DELETE, "b1")] = (3, 0.8, meanwhile)
    result = delete(cluster, tmp_path, "a1", "b1")
    assert statuses(result) == {"a1": "deleted", "b1": "deleted"}
    assert sorted(cluster.deleted) == ["a1", "b1"]
    sent = delete_requests(cluster)
    assert sent[2] >= 2 and sent[3] == 1  # retried on 2, then deleted by its new coordinator
    assert result.seconds >= 0.8


def test_delete_retries_a_coordinator_loading_the_group(make, tmp_path) -> None:
    cluster = make()
    loading = COORDINATOR_LOAD_IN_PROGRESS
    cluster.script[(DELETE, "c1")] = [loading, loading, loading]
    result = delete(cluster, tmp_path, "c1")
    assert statuses(result) == {"c1": "deleted"}
    assert cluster.deleted == ["c1"]
    assert delete_requests(cluster)[3] == 4  # in place: three times loading, then deleted


def test_delete_waits_for_the_groups_of_a_dead_coordinator_to_move(make, tmp_path) -> None:
    cluster = make(move_after_s=1.0)
    cluster.kill_on[(DELETE, "b1")] = (3, 0)  # broker 2 dies on the request, unanswered
    result = delete(cluster, tmp_path, "a1", "b1")
    assert statuses(result) == {"a1": "deleted", "b1": "deleted"}
    assert sorted(cluster.deleted) == ["a1", "b1"]
    assert delete_requests(cluster)[3] == 1  # b1 deleted by the broker it moved to
    assert result.seconds >= 1.0


def test_a_coordinator_loading_until_the_timeout_fails_that_group_only(make, tmp_path) -> None:
    cluster = make()
    cluster.script[(DELETE, "b1")] = [COORDINATOR_LOAD_IN_PROGRESS] * 1000
    # still retrying at --timeout: timed out, and the only failure: exit 6 (README exit codes)
    result = delete(cluster, tmp_path, "a1", "b1", timeout="2", expect=6)
    got = rows(result)
    assert got["a1"]["status"] == "deleted"
    assert got["b1"]["status"] == "failed"
    assert "COORDINATOR_LOAD_IN_PROGRESS" in got["b1"]["message"]
    assert "still failing after" in got["b1"]["message"]
    assert "b1" in cluster.offsets


def test_a_group_that_got_a_member_meanwhile_is_refused_and_kept(make, tmp_path) -> None:
    cluster = make()
    # empty when kgroup checked it; Kafka answers NON_EMPTY_GROUP to DeleteGroups
    cluster.script[(DELETE, "b1")] = [NON_EMPTY_GROUP]
    result = delete(cluster, tmp_path, "b1", expect=4)
    (row,) = rows(result).values()
    assert row["status"] == "refused"
    assert "NON_EMPTY_GROUP" in row["message"] and "nothing was deleted" in row["message"]
    assert "b1" in cluster.offsets and cluster.deleted == []
    assert result.stderr.startswith("kgroup: error: 1 of 1 not deleted")


def test_refused_and_deleted_groups_together_exit_4(make, tmp_path) -> None:
    cluster = make()
    cluster.script[(DELETE, "c1")] = [NON_EMPTY_GROUP]
    result = delete(cluster, tmp_path, "a1", "c1", expect=4)
    assert statuses(result) == {"a1": "deleted", "c1": "refused"}
    assert cluster.deleted == ["a1"]


def test_an_unknown_group_is_not_found(make, tmp_path) -> None:
    cluster = make()
    result = delete(cluster, tmp_path, "a1", "ghost", expect=3)
    assert statuses(result) == {"a1": "deleted", "ghost": "not_found"}


def test_a_refused_and_an_unknown_group_exit_4(make, tmp_path) -> None:
    # README's exit codes: groups failing differently exit 4 when all are refusals (3 and 4)
    cluster = make()
    cluster.script[(DELETE, "c1")] = [NON_EMPTY_GROUP]
    result = delete(cluster, tmp_path, "c1", "ghost", expect=4)
    assert statuses(result) == {"c1": "refused", "ghost": "not_found"}


# --- exit 6 when every failure is the cluster not answering in time (README exit codes) -------


def test_a_coordinator_dead_until_the_timeout_exits_6(make, tmp_path) -> None:
    cluster = make()
    port = cluster.node(2).port
    cluster.kill(2)  # never moved within --timeout
    result = delete(cluster, tmp_path, "a1", "b1", timeout="2", expect=6)
    got = rows(result)
    assert got["a1"]["status"] == "deleted"
    assert got["b1"]["status"] == "failed"
    assert f"connection refused by 127.0.0.1:{port}" in got["b1"]["message"]
    assert "b1" in cluster.offsets and cluster.deleted == ["a1"]
    assert result.stderr.startswith("kgroup: error: 1 of 2 not deleted: b1:")
    assert 2 <= result.seconds < 10


def test_every_group_on_a_dead_coordinator_exits_6(make, tmp_path) -> None:
    cluster = make()
    cluster.kill(2)
    result = delete(cluster, tmp_path, "b1", timeout="1.5", expect=6)
    assert statuses(result) == {"b1": "failed"}
    assert cluster.deleted == []


def test_an_unreachable_and_an_unknown_group_exit_1(make, tmp_path) -> None:
    # README: 6 when every failure is unreachable or timed out, 1 when mixed
    cluster = make()
    cluster.kill(2)
    result = delete(cluster, tmp_path, "b1", "ghost", timeout="1.5", expect=1)
    assert statuses(result) == {"b1": "failed", "ghost": "not_found"}


def test_an_unreachable_and_a_refused_group_exit_1(make, tmp_path) -> None:
    cluster = make()
    cluster.kill(2)
    cluster.script[(DELETE, "c1")] = [NON_EMPTY_GROUP]
    result = delete(cluster, tmp_path, "b1", "c1", timeout="1.5", expect=1)
    assert statuses(result) == {"b1": "failed", "c1": "refused"}
