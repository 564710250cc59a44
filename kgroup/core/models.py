"""Frozen data shared by the core, the engines and the renderers: one model per concept.

Pure dataclasses with no dependencies, so engines may import them.

The models a fleet makes one of per group or partition (brokers, listings, members,
descriptions, committed offsets, watermarks) write their own `__init__` (`init=False`): it fills
the instance dict, where the frozen dataclass's sets each field through `object.__setattr__`
(~3x the cost; 10,000 groups a fleet, issue #29), and the class is made without compiling one.
Equality, hashing, `repr`, `dataclasses.replace` and immutability stay the dataclass's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any


@dataclass(frozen=True, order=True, slots=True)
class TopicPartition:
    """A partition of a topic; orders by (topic, partition)."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}:{self.partition}"


#: The one order of topic-partitions, `(topic, number)`, as a sort key for anything with
#: `topic` and `partition` (TopicPartition, describe's rows, check's windows): made and
#: compared in C (an attrgetter, no Python frame; TopicPartition's own `<` runs in Python),
#: for the 100,000 partitions of a fleet sorted twice a group.
tp_order: Callable[[Any], tuple[str, int]] = attrgetter("topic", "partition")


@dataclass(frozen=True, init=False)
class BrokerNode:
    """A broker as the cluster advertises it."""

    id: int
    host: str
    port: int
    rack: str | None = None

    def __init__(self, id: int, host: str, port: int, rack: str | None = None) -> None:
        d = self.__dict__
        d["id"], d["host"], d["port"], d["rack"] = id, host, port, rack

    def __str__(self) -> str:
        return f"{self.host}:{self.port} (id: {self.id})"


@dataclass(frozen=True, init=False)
class GroupListing:
    """One group as ListGroups reports it."""

    group_id: str
    state: str
    type: str
    protocol_type: str | None = None

    def __init__(
        self, group_id: str, state: str, type: str, protocol_type: str | None = None
    ) -> None:
        d = self.__dict__
        d["group_id"], d["state"], d["type"] = group_id, state, type
        d["protocol_type"] = protocol_type


@dataclass(frozen=True, init=False)
class MemberDescription:
    """A member of a group; fields a broker does not return are None."""

    member_id: str
    group_instance_id: str | None = None
    client_id: str | None = None
    host: str | None = None
    assignment: tuple[TopicPartition, ...] = ()
    target_assignment: tuple[TopicPartition, ...] | None = None
    subscription: tuple[str, ...] | None = None
    rack: str | None = None
    raw_metadata: bytes | None = None
    raw_assignment: bytes | None = None
    member_epoch: int | None = None  # KIP-848 consumer groups
    subscribed_topic_regex: str | None = None  # KIP-848: resolved by the coordinator
    member_type: str | None = None  # KIP-1099: "classic" or "consumer"; None when not reported
    tasks: str | None = None  # KIP-1071 streams groups: `0:0,1;1:2` (subtopology:partitions)

    def __init__(
        self,
        member_id: str,
        group_instance_id: str | None = None,
        client_id: str | None = None,
        host: str | None = None,
        assignment: tuple[TopicPartition, ...] = (),
        target_assignment: tuple[TopicPartition, ...] | None = None,
        subscription: tuple[str, ...] | None = None,
        rack: str | None = None,
        raw_metadata: bytes | None = None,
        raw_assignment: bytes | None = None,
        member_epoch: int | None = None,
        subscribed_topic_regex: str | None = None,
        member_type: str | None = None,
        tasks: str | None = None,
    ) -> None:
        d = self.__dict__
        d["member_id"] = member_id
        d["group_instance_id"] = group_instance_id
        d["client_id"] = client_id
        d["host"] = host
        d["assignment"] = assignment
        d["target_assignment"] = target_assignment
        d["subscription"] = subscription
        d["rack"] = rack
        d["raw_metadata"] = raw_metadata
        d["raw_assignment"] = raw_assignment
        d["member_epoch"] = member_epoch
        d["subscribed_topic_regex"] = subscribed_topic_regex
        d["member_type"] = member_type
        d["tasks"] = tasks


