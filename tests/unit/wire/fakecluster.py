"""A scripted multi-broker cluster: group coordinators spread over brokers, brokers that die,
coordinators that move, coordinators that answer NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS.

What a live Kafka cluster does and the sandbox never does (issue #23): each group has one
coordinator broker (FindCoordinator); every other broker answers NOT_COORDINATOR for it; a
killed broker refuses connections and cuts the open ones; Kafka moves its groups to another
broker once the controller fences it (after the broker session timeout: `move_after_s` here), and
the cluster's metadata stops listing it then too. `script` makes a coordinator answer error codes
before serving a request (per API and group), `kill_on` kills a group's coordinator when a request
for the group reaches it (the request is never answered, nothing is applied).

It serves what describe, list, reset-offsets --execute (with kgroup's fence: JoinGroup v5,
SyncGroup v3, OffsetCommit v7, LeaveGroup v3), delete (DeleteGroups v2), delete-offsets and
check ask; the group requests'
bytes are laid out by hand from Kafka's JSON message definitions (clients/src/main/resources/
common/message/*.json) with the fakes' own Writer/Reader. Topics' partition leaders are the live
broker with the lowest id. Subclass with CheckCluster (`CheckFakeCluster`) for `kgroup check`.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass, field

from kgroup.core.wire.error_codes import (
    GROUP_ID_NOT_FOUND,
    ILLEGAL_GENERATION,
    NON_EMPTY_GROUP,
    NONE,
    NOT_COORDINATOR,
    UNKNOWN_MEMBER_ID,
)
from kgroup.protocol import messages as api_table
from kgroup.protocol.messages.share_groups import DELETE_GROUPS
from tests.unit.wire.fakebroker import FakeBroker, FakePartition, FakeTopic, metadata_body
from tests.unit.wire.fakecheck import CheckCluster
from tests.unit.wire.fakegroups import GroupsCluster
from tests.unit.wire.wirecodec import Reader, Writer

GROUP_VERSIONS = {
    api_table.FIND_COORDINATOR.key: (4, 4),
    api_table.OFFSET_FETCH.key: (8, 8),
    api_table.DESCRIBE_GROUPS.key: (0, 4),
    api_table.LIST_GROUPS.key: (4, 4),
    api_table.OFFSET_COMMIT.key: (0, 7),
    api_table.JOIN_GROUP.key: (0, 5),
    api_table.SYNC_GROUP.key: (0, 3),
    api_table.LEAVE_GROUP.key: (0, 3),
    api_table.OFFSET_DELETE.key: (0, 0),
    DELETE_GROUPS.key: (0, 2),
}
_GROUP_APIS = frozenset(GROUP_VERSIONS) - {
    api_table.FIND_COORDINATOR.key,
    api_table.LIST_GROUPS.key,
}


@dataclass
class ClassicGroup:
    """A classic group's membership as the coordinator keeps it."""

    members: dict[str, tuple[str, bytes, bytes]] = field(default_factory=dict)  # id -> client..
    generation: int = 0
    protocol: str = ""
    leader: str = ""


