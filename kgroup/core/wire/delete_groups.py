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
A caller's `DeletionProgress` keeps what an interrupted call had done (groups asked, answers).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from kgroup.core.errors import KgroupError, SafetyRefusal
from kgroup.core.models import BrokerNode
from kgroup.core.wire.delete_topics import DeletionProgress
from kgroup.core.wire.error_codes import NON_EMPTY_GROUP
from kgroup.core.wire.kafka_errors import Retry, tagged
from kgroup.core.wire.typed_calls import by_group, exchange, needs, per_coordinator
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


_MISSING = needs(
    DELETE_GROUPS,
    None,
    "delete groups",
    "DeleteGroups came with Kafka 1.1; check the broker's version",
)


def delete_groups(
    client: WireClient, group_ids: Iterable[str], progress: DeletionProgress | None = None
) -> dict[str, KgroupError | None]:
    """Delete groups: one DeleteGroups per coordinator, retried per group as Kafka's admin
    client does. Group -> None (deleted) or its error (SafetyRefusal for NON_EMPTY_GROUP).
    `progress`, when given, follows the requests as they go (the groups of a request sent and
    not answered yet are `asked`; a group answered for good is in `answered`)."""
    from kgroup.protocol.generated.wire import delete_groups_request as dg_req

    if progress is None:
        progress = DeletionProgress()

    def answer(
        connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, bool | KgroupError | Retry]:
        request = dg_req.DeleteGroupsRequest(tuple(groups))
        progress.asked.update(groups)
        deleted = exchange(connection, DELETE_GROUPS, request)
        refusals = {NON_EMPTY_GROUP: non_empty_refusal}
        found = by_group(deleted.results, "delete", lambda _: True, refusals, "DeleteGroups")
        for group_id, result in found.items():
            progress.asked.discard(group_id)  # answered: deleted, or not (yet)
            if not isinstance(result, Retry):
                progress.answered[group_id] = result if isinstance(result, KgroupError) else None
        return found

    results = per_coordinator(client, group_ids, _MISSING, answer)
    out = {g: (r if isinstance(r, KgroupError) else None) for g, r in results.items()}
    progress.asked.clear()
    progress.answered.update(out)
    return out
