"""librdkafka's admin results as kgroup's models: group states and types by Kafka's names,
topic ids as Kafka prints them, brokers, group descriptions. Pure: no I/O (the objects come from
confluent_kafka, which is not imported here).
"""

from __future__ import annotations

from typing import Any

from kgroup.core.models import BrokerNode, GroupDescription, MemberDescription, TopicPartition

# Kafka's state names (ConsumerGroupState / GroupState) for librdkafka's enum names.
STATE_NAMES = {
    "UNKNOWN": "Unknown",
    "PREPARING_REBALANCING": "PreparingRebalance",
    "PREPARING_REBALANCE": "PreparingRebalance",
    "COMPLETING_REBALANCING": "CompletingRebalance",
    "COMPLETING_REBALANCE": "CompletingRebalance",
    "STABLE": "Stable",
    "DEAD": "Dead",
    "EMPTY": "Empty",
    "ASSIGNING": "Assigning",
    "RECONCILING": "Reconciling",
}


def state_name(state: Any) -> str:
    """Kafka's name for a librdkafka group state enum (or string)."""
    name = getattr(state, "name", str(state))
    return STATE_NAMES.get(name.upper(), name)


def type_name(group_type: Any) -> str:
    """`classic`, `consumer`, `share`, `streams` or `unknown`."""
    name = getattr(group_type, "name", str(group_type))
    return name.lower()


def topic_id_of(uuid: Any) -> str | None:
    """Kafka's printed form of a topic id: unpadded base64url of the 16 bytes."""
    if uuid is None:
        return None
    import base64

    raw = uuid.get_most_significant_bits().to_bytes(
        8, "big", signed=True
    ) + uuid.get_least_significant_bits().to_bytes(8, "big", signed=True)
    if raw == bytes(16):
        return None
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _node(node: Any) -> BrokerNode | None:
    if node is None:
        return None
    return BrokerNode(id=node.id, host=node.host, port=node.port, rack=getattr(node, "rack", None))


def group_description(described: Any) -> GroupDescription:
    """librdkafka's ConsumerGroupDescription as a GroupDescription."""
    members = []
    for member in described.members or []:
        assignment = getattr(member, "assignment", None)
        owned = tuple(
            sorted(
                TopicPartition(tp.topic, tp.partition)
                for tp in (assignment.topic_partitions if assignment else []) or []
            )
        )
        target = getattr(member, "target_assignment", None)
        target_tps = (
            tuple(
                sorted(
                    TopicPartition(tp.topic, tp.partition) for tp in target.topic_partitions or []
                )
            )
            if target is not None
            else None
        )
        members.append(
            MemberDescription(
                member_id=member.member_id,
                group_instance_id=getattr(member, "group_instance_id", None) or None,
                client_id=member.client_id or None,
                host=member.host or None,
                assignment=owned,
                target_assignment=target_tps,
            )
        )
    return GroupDescription(
        group_id=described.group_id,
        state=state_name(described.state),
        type=type_name(getattr(described, "type", "classic")),
        protocol_type=None if described.is_simple_consumer_group else "consumer",
        assignor=described.partition_assignor or None,
        coordinator=_node(described.coordinator),
        members=tuple(sorted(members, key=lambda m: m.member_id)),
    )
