"""A scripted Kafka 4.1 cluster with share groups (KIP-932), for `kgroup` end to end.

Extends the groups cluster of `fakegroups.py` (topics, classic groups, OffsetFetch, ListOffsets)
with share groups as Kafka 4.1's group coordinator serves them:

- ListGroups v5 lists them with protocol type "share", their state and type "share";
- DescribeGroups answers them as groups it does not hold (Dead, or GROUP_ID_NOT_FOUND), and
  ConsumerGroupDescribe with GROUP_ID_NOT_FOUND ("not a consumer group");
- ShareGroupDescribe v1, DescribeShareGroupOffsets v0, AlterShareGroupOffsets v0 and
  DeleteShareGroupOffsets v0 decode each request and encode each response with the generated
  classes of kgroup's declarations of Kafka's JSON (`structs.py`); what the bytes are is
  checked field by field against Kafka's JSON in test_wire_share_groups.py, with the fakes' own
  hand-written reader. Alter and delete are refused with NON_EMPTY_GROUP while the group has
  members (`GroupMetadataManager` in Kafka's group coordinator).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from kgroup.core.wire.error_codes import (
    GROUP_ID_NOT_FOUND,
    NON_EMPTY_GROUP,
    UNKNOWN_MEMBER_ID,
    UNKNOWN_TOPIC_OR_PARTITION,
)
from kgroup.protocol import messages as api_table
from kgroup.protocol.messages.share_groups import (
    ALTER_SHARE_GROUP_OFFSETS,
    DELETE_GROUPS,
    DELETE_SHARE_GROUP_OFFSETS,
    DESCRIBE_SHARE_GROUP_OFFSETS,
    SHARE_GROUP_DESCRIBE,
)
from kgroup.protocol.messages.streams_groups import STREAMS_GROUP_DESCRIBE
from tests.unit.wire.fakebroker import FakeBroker
from tests.unit.wire.fakegroups import VERSIONS, GroupsCluster
from tests.unit.wire.structs import read_request, write_response
from tests.unit.wire.wirecodec import Reader, Writer

SHARE_VERSIONS = {
    SHARE_GROUP_DESCRIBE.key: (1, 1),
    DESCRIBE_SHARE_GROUP_OFFSETS.key: (0, 0),
    ALTER_SHARE_GROUP_OFFSETS.key: (0, 0),
    DELETE_SHARE_GROUP_OFFSETS.key: (0, 0),
}
SPECS = {
    a.key: a
    for a in (
        SHARE_GROUP_DESCRIBE,
        DESCRIBE_SHARE_GROUP_OFFSETS,
        ALTER_SHARE_GROUP_OFFSETS,
        DELETE_SHARE_GROUP_OFFSETS,
        DELETE_GROUPS,
        STREAMS_GROUP_DESCRIBE,
    )
}

TOPIC_ID = bytes(15) + b"\x07"
DELETE_TOPICS_KEY = 20


@dataclass(frozen=True)
class FakeShareMember:
    """A share-group member as ShareGroupDescribe v1 reports it."""

    member_id: str
    client_id: str = "share-consumer"
    client_host: str = "/10.0.0.9"
    rack_id: str | None = None
    member_epoch: int = 3
    subscribed: tuple[str, ...] = ()
    assignment: tuple[tuple[str, int], ...] = ()


@dataclass
class FakeShareGroup:
    """A share group: members, epochs, and the start offset of each share partition it holds
    state for."""

    members: tuple[FakeShareMember, ...] = ()
    group_epoch: int = 3
    assignment_epoch: int = 2
    assignor: str = "simple"
    start_offsets: dict[tuple[str, int], int] = field(default_factory=dict)

    @property
    def state(self) -> str:
        return "Stable" if self.members else "Empty"


@dataclass(frozen=True)
class FakeStreamsMember:
    """A streams-group member as StreamsGroupDescribe v0 reports it: active tasks are
    (subtopology id, partitions)."""

    member_id: str
    client_id: str = "app-StreamThread-1"
    client_host: str = "/10.0.0.5"
    process_id: str = "p-1"
    member_epoch: int = 4
    topology_epoch: int = 1
    active: tuple[tuple[str, tuple[int, ...]], ...] = ()
    standby: tuple[tuple[str, tuple[int, ...]], ...] = ()


@dataclass
class FakeStreamsGroup:
    """A streams group: its topology (subtopology id -> source topics; repartition source and
    sink and state changelog topics by subtopology id), members and epochs. Its committed
    offsets live in the cluster's `offsets`, as Kafka keeps them."""

    subtopologies: dict[str, tuple[str, ...]] = field(default_factory=dict)
    members: tuple[FakeStreamsMember, ...] = ()
    repartition_sources: dict[str, tuple[str, ...]] = field(default_factory=dict)
    repartition_sinks: dict[str, tuple[str, ...]] = field(default_factory=dict)
    changelogs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    group_epoch: int = 4
    assignment_epoch: int = 4
    topology_epoch: int = 1

    @property
    def state(self) -> str:
        return "Stable" if self.members else "Empty"


