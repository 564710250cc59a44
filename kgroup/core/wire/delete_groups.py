"""DeleteGroups (42) over the wire: delete groups of every type, one request per coordinator.

`kgroup delete` sends it for classic, consumer (KIP-848), share (KIP-932) and streams (KIP-1071)
groups alike: Kafka's coordinator deletes a group of any type (GroupCoordinatorService.
deleteGroups), with its committed offsets (and a share group's start offsets). Sent through the
wire client's coordinator plumbing (`WireClient._per_coordinator`), so a coordinator that moved
(NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE), is loading (COORDINATOR_LOAD_IN_PROGRESS) or died
is retried as Kafka's DeleteConsumerGroupsHandler does (`retry_policy`, rule `DeleteGroups`),
until --timeout. librdkafka (2.16) returns those codes as the group's error instead.

A group with members is NON_EMPTY_GROUP (GroupMetadataManager.validateDeleteGroup): a
SafetyRefusal, nothing deleted. An unknown group is GROUP_ID_NOT_FOUND (NotFoundError).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from kgroup.core.errors import KgroupError, SafetyRefusal
from kgroup.core.models import BrokerNode
from kgroup.core.wire import messages as m
from kgroup.core.wire.frames import translated
from kgroup.core.wire.kafka_errors import (
    Retry,
    coordinator_failure,
    group_error,
    tagged,
    unsupported_api,
)
from kgroup.protocol import dicts
from kgroup.protocol.messages.share_groups import DELETE_GROUPS

if TYPE_CHECKING:
    from kgroup.core.wire.client import WireClient
    from kgroup.core.wire.connection import BrokerConnection


def non_empty_refusal(group_id: str) -> KgroupError:
    """NON_EMPTY_GROUP: the group has members, Kafka deleted nothing."""
    return tagged(
        SafetyRefusal(
            f"group {group_id} has active members: Kafka deletes a group only while it is "
            "empty (NON_EMPTY_GROUP); nothing was deleted",
            hint="stop the group's consumers first, then delete it again",
        ),
        "NON_EMPTY_GROUP",
    )


def _missing_api(connection: BrokerConnection) -> KgroupError | None:
    if connection.version_for(DELETE_GROUPS) is not None:
        return None
    versions = ",".join(f"v{v}" for v in DELETE_GROUPS.versions)
    return unsupported_api(
        f"broker {connection.address} does not offer DeleteGroups {versions}, so kgroup "
        "cannot delete groups",
        hint="DeleteGroups came with Kafka 1.1; check the broker's version",
    )


def _result(result: dict[str, Any]) -> bool | KgroupError | Retry:
    code = result["error_code"]
    group_id = result["group_id"]
    if code == m.NONE:
        return True
    if code == m.NON_EMPTY_GROUP:
        return non_empty_refusal(group_id)
    error = group_error(code, group_id, "delete", result.get("error_message"))
    return coordinator_failure(code, error, "DeleteGroups")


def delete_groups(client: WireClient, group_ids: Iterable[str]) -> dict[str, KgroupError | None]:
    """Delete groups: one DeleteGroups per coordinator, retried per group as Kafka's admin
    client does. Group -> None (deleted) or its error (SafetyRefusal for NON_EMPTY_GROUP)."""
    wanted = list(dict.fromkeys(group_ids))
    if not wanted:
        return {}

    def work(
        connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, bool | KgroupError | Retry]:
        missing = _missing_api(connection)
        if missing is not None:
            return dict.fromkeys(groups, missing)
        version = connection.version_for(DELETE_GROUPS)
        assert version is not None
        body = connection.call(
            DELETE_GROUPS,
            version,
            dicts.encode(DELETE_GROUPS.request, version, {"groups_names": groups}),
        )
        answer = translated(dicts.decode)(DELETE_GROUPS.response, version, body, trailing="ignore")
        return {result["group_id"]: _result(result) for result in answer["results"]}

    results, _ = client._per_coordinator(wanted, work)
    return {g: (r if isinstance(r, KgroupError) else None) for g, r in results.items()}