@dataclass(frozen=True, init=False)
class GroupDescription:
    """A described group. `state` uses Kafka's names (Stable, Empty, Dead, ...)."""

    group_id: str
    state: str
    type: str = "classic"
    protocol_type: str | None = None
    assignor: str | None = None
    coordinator: BrokerNode | None = None
    members: tuple[MemberDescription, ...] = ()
    error: str | None = None
    error_code: str | None = None
    group_epoch: int | None = None  # KIP-848 consumer groups
    assignment_epoch: int | None = None
    topology_epoch: int | None = None  # KIP-1071 streams groups
    unreachable: bool = False  # the error is the cluster not answering in time (errors.timed_out)

    def __init__(
        self,
        group_id: str,
        state: str,
        type: str = "classic",
        protocol_type: str | None = None,
        assignor: str | None = None,
        coordinator: BrokerNode | None = None,
        members: tuple[MemberDescription, ...] = (),
        error: str | None = None,
        error_code: str | None = None,
        group_epoch: int | None = None,
        assignment_epoch: int | None = None,
        topology_epoch: int | None = None,
        unreachable: bool = False,
    ) -> None:
        d = self.__dict__
        d["group_id"] = group_id
        d["state"] = state
        d["type"] = type
        d["protocol_type"] = protocol_type
        d["assignor"] = assignor
        d["coordinator"] = coordinator
        d["members"] = members
        d["error"] = error
        d["error_code"] = error_code
        d["group_epoch"] = group_epoch
        d["assignment_epoch"] = assignment_epoch
        d["topology_epoch"] = topology_epoch
        d["unreachable"] = unreachable


@dataclass(frozen=True, init=False)
class CommittedOffset:
    """A group's committed offset for one partition."""

    offset: int
    leader_epoch: int | None = None
    metadata: str = ""

    def __init__(self, offset: int, leader_epoch: int | None = None, metadata: str = "") -> None:
        d = self.__dict__
        d["offset"], d["leader_epoch"], d["metadata"] = offset, leader_epoch, metadata


#: What OffsetFetch's conversion makes one a partition of (100,000 a fleet's describe): the
#: class itself, whose `__init__` fills the instance dict (a function of its own filling it
#: was a second copy of that rule, and no faster once `__init__` stopped going through
#: `object.__setattr__`).
committed_offset = CommittedOffset


@dataclass(frozen=True)
class OffsetAtTime:
    """What ListOffsets returned: an offset (or -1 when there is none) and its timestamp."""

    offset: int
    timestamp: int | None = None


@dataclass(frozen=True, init=False)
class Watermarks:
    """Log start and log end (high watermark) offsets; last stable offset when asked."""

    log_start: int
    log_end: int
    last_stable: int | None = None

    def __init__(self, log_start: int, log_end: int, last_stable: int | None = None) -> None:
        d = self.__dict__
        d["log_start"], d["log_end"], d["last_stable"] = log_start, log_end, last_stable


@dataclass(frozen=True)
class TopicMetadata:
    """A topic's partition count, replica racks per partition and id where known."""

    name: str
    partitions: int
    topic_id: str | None = None
    replica_racks: tuple[tuple[str, ...], ...] = field(default=())

    @classmethod
    def from_replica_racks(
        cls, name: str, racks: Iterable[Iterable[str | None]], topic_id: str | None = None
    ) -> TopicMetadata:
        """A topic from the racks of each partition's replicas, in partition order (None for a
        replica whose rack is unknown): each partition keeps its known racks, sorted, once."""
        replica_racks = tuple(
            tuple(sorted({rack for rack in replicas if rack is not None})) for replicas in racks
        )
        return cls(
            name=name,
            partitions=len(replica_racks),
            topic_id=topic_id,
            replica_racks=replica_racks,
        )


@dataclass(frozen=True)
class GroupSnapshot:
    """A live group as an assignor sees it: the described group (members with their raw
    subscription metadata and assignment bytes where the broker returned them) and the metadata
    of the topics its members subscribe to or own (partition counts, replica racks, ids).

    `via` names what answered the describe: "DescribeGroups" (kgroup's wire client, classic
    groups: member metadata and assignment bytes included), "ConsumerGroupDescribe" (kgroup's
    wire client, KIP-848 groups: subscriptions, regex, racks, assignments) or "librdkafka"
    (member ids and assignments, no subscriptions).
    """

    group: GroupDescription
    topics: dict[str, TopicMetadata] = field(default_factory=dict)
    via: str = "DescribeGroups"


@dataclass(frozen=True)
class NextRecord:
    """What a consumer finds at a committed offset: a record to consume (with its timestamp,
    None when it has none), or nothing before the end of the log (`consumable` False: only
    transaction markers or aborted records remain)."""

    consumable: bool
    timestamp: int | None = None