@dataclass
class ShareCluster(GroupsCluster):
    """GroupsCluster plus share groups; `share_apis=False` plays a broker without them (Kafka
    before 4.1, or share.version=0: the APIs are not in ApiVersions)."""

    share_groups: dict[str, FakeShareGroup] = field(default_factory=dict)
    share_apis: bool = True
    streams_groups: dict[str, FakeStreamsGroup] = field(default_factory=dict)
    streams_api: bool = True
    # DeleteTopics (20) versions offered (None: not offered); topic -> error code to answer
    delete_topics_versions: tuple[int, int] | None = (1, 6)
    delete_topic_errors: dict[str, int] = field(default_factory=dict)
    # a topic's error codes for its next DeleteTopics, one per request (then delete_topic_errors)
    delete_topic_answers: dict[str, list[int]] = field(default_factory=dict)
    requests: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    raw: list[tuple[int, bytes, bytes]] = field(default_factory=list)  # api, request, response
    # hold the n-th DeleteTopics (1-based) unanswered, or every OffsetCommit of the group(s)
    # `hold_commit_of`: `delete_held` / `commit_held` is set when the first arrives, the answer
    # waits for `release` (set by close()); a stalled controller or coordinator. `commits_held`
    # names the groups whose OffsetCommit arrived and is held, in arrival order.
    hold_delete_topics: int | None = None
    hold_commit_of: str | tuple[str, ...] | None = None
    commits_held: list[str] = field(default_factory=list)
    delete_held: threading.Event = field(default_factory=threading.Event)
    commit_held: threading.Event = field(default_factory=threading.Event)
    # likewise the n-th DeleteGroups (`groups_held`); a group's error codes for its next
    # DeleteGroups, one per request (then the group's own answer)
    hold_delete_groups: int | None = None
    groups_held: threading.Event = field(default_factory=threading.Event)
    delete_group_answers: dict[str, list[int]] = field(default_factory=dict)
    # DeleteTopics done, its answer lost: the connection closes instead (a broker that died)
    drop_delete_topics_answer: bool = False
    release: threading.Event = field(default_factory=threading.Event)

    def close(self) -> None:
        self.release.set()
        super().close()

    def __post_init__(self) -> None:
        versions = {**VERSIONS, DELETE_GROUPS.key: (0, 2)}
        if self.share_apis:
            versions.update(SHARE_VERSIONS)
        if self.streams_api:
            versions[STREAMS_GROUP_DESCRIBE.key] = (0, 0)
        versions[api_table.OFFSET_COMMIT.key] = (8, 8)
        if self.delete_topics_versions is not None:
            versions[DELETE_TOPICS_KEY] = self.delete_topics_versions
        self._swap = threading.Lock()
        self.broker = FakeBroker(self.handler, versions=versions)

    def handler(self, api: int, version: int, body: bytes) -> bytes:
        share = {
            SHARE_GROUP_DESCRIBE.key: self._share_group_describe,
            DESCRIBE_SHARE_GROUP_OFFSETS.key: self._describe_offsets,
            ALTER_SHARE_GROUP_OFFSETS.key: self._alter_offsets,
            DELETE_SHARE_GROUP_OFFSETS.key: self._delete_offsets,
            DELETE_GROUPS.key: self._delete_groups,
            STREAMS_GROUP_DESCRIBE.key: self._streams_group_describe,
        }
        if api in share:
            assert self.broker.versions.get(api), f"api {api} sent to a broker without it"
            request = read_request(SPECS[api], version, body)
            self.requests.append((api, request))
            response = write_response(SPECS[api], version, share[api](request))
            self.raw.append((api, body, response))
            return response
        if api == DELETE_TOPICS_KEY:
            return self._delete_topics(version, body)
        if api == api_table.LIST_GROUPS.key:
            return self._list_with_share(version, body)
        if api == api_table.OFFSET_COMMIT.key:
            return self._offset_commit(version, body)
        if api == api_table.DESCRIBE_GROUPS.key:  # streams groups are not classic groups: Dead
            with self._swap:
                kept = self.offsets
                self.offsets = {g: o for g, o in kept.items() if g not in self.streams_groups}
                try:
                    return super().handler(api, version, body)
                finally:
                    self.offsets = kept
        return super().handler(api, version, body)

    def _classic_groups(self) -> list[str]:
        return [g for g in super()._classic_groups() if g not in self.streams_groups]

    # -- ListGroups ------------------------------------------------------------------------------

    def _list_with_share(self, version: int, body: bytes) -> bytes:
        """The parent's listing (classic and consumer groups) plus the share groups (v5: type
        "share", protocol type "share"), filters of v4/v5 applied."""
        flexible = version >= 3
        reader = Reader(body, flexible=flexible)
        states = {s.lower() for s in reader.array(lambda r: r.string())} if version >= 4 else set()
        types = {t.lower() for t in reader.array(lambda r: r.string())} if version >= 5 else set()
        listed = [(g, "consumer", "Empty", "classic") for g in self._classic_groups()]
        listed += [(g, "consumer", cg.state, "consumer") for g, cg in self.consumer_groups.items()]
        listed += [(g, "share", sg.state, "share") for g, sg in self.share_groups.items()]
        listed += [(g, "streams", sg.state, "streams") for g, sg in self.streams_groups.items()]
        listed = [
            item
            for item in sorted(listed)
            if (not states or item[2].lower() in states) and (not types or item[3] in types)
        ]
        writer = Writer(flexible=flexible)
        if version >= 1:
            writer.int32(0)
        writer.int16(0)

        def entry(w: Writer, item: tuple[str, str, str, str]) -> None:
            w.string(item[0]).string(item[1])
            if version >= 4:
                w.string(item[2])
            if version >= 5:
                w.string(item[3])
            w.tagged_fields()

        return writer.array(listed, entry).tagged_fields().getvalue()

    # -- share-group APIs (values as structs.py reads and writes them) --------------------------

    def _share_group_describe(self, request: dict[str, Any]) -> dict[str, Any]:
        groups = []
        for group_id in request["group_ids"]:
            sg = self.share_groups.get(group_id)
            if sg is None:
                groups.append(
                    {
                        "error_code": GROUP_ID_NOT_FOUND,
                        "error_message": f"Group {group_id} not found.",
                        "group_id": group_id,
                        "group_state": "",
                        "group_epoch": -1,
                        "assignment_epoch": -1,
                        "assignor_name": "",
                        "members": [],
                    }
                )
                continue
            members = []
            for mb in sg.members:
                by_topic: dict[str, list[int]] = {}
                for topic, partition in mb.assignment:
                    by_topic.setdefault(topic, []).append(partition)
                members.append(
                    {
                        "member_id": mb.member_id,
                        "rack_id": mb.rack_id,
                        "member_epoch": mb.member_epoch,
                        "client_id": mb.client_id,
                        "client_host": mb.client_host,
                        "subscribed_topic_names": list(mb.subscribed),
                        "assignment": {
                            "topic_partitions": [
                                {"topic_id": TOPIC_ID, "topic_name": t, "partitions": ps}
                                for t, ps in sorted(by_topic.items())
                            ]
                        },
                    }
                )
            groups.append(
                {
                    "error_code": 0,
                    "group_id": group_id,
                    "group_state": sg.state,
                    "group_epoch": sg.group_epoch,
                    "assignment_epoch": sg.assignment_epoch,
                    "assignor_name": sg.assignor,
                    "members": members,
                }
            )
        return {"throttle_time_ms": 0, "groups": groups}

    def _describe_offsets(self, request: dict[str, Any]) -> dict[str, Any]:
        groups = []
        for asked in request["groups"]:
            group_id = asked["group_id"]
            sg = self.share_groups.get(group_id)
            if sg is None:
                groups.append(
                    {
                        "group_id": group_id,
                        "topics": [],
                        "error_code": GROUP_ID_NOT_FOUND,
                        "error_message": f"Group {group_id} not found.",
                    }
                )
                continue
            by_topic: dict[str, list[dict[str, Any]]] = {}
            for (topic, partition), offset in sorted(sg.start_offsets.items()):
                by_topic.setdefault(topic, []).append(
                    {
                        "partition_index": partition,
                        "start_offset": offset,
                        "leader_epoch": 0 if offset >= 0 else -1,
                        "error_code": 0,
                    }
                )
            topics = [
                {"topic_name": t, "topic_id": TOPIC_ID, "partitions": ps}
                for t, ps in by_topic.items()
            ]
            groups.append({"group_id": group_id, "topics": topics, "error_code": 0})
        return {"throttle_time_ms": 0, "groups": groups}

    def _alter_offsets(self, request: dict[str, Any]) -> dict[str, Any]:
        group_id = request["group_id"]
        sg = self.share_groups.get(group_id)
        if sg is None or sg.members:
            # Kafka 4.1 (GroupCoordinatorService.alterShareGroupOffsets): a group error is the
            # top-level ErrorCode, with no topic listed
            code = GROUP_ID_NOT_FOUND if sg is None else NON_EMPTY_GROUP
            return {"throttle_time_ms": 0, "error_code": code, "responses": []}
        responses = []
        for topic in request["topics"]:
            partitions = []
            for p in topic["partitions"]:
                sg.start_offsets[(topic["topic_name"], p["partition_index"])] = p["start_offset"]
                partitions.append({"partition_index": p["partition_index"], "error_code": 0})
            responses.append(
                {"topic_name": topic["topic_name"], "topic_id": TOPIC_ID, "partitions": partitions}
            )
        return {"throttle_time_ms": 0, "error_code": 0, "responses": responses}

    def _delete_offsets(self, request: dict[str, Any]) -> dict[str, Any]:
        group_id = request["group_id"]
        sg = self.share_groups.get(group_id)
        if sg is None or sg.members:
            code = GROUP_ID_NOT_FOUND if sg is None else NON_EMPTY_GROUP
            return {"throttle_time_ms": 0, "error_code": code, "responses": []}
        responses = []
        for topic in request["topics"]:
            name = topic["topic_name"]
            held = sorted(p for (t, p) in sg.start_offsets if t == name)
            for p in held:
                del sg.start_offsets[(name, p)]
            code = 0 if name in self.topics else UNKNOWN_TOPIC_OR_PARTITION
            # Kafka 4.1 answers per topic (no partitions)
            responses.append({"topic_name": name, "topic_id": TOPIC_ID, "error_code": code})
        return {"throttle_time_ms": 0, "error_code": 0, "responses": responses}

    def _delete_groups(self, request: dict[str, Any]) -> dict[str, Any]:
        """DeleteGroups for share groups: NON_EMPTY_GROUP while members are in it."""
        asked = sum(1 for key, _r in self.requests if key == DELETE_GROUPS.key)
        if asked == self.hold_delete_groups:
            self.groups_held.set()
            self.release.wait(60)
        results = []
        for group_id in request["groups_names"]:
            queued = self.delete_group_answers.get(group_id)
            if queued:
                results.append({"group_id": group_id, "error_code": queued.pop(0)})
                continue
            if group_id in self.streams_groups:
                busy = bool(self.streams_groups[group_id].members)
                if not busy:
                    del self.streams_groups[group_id]
                    self.offsets.pop(group_id, None)
                results.append({"group_id": group_id, "error_code": 68 if busy else 0})
                continue
            sg = self.share_groups.get(group_id)
            if sg is None:
                code = GROUP_ID_NOT_FOUND
            elif sg.members:
                code = NON_EMPTY_GROUP
            else:
                code = 0
                del self.share_groups[group_id]
            results.append({"group_id": group_id, "error_code": code})
        return {"throttle_time_ms": 0, "results": results}

    def _streams_group_describe(self, request: dict[str, Any]) -> dict[str, Any]:
        groups = []
        for group_id in request["group_ids"]:
            sg = self.streams_groups.get(group_id)
            if sg is None:
                groups.append(
                    {
                        "error_code": GROUP_ID_NOT_FOUND,
                        "error_message": f"Group {group_id} not found.",
                        "group_id": group_id,
                        "group_state": "",
                        "group_epoch": -1,
                        "assignment_epoch": -1,
                        "members": [],
                    }
                )
                continue

            def tasks(pairs: tuple[tuple[str, tuple[int, ...]], ...]) -> list[dict[str, Any]]:
                return [{"subtopology_id": s, "partitions": list(ps)} for s, ps in pairs]

            members = [
                {
                    "member_id": mb.member_id,
                    "member_epoch": mb.member_epoch,
                    "client_id": mb.client_id,
                    "client_host": mb.client_host,
                    "topology_epoch": mb.topology_epoch,
                    "process_id": mb.process_id,
                    "client_tags": [],
                    "task_offsets": [],
                    "task_end_offsets": [],
                    "assignment": {
                        "active_tasks": tasks(mb.active),
                        "standby_tasks": tasks(mb.standby),
                        "warmup_tasks": [],
                    },
                    "target_assignment": {
                        "active_tasks": tasks(mb.active),
                        "standby_tasks": [],
                        "warmup_tasks": [],
                    },
                    "is_classic": False,
                }
                for mb in sg.members
            ]

            def infos(names: tuple[str, ...]) -> list[dict[str, Any]]:
                return [
                    {"name": t, "partitions": self.topics.get(t, 3), "replication_factor": 1}
                    for t in names
                ]

            subtopologies = [
                {
                    "subtopology_id": sid,
                    "source_topics": list(topics),
                    "repartition_sink_topics": list(sg.repartition_sinks.get(sid, ())),
                    "state_changelog_topics": infos(sg.changelogs.get(sid, ())),
                    "repartition_source_topics": infos(sg.repartition_sources.get(sid, ())),
                }
                for sid, topics in sorted(sg.subtopologies.items())
            ]
            groups.append(
                {
                    "error_code": 0,
                    "group_id": group_id,
                    "group_state": sg.state,
                    "group_epoch": sg.group_epoch,
                    "assignment_epoch": sg.assignment_epoch,
                    "topology": {"epoch": sg.topology_epoch, "subtopologies": subtopologies},
                    "members": members,
                }
            )
        return {"throttle_time_ms": 0, "groups": groups}

    def _delete_topics(self, version: int, body: bytes) -> bytes:
        """DeleteTopics v1-v6, read and answered with the generated classes of kgroup's
        declaration (the request's bytes are checked against Kafka's JSON in
        test_wire_delete_topics.py): a topic the cluster lacks is UNKNOWN_TOPIC_OR_PARTITION;
        a deleted topic loses its committed offsets (Kafka drops them with the topic)."""
        from kgroup.protocol.generated.wire import delete_topics_request as dt_req
        from kgroup.protocol.generated.wire import delete_topics_response as dt_res

        request = dt_req.read(body, version)
        names = [t.name for t in request.topics] if version >= 6 else list(request.topic_names)
        self.requests.append(
            (DELETE_TOPICS_KEY, {"topics": names, "timeout_ms": request.timeout_ms})
        )
        asked = sum(1 for key, _r in self.requests if key == DELETE_TOPICS_KEY)
        if asked == self.hold_delete_topics:
            self.delete_held.set()
            self.release.wait(60)
        results = []
        for name in names:
            queued = self.delete_topic_answers.get(name)
            code = queued.pop(0) if queued else self.delete_topic_errors.get(name, 0)
            if not code and name not in self.topics:
                code = UNKNOWN_TOPIC_OR_PARTITION
            if not code:
                del self.topics[name]
                for offsets in self.offsets.values():
                    for key in [k for k in offsets if k[0] == name]:
                        del offsets[key]
            results.append(dt_res.DeletableTopicResult(name=name, error_code=code))
        response = dt_res.write(dt_res.DeleteTopicsResponse(responses=tuple(results)), version)
        self.raw.append((DELETE_TOPICS_KEY, body, response))
        return b"DROP" if self.drop_delete_topics_answer else response

    def _offset_commit(self, version: int, body: bytes) -> bytes:
        """OffsetCommit v8, an administrative commit (generation -1): Kafka takes it for an
        empty group only (NON_EMPTY_GROUP... as UNKNOWN_MEMBER_ID for a streams group with
        members, StreamsGroup.validateOffsetCommit)."""
        request = read_request(api_table.OFFSET_COMMIT, version, body)
        self.requests.append((api_table.OFFSET_COMMIT.key, request))
        group_id = request["group_id"]
        held = self.hold_commit_of
        if held is not None and group_id in ((held,) if isinstance(held, str) else held):
            self.commits_held.append(group_id)
            self.commit_held.set()
            self.release.wait(60)
        sg = self.streams_groups.get(group_id)
        code = UNKNOWN_MEMBER_ID if sg is not None and sg.members else 0
        topics = []
        for topic in request["topics"]:
            partitions = []
            for p in topic["partitions"]:
                if not code:
                    self.offsets.setdefault(group_id, {})[(topic["name"], p["partition_index"])] = (
                        p["committed_offset"]
                    )
                partitions.append({"partition_index": p["partition_index"], "error_code": code})
            topics.append({"name": topic["name"], "partitions": partitions})
        return write_response(api_table.OFFSET_COMMIT, version, {"topics": topics})
