"""Kafka's partition assignors in pure Python, exact to Kafka's Java code.

Client side: `range`, `roundrobin`, `sticky`, `cooperative-sticky`
(org.apache.kafka.clients.consumer, KIP-881 rack awareness). Server side (KIP-848):
`uniform`, `server-range` (org.apache.kafka.coordinator.group.assignor). Each takes a
`GroupInput` and returns member id -> partitions.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from kgroup.assign.model import Assignment, GroupInput

CLIENT_STRATEGIES = ("range", "roundrobin", "sticky", "cooperative-sticky")
SERVER_STRATEGIES = ("uniform", "server-range")
STRATEGIES = CLIENT_STRATEGIES + SERVER_STRATEGIES

_ASSIGNORS: dict[str, tuple[str, str]] = {
    "range": ("kgroup.assign.range", "assign_range"),
    "roundrobin": ("kgroup.assign.roundrobin", "assign_roundrobin"),
    "sticky": ("kgroup.assign.sticky", "assign_sticky"),
    "cooperative-sticky": ("kgroup.assign.sticky", "assign_cooperative_sticky"),
    "uniform": ("kgroup.assign.uniform", "assign_uniform"),
    "server-range": ("kgroup.assign.server_range", "assign_server_range"),
}
"""Strategy name -> (module, function) of its assign function, imported on first use."""


def get_assignor(name: str) -> Callable[[GroupInput], Assignment]:
    """The assign function for a strategy name (imports only that engine); KeyError if unknown."""
    module, function = _ASSIGNORS[name]
    return getattr(importlib.import_module(module), function)
