"""A streams group's topology (KIP-1071) from StreamsGroupDescribe (89, v0), for reset-offsets.

`kgroup.core.wire.streams_groups` turns StreamsGroupDescribe into a `GroupDescription`, which
keeps the source topics only; a reset needs the rest of each subtopology as Kafka's
`kafka-streams-groups` reads it: the repartition source and sink topics and the state changelog
topics (the group's internal topics), and the group's state. Read and written with the
generated classes (`kgroup.protocol.generated.wire.streams_group_describe_*`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgroup.core.errors import KgroupError
from kgroup.core.models import BrokerNode
from kgroup.core.wire.error_codes import NONE
from kgroup.core.wire.frames import translated
from kgroup.core.wire.kafka_errors import Retry, coordinator_failure, group_error, unsupported_api
from kgroup.protocol.generated.wire import (
    streams_group_describe_request as sgd_req,
)
from kgroup.protocol.generated.wire import (
    streams_group_describe_response as sgd_res,
)
from kgroup.protocol.messages.streams_groups import STREAMS_GROUP_DESCRIBE
from kgroup.protocol.runtime import Readable

if TYPE_CHECKING:
    from kgroup.core.wire.client import WireClient
    from kgroup.core.wire.connection import BrokerConnection


@dataclass(frozen=True)
class Subtopology:
    """One subtopology: the topics it reads, writes for repartitioning, and logs state to."""

    subtopology_id: str
    source_topics: tuple[str, ...] = ()
    repartition_source_topics: tuple[str, ...] = ()
    repartition_sink_topics: tuple[str, ...] = ()
    changelog_topics: tuple[str, ...] = ()


@dataclass(frozen=True)
class StreamsTopology:
    """A streams group as a reset needs it: state, member count and subtopologies (none when
    the group has no topology yet)."""

    group_id: str
    state: str
    members: int
    subtopologies: tuple[Subtopology, ...] = ()

    @property
    def source_topics(self) -> frozenset[str]:
        return frozenset(t for s in self.subtopologies for t in s.source_topics)


def to_topology(group: sgd_res.DescribedGroup) -> StreamsTopology:
    subtopologies = tuple(
        Subtopology(
            s.subtopology_id,
            tuple(s.source_topics),
            tuple(t.name for t in s.repartition_source_topics),
            tuple(s.repartition_sink_topics),
            tuple(t.name for t in s.state_changelog_topics),
        )
        for s in ((group.topology.subtopologies or ()) if group.topology else ())
    )
    return StreamsTopology(group.group_id, group.group_state, len(group.members), subtopologies)


def describe_streams_topologies(
    client: WireClient, group_ids: Iterable[str]
) -> dict[str, StreamsTopology | KgroupError]:
    """Each group's topology, or its error (a broker without the API: UNSUPPORTED_VERSION)."""

    def work(
        connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, StreamsTopology | KgroupError | Retry]:
        version = connection.version_for(STREAMS_GROUP_DESCRIBE)
        if version is None:
            missing = unsupported_api(
                f"broker {connection.address} does not offer StreamsGroupDescribe v0 (KIP-1071 "
                "streams groups), so kgroup cannot read the group's topology",
                hint="streams groups need Kafka 4.1 or later with streams groups enabled",
            )
            return dict.fromkeys(groups, missing)
        request = sgd_req.write(sgd_req.StreamsGroupDescribeRequest(tuple(groups)), version)
        body = connection.call(STREAMS_GROUP_DESCRIBE, version, request)
        answer = translated(sgd_res.read_from)(Readable(body), version)
        out: dict[str, StreamsTopology | KgroupError | Retry] = {}
        for group in answer.groups:
            if group.error_code == NONE:
                out[group.group_id] = to_topology(group)
            else:
                error = group_error(
                    group.error_code, group.group_id, "describe", group.error_message
                )
                out[group.group_id] = coordinator_failure(group.error_code, error)
        return out

    results, _coordinators = client._per_coordinator(list(group_ids), work)
    return results
