"""Kafka's partition assignors in pure Python, exact to Kafka's Java code.

Client side: `range`, `roundrobin`, `sticky`, `cooperative-sticky`
(org.apache.kafka.clients.consumer, KIP-881 rack awareness). Server side (KIP-848):
`uniform`, `server-range` (org.apache.kafka.coordinator.group.assignor). Each takes a
`GroupInput` and returns member id -> partitions.
"""

from __future__ import annotations

from collections.abc import Callable

from kgroup.assign.model import Assignment, GroupInput

CLIENT_STRATEGIES = ("range", "roundrobin", "sticky", "cooperative-sticky")
SERVER_STRATEGIES = ("uniform", "server-range")
STRATEGIES = CLIENT_STRATEGIES + SERVER_STRATEGIES


def get_assignor(name: str) -> Callable[[GroupInput], Assignment]:
    """The assign function for a strategy name (imports only that engine)."""
    if name == "range":
        from kgroup.assign.range import assign_range

        return assign_range
    if name == "roundrobin":
        from kgroup.assign.roundrobin import assign_roundrobin

        return assign_roundrobin
    if name == "sticky":
        from kgroup.assign.sticky import assign_sticky

        return assign_sticky
    if name == "cooperative-sticky":
        from kgroup.assign.sticky import assign_cooperative_sticky

        return assign_cooperative_sticky
    if name == "uniform":
        from kgroup.assign.uniform import assign_uniform

        return assign_uniform
    if name == "server-range":
        from kgroup.assign.server_range import assign_server_range

        return assign_server_range
    raise KeyError(name)