@dataclass
class FakeCluster(GroupsCluster):
    """`brokers` brokers (ids 1..n); `coordinators` group -> broker id (default: broker 1)."""

    brokers_count: int = 3
    coordinators: dict[str, int] = field(default_factory=dict)
    # (api key, group) -> error codes the coordinator answers first, one per request
    script: dict[tuple[int, str], list[int]] = field(default_factory=dict)
    # (api key, group) -> (broker id the group moves to, requests served first): its coordinator
    # dies on that request (unanswered, nothing applied)
    kill_on: dict[tuple[int, str], tuple[int, int]] = field(default_factory=dict)
    move_after_s: float = 1.0  # from a broker's death to its groups' move (and metadata's)
    leader_dies_on: int | None = None  # the partitions' leader dies on this API (ListOffsets...)
    memberships: dict[str, ClassicGroup] = field(default_factory=dict)
    commits: list[tuple[str, int, dict[tuple[str, int], int]]] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)  # groups DeleteGroups removed, in order
    # (api key, group) -> (broker id, seconds, code): the group starts moving there when such a
    # request first reaches its coordinator, which answers `code` until then (see `move`)
    move_on: dict[tuple[int, str], tuple[int, float, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        versions = {**self.broker.versions, **GROUP_VERSIONS}
        self.broker.close()
        self._lock = threading.RLock()
        self._died: dict[int, float] = {}
        self._dying: dict[int, dict[str, int]] = {}  # killed, clock not started yet
        self._moves: dict[str, tuple[float, int]] = {}
        self._meanwhile: dict[str, int] = {}
        self._pending: dict[str, tuple[float, int, int]] = {}
        self.list_script: dict[int, list[int]] = {}  # broker id -> ListGroups error codes first
        self.nodes = [
            FakeBroker(
                lambda api, version, body, node=i + 1: self.handle_on(node, api, version, body),
                versions=dict(versions),
                node_id=i + 1,
            )
            for i in range(self.brokers_count)
        ]
        self.broker = self.nodes[0]

    # -- the cluster -----------------------------------------------------------------------------

    @property
    def address(self) -> str:
        return ",".join(node.address for node in self.nodes)

    def node(self, node_id: int) -> FakeBroker:
        return self.nodes[node_id - 1]

    def close(self) -> None:
        for node in self.nodes:
            node.close()

    def kill(
        self, node_id: int, move_to: dict[str, int] | None = None, *, at_once: bool = False
    ) -> None:
        """Kill broker `node_id`; its groups move to `move_to` `move_after_s` later, when the
        controller fences it and drops it from the metadata. The clock starts with the cluster's
        next request (a test kills before kgroup starts: its start-up time must not count), or
        `at_once` (killed during a request)."""
        with self._lock:
            self._dying[node_id] = dict(move_to or {})
        self.node(node_id).kill()
        if at_once:
            self._start_clocks()

    def _start_clocks(self) -> None:
        with self._lock:
            now = time.monotonic()
            for node_id, moves in self._dying.items():
                self._died[node_id] = now
                for group, target in moves.items():
                    self._moves[group] = (now + self.move_after_s, target)
            self._dying.clear()

    def move(self, group: str, to: int, after_s: float, meanwhile: int = NOT_COORDINATOR) -> None:
        """Move `group`'s coordinator to broker `to`, `after_s` after the first request for the
        group reaches its old one: until then FindCoordinator still names the old one, which
        answers `meanwhile` for the group (NOT_COORDINATOR: it gave the group up;
        COORDINATOR_LOAD_IN_PROGRESS, ...)."""
        with self._lock:
            self._pending[group] = (after_s, to, meanwhile)

    def coordinator_of(self, group: str) -> int:
        with self._lock:
            move = self._moves.get(group)
            if move is not None and time.monotonic() >= move[0]:
                self.coordinators[group] = move[1]
                del self._moves[group]
                self._meanwhile.pop(group, None)
            return self.coordinators.get(group, 1)

    def _moving_code(self, group: str) -> int:
        """What the old coordinator answers for a group being moved (0: not moving); the first
        request for a pending move starts its clock."""
        with self._lock:
            pending = self._pending.pop(group, None)
            if pending is not None:
                after_s, to, meanwhile = pending
                self._moves[group] = (time.monotonic() + after_s, to)
                self._meanwhile[group] = meanwhile
        self.coordinator_of(group)
        with self._lock:
            return self._meanwhile.get(group, NONE)

    def _listed_nodes(self) -> list[FakeBroker]:
        """Brokers in the metadata: alive, or dead for less than `move_after_s` (not yet fenced)."""
        now = time.monotonic()
        return [
            n
            for n in self.nodes
            if n.node_id not in self._died or now - self._died[n.node_id] < self.move_after_s
        ]

    def _dies_on(self, api: int, group: str) -> int | None:
        """The broker `group` moves to if its coordinator dies on this request, else None."""
        with self._lock:
            plan = self.kill_on.get((api, group))
            if plan is None:
                return None
            move_to, serve_first = plan
            if serve_first > 0:
                self.kill_on[(api, group)] = (move_to, serve_first - 1)
                return None
            del self.kill_on[(api, group)]
            return move_to

    def _scripted(self, api: int, group: str) -> int:
        with self._lock:
            codes = self.script.get((api, group))
            return codes.pop(0) if codes else NONE

    # -- requests --------------------------------------------------------------------------------

    def handle_on(self, node: int, api: int, version: int, body: bytes) -> bytes:
        self._start_clocks()
        tick = getattr(self, "_now", None)
        if tick is not None:
            tick()
        if api == api_table.METADATA.key:
            live = [n for n in self.nodes if not n.killed]
            leader = min(n.node_id for n in live)
            topics = [
                FakeTopic(name, tuple(FakePartition(p, leader) for p in range(count)))
                for name, count in sorted(self.topics.items())
            ]
            brokers = [(n.node_id, "127.0.0.1", n.port) for n in self._listed_nodes()]
            return metadata_body(brokers, version, topics)
        if api == api_table.FIND_COORDINATOR.key:
            return self._find(body)
        if api == api_table.LIST_GROUPS.key:
            return self._list(node)
        if api in _GROUP_APIS:
            return self._group_request(node, api, version, body)
        if api == self.leader_dies_on:
            self.leader_dies_on = None
            self.kill(node, at_once=True)
            return b"DROP"
        return self.handler(api, version, body)

    def _find(self, body: bytes) -> bytes:
        reader = Reader(body, flexible=True)
        reader.int8()  # KeyType
        keys = reader.array(lambda r: r.string())
        writer = Writer(flexible=True).int32(0)  # ThrottleTimeMs

        def entry(w: Writer, key: str) -> None:
            code = self._scripted(api_table.FIND_COORDINATOR.key, key)
            target = self.node(self.coordinator_of(key))
            node_id, port = (-1, -1) if code else (target.node_id, target.port)
            w.string(key).int32(node_id).string("127.0.0.1" if not code else "").int32(port)
            w.int16(code).nullable_string(None).tagged_fields()

        return writer.array(keys, entry).tagged_fields().getvalue()

    def _list(self, node: int) -> bytes:
        """ListGroupsResponse v4: the groups this broker coordinates."""
        groups = sorted(set(self.offsets) | set(self.memberships))
        mine = [g for g in groups if self.coordinator_of(g) == node]
        with self._lock:
            codes = self.list_script.get(node)
            code = codes.pop(0) if codes else NONE
        if code:
            mine = []
        writer = Writer(flexible=True).int32(0).int16(code)  # ThrottleTimeMs, ErrorCode

        def entry(w: Writer, group: str) -> None:
            w.string(group).string("consumer").string(self._state(group)).tagged_fields()

        return writer.array(mine, entry).tagged_fields().getvalue()

    def _state(self, group: str) -> str:
        held = self.memberships.get(group)
        if held is not None and held.members:
            return "Stable"
        return "Empty" if group in self.offsets or group in self.memberships else "Dead"

    def _group_request(self, node: int, api: int, version: int, body: bytes) -> bytes:
        """A request for one group (OffsetCommit, JoinGroup, SyncGroup, LeaveGroup, OffsetDelete)
        or several (OffsetFetch, DescribeGroups): each group's coordinator check and script."""
        if api == api_table.OFFSET_FETCH.key:
            return self._offset_fetch_on(node, body)
        if api == api_table.DESCRIBE_GROUPS.key:
            return self._describe_on(node, version, body)
        if api == DELETE_GROUPS.key:
            return self._delete_groups_on(node, version, body)
        group = Reader(body).string()
        if self.coordinator_of(group) != node:
            return self._error_answer(api, version, body, NOT_COORDINATOR)
        if self._moving_code(group):
            return self._error_answer(api, version, body, self._moving_code(group))
        move_to = self._dies_on(api, group)
        if move_to is not None:
            self.kill(node, {group: move_to}, at_once=True)
            return b"DROP"
        code = self._scripted(api, group)
        if code:
            return self._error_answer(api, version, body, code)
        with self._lock:
            if api == api_table.JOIN_GROUP.key:
                return self._join(node, body)
            if api == api_table.SYNC_GROUP.key:
                return self._sync(body)
            if api == api_table.LEAVE_GROUP.key:
                return self._leave(body)
            if api == api_table.OFFSET_COMMIT.key:
                return self._commit(body)
            return self._offset_delete(body)

    def _error_answer(self, api: int, version: int, body: bytes, code: int) -> bytes:
        """The answer of a one-group request that failed as a whole with `code`."""
        if api == api_table.JOIN_GROUP.key:  # v5
            w = Writer().int32(0).int16(code).int32(-1).string("").string("").string("")
            return w.array([], Writer.string).getvalue()
        if api == api_table.SYNC_GROUP.key:  # v3
            return Writer().int32(0).int16(code).bytes_(b"").getvalue()
        if api == api_table.LEAVE_GROUP.key:  # v3
            return Writer().int32(0).int16(code).array([], Writer.string).getvalue()
        if api == api_table.OFFSET_COMMIT.key:  # v7: every partition carries the code
            _group, _generation, _member, rows = _read_commit(body)
            return _commit_answer({tp: code for tp in rows})
        return Writer().int16(code).int32(0).array([], Writer.string).getvalue()  # OffsetDelete

    # -- OffsetFetch v8 / DescribeGroups v4, per group ------------------------------------------

    def _dies_on_any(self, node: int, api: int, groups: list[str]) -> bool:
        """Whether the broker dies on this request for several groups (then it is killed)."""
        for group in groups:
            if self.coordinator_of(group) == node:
                move_to = self._dies_on(api, group)
                if move_to is not None:
                    self.kill(node, {group: move_to}, at_once=True)
                    return True
        return False

    def _offset_fetch_on(self, node: int, body: bytes) -> bytes:
        reader = Reader(body, flexible=True)

        def read_group(r: Reader) -> str:
            name = r.string()
            r.nullable_array(lambda x: x.string())
            r.tagged_fields()
            return name

        groups = reader.array(read_group)
        if self._dies_on_any(node, api_table.OFFSET_FETCH.key, groups):
            return b"DROP"
        writer = Writer(flexible=True).int32(0)  # ThrottleTimeMs

        def group(w: Writer, group_id: str) -> None:
            code = self._per_group_code(node, api_table.OFFSET_FETCH.key, group_id)
            by_topic: dict[str, list[tuple[int, int]]] = {}
            if not code:
                for (topic, partition), offset in sorted(self.offsets.get(group_id, {}).items()):
                    by_topic.setdefault(topic, []).append((partition, offset))

            def part(pw: Writer, item: tuple[int, int]) -> None:
                pw.int32(item[0]).int64(item[1]).int32(-1).nullable_string("").int16(0)
                pw.tagged_fields()

            def topic(tw: Writer, item: tuple[str, list[tuple[int, int]]]) -> None:
                tw.string(item[0]).array(item[1], part).tagged_fields()

            w.string(group_id).array(by_topic.items(), topic).int16(code).tagged_fields()

        return writer.array(groups, group).tagged_fields().getvalue()

    def _per_group_code(self, node: int, api: int, group: str) -> int:
        if self.coordinator_of(group) != node:
            return NOT_COORDINATOR
        return self._moving_code(group) or self._scripted(api, group)

    def _describe_on(self, node: int, version: int, body: bytes) -> bytes:
        reader = Reader(body)
        groups = reader.array(lambda r: r.string())
        if self._dies_on_any(node, api_table.DESCRIBE_GROUPS.key, groups):
            return b"DROP"
        writer = Writer().int32(0)  # ThrottleTimeMs (1+)

        def entry(w: Writer, group_id: str) -> None:
            code = self._per_group_code(node, api_table.DESCRIBE_GROUPS.key, group_id)
            held = self.memberships.get(group_id, ClassicGroup())
            state = "Dead" if code else self._state(group_id)
            members = sorted(held.members.items()) if not code else []
            w.int16(code).string(group_id).string(state)
            w.string("consumer" if state != "Dead" else "").string(held.protocol if members else "")

            def member(mw: Writer, item: tuple[str, tuple[str, bytes, bytes]]) -> None:
                member_id, (client_id, metadata, assignment) = item
                mw.string(member_id)
                if version >= 4:
                    mw.nullable_string(None)  # GroupInstanceId 4+
                mw.string(client_id).string("/127.0.0.1").bytes_(metadata).bytes_(assignment)

            w.array(members, member)
            if version >= 3:
                w.int32(-(2**31))  # AuthorizedOperations 3+

        return writer.array(groups, entry).getvalue()

    def _delete_groups_on(self, node: int, version: int, body: bytes) -> bytes:
        """DeleteGroups (DeleteGroupsRequest/Response.json, v2 flexible): per group the
        coordinator check and script, then GroupMetadataManager's rules: an unknown group is
        GROUP_ID_NOT_FOUND, one with members NON_EMPTY_GROUP, else its offsets are gone."""
        flexible = version >= 2
        groups = Reader(body, flexible=flexible).array(lambda r: r.string())
        for group_id in groups:
            plan = self.move_on.pop((DELETE_GROUPS.key, group_id), None)
            if plan is not None and self.coordinator_of(group_id) == node:
                self.move(group_id, to=plan[0], after_s=plan[1], meanwhile=plan[2])
        if self._dies_on_any(node, DELETE_GROUPS.key, groups):
            return b"DROP"
        writer = Writer(flexible=flexible).int32(0)  # ThrottleTimeMs

        def entry(w: Writer, group_id: str) -> None:
            code = self._per_group_code(node, DELETE_GROUPS.key, group_id)
            with self._lock:
                held = self.memberships.get(group_id)
                if code:
                    pass
                elif group_id not in self.offsets and held is None:
                    code = GROUP_ID_NOT_FOUND
                elif held is not None and held.members:
                    code = NON_EMPTY_GROUP
                else:
                    self.offsets.pop(group_id, None)
                    self.memberships.pop(group_id, None)
                    self.deleted.append(group_id)
            w.string(group_id).int16(code).tagged_fields()  # ErrorMessage only from v3

        return writer.array(groups, entry).tagged_fields().getvalue()

    # -- the fence's requests --------------------------------------------------------------------

    def _join(self, node: int, body: bytes) -> bytes:
        """JoinGroup v5 (JoinGroupRequest/Response.json): the joiner becomes a member at once."""
        reader = Reader(body)
        group = reader.string()
        reader.int32()  # SessionTimeoutMs
        reader.int32()  # RebalanceTimeoutMs
        member_id = reader.string()
        reader.nullable_string()  # GroupInstanceId 5+
        reader.string()  # ProtocolType
        protocols = reader.array(lambda r: (r.string(), r.bytes_()))
        held = self.memberships.setdefault(group, ClassicGroup())
        client_id = self.node(node).client_ids[-1] or ""
        if not member_id:
            member_id = f"{client_id}-{uuid.uuid4()}"
        held.members[member_id] = (client_id, protocols[0][1], b"")
        held.generation += 1
        held.protocol = protocols[0][0]
        held.leader = held.leader if held.leader in held.members else member_id
        writer = Writer().int32(0).int16(0).int32(held.generation).string(held.protocol)
        writer.string(held.leader).string(member_id)
        listed = sorted(held.members.items()) if held.leader == member_id else []
        return writer.array(
            listed, lambda w, item: w.string(item[0]).nullable_string(None).bytes_(item[1][1])
        ).getvalue()

    def _sync(self, body: bytes) -> bytes:
        """SyncGroup v3: the leader's assignment is kept for DescribeGroups."""
        reader = Reader(body)
        group = reader.string()
        generation = reader.int32()
        member_id = reader.string()
        reader.nullable_string()  # GroupInstanceId 3+
        assignments = reader.array(lambda r: (r.string(), r.bytes_()))
        held = self.memberships.get(group)
        if held is None or member_id not in held.members:
            return Writer().int32(0).int16(UNKNOWN_MEMBER_ID).bytes_(b"").getvalue()
        if generation != held.generation:
            return Writer().int32(0).int16(ILLEGAL_GENERATION).bytes_(b"").getvalue()
        for assigned_id, assignment in assignments:
            if assigned_id in held.members:
                client_id, metadata, _old = held.members[assigned_id]
                held.members[assigned_id] = (client_id, metadata, assignment)
        mine = dict(assignments).get(member_id, b"")
        return Writer().int32(0).int16(0).bytes_(mine).getvalue()

    def _leave(self, body: bytes) -> bytes:
        """LeaveGroup v3: members leave; an empty group is Empty again."""
        reader = Reader(body)
        group = reader.string()
        leaving = reader.array(lambda r: (r.string(), r.nullable_string()))
        held = self.memberships.get(group, ClassicGroup())
        answers = []
        for member_id, _instance in leaving:
            code = NONE if held.members.pop(member_id, None) else UNKNOWN_MEMBER_ID
            answers.append((member_id, code))
        if not held.members:
            held.leader = ""
        return (
            Writer()
            .int32(0)
            .int16(0)
            .array(answers, lambda w, a: w.string(a[0]).nullable_string(None).int16(a[1]))
            .getvalue()
        )

    def _commit(self, body: bytes) -> bytes:
        """OffsetCommit v7, as ClassicGroup.validateOffsetCommit decides: an administrative
        commit (generation -1, no member) only while the group has no member; a member's only
        for the current generation."""
        group, generation, member_id, rows = _read_commit(body)
        held = self.memberships.get(group, ClassicGroup())
        if not member_id and generation < 0:
            code = UNKNOWN_MEMBER_ID if held.members else NONE
        elif member_id not in held.members:
            code = UNKNOWN_MEMBER_ID
        elif generation != held.generation:
            code = ILLEGAL_GENERATION
        else:
            code = NONE
        if code == NONE:
            self.offsets.setdefault(group, {}).update(rows)
            self.commits.append((group, generation, dict(rows)))
        return _commit_answer({tp: code for tp in rows})


def _read_commit(body: bytes) -> tuple[str, int, str, dict[tuple[str, int], int]]:
    """OffsetCommitRequest v7: group, generation, member id, partition -> offset."""
    reader = Reader(body)
    group = reader.string()
    generation = reader.int32()
    member_id = reader.string()
    reader.nullable_string()  # GroupInstanceId 7+

    def topic(r: Reader) -> list[tuple[tuple[str, int], int]]:
        name = r.string()

        def partition(p: Reader) -> tuple[tuple[str, int], int]:
            index = p.int32()
            offset = p.int64()
            p.int32()  # CommittedLeaderEpoch 6+
            p.nullable_string()  # CommittedMetadata
            return (name, index), offset

        return r.array(partition)

    rows = dict(item for chunk in reader.array(topic) for item in chunk)
    reader.expect_end()
    return group, generation, member_id, rows


def _commit_answer(codes: dict[tuple[str, int], int]) -> bytes:
    """OffsetCommitResponse v7: ThrottleTimeMs, then each topic's partitions and error codes."""
    by_topic: dict[str, list[tuple[int, int]]] = {}
    for (topic, partition), code in sorted(codes.items()):
        by_topic.setdefault(topic, []).append((partition, code))

    def topic(w: Writer, item: tuple[str, list[tuple[int, int]]]) -> None:
        w.string(item[0]).array(item[1], lambda pw, p: pw.int32(p[0]).int16(p[1]))

    return Writer().int32(0).array(by_topic.items(), topic).getvalue()


@dataclass
class CheckFakeCluster(FakeCluster, CheckCluster):
    """CheckCluster's group (`billing` on `orders`, lag growing) on a multi-broker cluster."""
