"""Share groups (KIP-932) in the commands: which groups are share groups, and deleting their
start offsets. The requests are `kgroup.core.wire.share_groups`'s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgroup.core.admin import GroupAdmin
from kgroup.core.errors import KafkaOperationError, KgroupError, NotFoundError, UsageError


def share_groups_among(admin: GroupAdmin, group_ids: Sequence[str]) -> list[str]:
    """The share groups among `group_ids` (types from the last listing, else described)."""
    unknown = [g for g in group_ids if not admin.knows_type(g)]
    if unknown:
        admin.describe_groups(unknown)
    return [g for g in group_ids if admin.is_share_group(g)]


def delete_share_offsets(
    admin: GroupAdmin, group_id: str, selections: Sequence[Any], known: Sequence[str]
) -> list[dict[str, Any]]:
    """`delete-offsets` for a share group: DeleteShareGroupOffsets drops a topic's state for the
    whole topic (the request names topics, not partitions), so a partition list is refused.
    One row per partition the group held state for."""
    from kgroup.core.wire.share_groups import delete_share_group_offsets, share_group_offsets

    partial = [s for s in selections if s.partitions is not None]
    if partial:
        raise UsageError(
            f"{group_id} is a share group: Kafka deletes its start offsets per topic "
            f"(DeleteShareGroupOffsets), not per partition ({partial[0].topic}:...)",
            hint=f"give --topic {partial[0].topic}",
        )
    topics = list(dict.fromkeys(s.topic for s in selections))
    unknown = [t for t in topics if t not in known]
    if unknown:
        raise NotFoundError(
            f"cannot delete start offsets of topic {unknown[0]}: the cluster has no such topic",
            hint="check the topic list",
        )
    wire = admin.wire
    if wire is None:
        raise KafkaOperationError(
            "share groups need kgroup's own Kafka client, which this configuration cannot use"
        )
    held = share_group_offsets(wire, [group_id])[group_id]
    if isinstance(held, KgroupError):
        raise held
    outcome = delete_share_group_offsets(wire, group_id, topics)
    rows = []
    for topic in topics:
        error = outcome.get(topic)
        partitions = sorted(tp.partition for tp in held if tp.topic == topic)
        for partition in partitions or [None]:
            rows.append(
                {
                    "group": group_id,
                    "topic": topic,
                    "partition": partition,
                    "status": "deleted" if error is None else _status(error),
                    "message": None if error is None else error.one_line(),
                }
            )
    return rows


def _status(error: KgroupError) -> str:
    from kgroup.core.errors import SafetyRefusal

    if isinstance(error, SafetyRefusal):
        return "refused"
    if isinstance(error, NotFoundError):
        return "not_found"
    return "failed"
