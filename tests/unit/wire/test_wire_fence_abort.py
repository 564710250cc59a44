"""A fence aborted (Ctrl-C, SIGTERM) while it backs off between two JoinGroup tries does not
join again: it would be a member nobody leaves once kgroup exits (scripted cluster, a fake)."""

from __future__ import annotations

import threading

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import KgroupError
from kgroup.core.wire.client import WireClient
from kgroup.core.wire.error_codes import COORDINATOR_LOAD_IN_PROGRESS
from kgroup.core.wire.fence import FenceCancelled, GroupFence
from kgroup.protocol import messages as api_table
from tests.unit.wire.fakecluster import FakeCluster


def test_a_fence_aborted_during_its_join_backoff_does_not_join_again() -> None:
    cluster = FakeCluster(topics={"t": 1}, offsets={"g": {("t", 0): 1}}, coordinators={"g": 2})
    cluster.script[(api_table.JOIN_GROUP.key, "g")] = [COORDINATOR_LOAD_IN_PROGRESS]
    try:
        with WireClient(ClusterConfig(cluster.address, timeout_s=10)) as client:
            client.retry_backoff_s = 1.0  # the first backoff: about 1 s
            fence = GroupFence(client, "g")
            outcome: list[object] = []
            worker = threading.Thread(target=lambda: outcome.append(_acquire(fence)), daemon=True)
            worker.start()
            for _ in range(100):  # until the scripted answer was used: now backing off
                if not cluster.script[(api_table.JOIN_GROUP.key, "g")]:
                    break
                threading.Event().wait(0.02)
            fence.abort()
            worker.join(10)
    finally:
        cluster.close()
    assert not worker.is_alive()
    assert isinstance(outcome[0], FenceCancelled), outcome  # not FenceUnavailable: unfenced
    held = cluster.memberships.get("g")
    assert held is None or not held.members


def _acquire(fence: GroupFence) -> object:
    try:
        return fence.acquire()
    except KgroupError as exc:
        return exc
