"""A scripted group coordinator with classic group membership, as Kafka's (a fake, not Kafka).

It extends the scripted cluster of `fakegroups.GroupsCluster` (topics, committed offsets,
ListGroups, OffsetFetch, ListOffsets, ConsumerGroupDescribe) with what the reset fence meets on a
real coordinator, following Kafka's group coordinator (GroupMetadataManager classic-group join,
ClassicGroup.validateOffsetCommit, initNextGeneration):

- JoinGroup v5: an empty member id gets MEMBER_ID_REQUIRED and a member id "<client id>-<uuid>"
  (KIP-394), kept as a pending member until it joins or its session ends; the join of an Empty
  group is held for `initial_delay_s` (`group.initial.rebalance.delay.ms`, 3 s by default in
  Kafka), extended by the same delay while new members keep joining, up to the rebalance timeout;
  a join into a non-empty group starts a rebalance that ends when every member has rejoined, or at
  the largest rebalance timeout, dropping the members that did not rejoin. The rebalance ends with
  the next generation, the first joined member leading.
- SyncGroup v3, LeaveGroup v3 (members by id, pending ones too), sessions that expire without a
  join, sync or commit of the member.
- OffsetCommit v7: generation -1 with no member id only while the group is Empty (else
  UNKNOWN_MEMBER_ID); a member's commit only with the current generation (ILLEGAL_GENERATION),
  REBALANCE_IN_PROGRESS while CompletingRebalance, accepted during PreparingRebalance.
- DescribeGroups v4 with the members (client id, host, metadata, assignment).

`pause(api, when)` holds the first request of `api` for which `when()` is true until the test
releases it, so a test can interrupt a kgroup process in a chosen phase.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from kgroup.core.wire.error_codes import (
    ILLEGAL_GENERATION,
    INCONSISTENT_GROUP_PROTOCOL,
    MEMBER_ID_REQUIRED,
    NONE,
    REBALANCE_IN_PROGRESS,
    UNKNOWN_MEMBER_ID,
    UNKNOWN_TOPIC_OR_PARTITION,
)
from kgroup.protocol import messages as api_table
from kgroup.protocol.model import Api
from tests.unit.wire.fakegroups import VERSIONS, GroupsCluster
from tests.unit.wire.wirecodec import Reader, Writer

COORDINATOR_VERSIONS = {
    **VERSIONS,
    api_table.JOIN_GROUP.key: (5, 5),
    api_table.SYNC_GROUP.key: (3, 3),
    api_table.LEAVE_GROUP.key: (3, 3),
    api_table.OFFSET_COMMIT.key: (7, 7),
    api_table.DESCRIBE_GROUPS.key: (4, 4),
}


@dataclass
class Member:
    member_id: str
    client_id: str
    session_s: float
    rebalance_s: float
    protocols: list[tuple[str, bytes]]
    last_seen: float
    awaiting_join: bool = False
    assignment: bytes = b""


@dataclass
class ClassicGroup:
    state: str = "Empty"
    generation: int = 0
    protocol_name: str = ""
    leader: str | None = None
    members: dict[str, Member] = field(default_factory=dict)
    pending: dict[str, float] = field(default_factory=dict)  # member id -> session end
    rebalance_end: float = 0.0
    initial: bool = False  # the delayed first join of an Empty group
    initial_left_s: float = 0.0
    new_member_added: bool = False
    answers: dict[str, tuple] = field(default_factory=dict)  # member id -> JoinGroup answer


@dataclass
class Pause:
    api: int
    when: Callable[[], bool]
    group: str | None = None  # only requests naming this group
    reached: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)


class CoordinatorCluster(GroupsCluster):
    """GroupsCluster plus classic membership; see the module docstring."""

    def __init__(self, *, initial_delay_s: float = 0.0, **kwargs) -> None:
        self.initial_delay_s = initial_delay_s
        self.groups: dict[str, ClassicGroup] = {}
        self.lock = threading.Condition()
        self.pauses: list[Pause] = []
        self.member_commits: list[tuple[str, str, dict]] = []  # group, member id, offsets
        self.admin_commits: list[tuple[str, dict]] = []
        self.joins: list[tuple[str, str, float]] = []  # group, member id, when answered
        self.join_requests: list[tuple[str, float]] = []  # group, when received
        self.leaves: list[tuple[str, str]] = []
        super().__init__(**kwargs)
        self.broker.versions = dict(COORDINATOR_VERSIONS)
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick_loop, daemon=True)
        self._ticker.start()

    def close(self) -> None:
        self._stop.set()
        for pause in self.pauses:
            pause.release.set()
        super().close()

    # -- test controls ---------------------------------------------------------------------------

    def pause(
        self, api: Api, when: Callable[[], bool] = lambda: True, group: str | None = None
    ) -> Pause:
        made = Pause(api.key, when, group)
        self.pauses.append(made)
        return made

    def group(self, group_id: str) -> ClassicGroup:
        with self.lock:
            return self.groups.setdefault(group_id, ClassicGroup())

    def add_stray_member(self, group_id: str, member_id: str, client_id: str, session_s: float):
        """A member left behind (its process gone): Stable, alone, never heartbeating."""
        with self.lock:
            group = self.groups.setdefault(group_id, ClassicGroup())
            group.members[member_id] = Member(
                member_id, client_id, session_s, session_s, [("range", b"")], time.monotonic()
            )
            group.leader, group.state, group.protocol_name = member_id, "Stable", "range"
            group.generation += 1

    # -- dispatch --------------------------------------------------------------------------------

    def handler(self, api: int, version: int, body: bytes) -> bytes:
        for pause in self.pauses:
            if pause.api != api or pause.reached.is_set():
                continue
            if pause.group is not None and pause.group.encode() not in body:
                continue  # (the group id is in the request's bytes, whatever its layout)
            if pause.when():
                pause.reached.set()
                pause.release.wait(60)
        if api == api_table.JOIN_GROUP.key:
            return self._join(body)
        if api == api_table.SYNC_GROUP.key:
            return self._sync(body)
        if api == api_table.LEAVE_GROUP.key:
            return self._leave(body)
        if api == api_table.OFFSET_COMMIT.key:
            return self._commit(body)
        if api == api_table.DESCRIBE_GROUPS.key:
            return self._describe(body)
        return super().handler(api, version, body)

    # -- membership ------------------------------------------------------------------------------

    def _tick_loop(self) -> None:
        while not self._stop.wait(0.01):
            with self.lock:
                now = time.monotonic()
                for group in self.groups.values():
                    self._tick(group, now)

    def _tick(self, group: ClassicGroup, now: float) -> None:
        for member_id, ends in list(group.pending.items()):
            if now > ends:
                del group.pending[member_id]
        if group.state == "PreparingRebalance":
            if now >= group.rebalance_end:
                if group.initial and group.new_member_added and group.initial_left_s > 0:
                    step = min(self.initial_delay_s, group.initial_left_s)
                    group.initial_left_s -= step
                    group.new_member_added = False
                    group.rebalance_end = now + step
                else:
                    self._complete_join(group)
            elif not group.initial and all(mb.awaiting_join for mb in group.members.values()):
                self._complete_join(group)
            return
        for member_id, member in list(group.members.items()):
            if not member.awaiting_join and now - member.last_seen > member.session_s:
                self._remove(group, member_id)

    def _prepare_rebalance(self, group: ClassicGroup, now: float) -> None:
        initial = group.state == "Empty"
        longest = max((mb.rebalance_s for mb in group.members.values()), default=0.0)
        group.initial = initial
        group.new_member_added = False  # set by joins during the delay (InitialDelayedJoin)
        if initial:
            delay = min(self.initial_delay_s, longest)
            group.initial_left_s = max(longest - delay, 0.0)
            group.rebalance_end = now + delay
        else:
            group.rebalance_end = now + longest
        group.state = "PreparingRebalance"
        self.lock.notify_all()

    def _complete_join(self, group: ClassicGroup) -> None:
        for member_id in [mid for mid, mb in group.members.items() if not mb.awaiting_join]:
            self._remove(group, member_id, rebalance=False)
        group.generation += 1
        group.answers = {}
        if not group.members:
            group.state, group.protocol_name, group.leader = "Empty", "", None
            self.lock.notify_all()
            return
        if group.leader not in group.members:
            group.leader = next(iter(group.members))
        common = set.intersection(*({n for n, _ in mb.protocols} for mb in group.members.values()))
        leader = group.members[group.leader]
        group.protocol_name = next(n for n, _ in leader.protocols if n in common)
        group.state = "CompletingRebalance"
        everyone = [
            (mid, dict(mb.protocols)[group.protocol_name]) for mid, mb in group.members.items()
        ]
        now = time.monotonic()
        for member_id, member in group.members.items():
            member.awaiting_join = False
            member.last_seen = now
            listed = everyone if member_id == group.leader else []
            group.answers[member_id] = (NONE, group.generation, group.leader, listed)
        self.lock.notify_all()

    def _remove(self, group: ClassicGroup, member_id: str, *, rebalance: bool = True) -> None:
        group.members.pop(member_id, None)
        if group.leader == member_id:
            group.leader = next(iter(group.members), None)
        if rebalance and group.state in ("Stable", "CompletingRebalance"):
            if group.members:
                self._prepare_rebalance(group, time.monotonic())
            else:
                group.generation += 1
                group.state, group.protocol_name = "Empty", ""
        self.lock.notify_all()

    def _join(self, body: bytes) -> bytes:
        r = Reader(body)
        group_id, session_ms, rebalance_ms = r.string(), r.int32(), r.int32()
        member_id, _instance, protocol_type = r.string(), r.nullable_string(), r.string()
        protocols = r.array(lambda x: (x.string(), x.bytes_()))
        r.expect_end()
        client_id = getattr(self.broker.current, "client_id", None) or ""
        self.join_requests.append((group_id, time.monotonic()))
        with self.lock:
            consumer = self.consumer_groups.get(group_id)
            if consumer is not None and not consumer.members:
                # Kafka replaces an empty consumer-protocol group by a classic one when a
                # classic member joins it (GroupMetadataManager, KIP-848 online downgrade)
                del self.consumer_groups[group_id]
            group = self.groups.setdefault(group_id, ClassicGroup())
            now = time.monotonic()
            if not member_id:
                new_id = f"{client_id}-{uuid.uuid4()}"
                group.pending[new_id] = now + session_ms / 1000
                return _join_answer(MEMBER_ID_REQUIRED, -1, "", "", new_id, [])
            if member_id not in group.pending and member_id not in group.members:
                return _join_answer(UNKNOWN_MEMBER_ID, -1, "", "", member_id, [])
            names = {n for n, _ in protocols}
            others = [mb for mid, mb in group.members.items() if mid != member_id]
            if protocol_type != "consumer" or (
                others
                and not names & set.intersection(*({n for n, _ in o.protocols} for o in others))
            ):
                return _join_answer(INCONSISTENT_GROUP_PROTOCOL, -1, "", "", member_id, [])
            group.pending.pop(member_id, None)
            member = group.members.get(member_id)
            if member is None:
                member = Member(
                    member_id,
                    client_id,
                    session_ms / 1000,
                    rebalance_ms / 1000,
                    list(protocols),
                    now,
                )
                group.members[member_id] = member
                if group.leader is None:
                    group.leader = member_id
                group.new_member_added = group.state == "PreparingRebalance"
            member.protocols, member.awaiting_join, member.last_seen = list(protocols), True, now
            group.answers.pop(member_id, None)
            if group.state in ("Empty", "Stable", "CompletingRebalance"):
                self._prepare_rebalance(group, now)
            while member_id not in group.answers:
                if member_id not in group.members:
                    return _join_answer(UNKNOWN_MEMBER_ID, -1, "", "", member_id, [])
                self.lock.wait(0.05)
            code, generation, leader, listed = group.answers.pop(member_id)
            self.joins.append((group_id, member_id, time.monotonic()))
            return _join_answer(code, generation, group.protocol_name, leader, member_id, listed)

    def _sync(self, body: bytes) -> bytes:
        r = Reader(body)
        group_id, generation, member_id, _instance = (
            r.string(),
            r.int32(),
            r.string(),
            r.nullable_string(),
        )
        assignments = r.array(lambda x: (x.string(), x.bytes_()))
        r.expect_end()
        with self.lock:
            group = self.groups.setdefault(group_id, ClassicGroup())
            member = group.members.get(member_id)
            if member is None:
                return Writer().int32(0).int16(UNKNOWN_MEMBER_ID).bytes_(b"").getvalue()
            if generation != group.generation:
                return Writer().int32(0).int16(ILLEGAL_GENERATION).bytes_(b"").getvalue()
            if group.state == "PreparingRebalance":
                return Writer().int32(0).int16(REBALANCE_IN_PROGRESS).bytes_(b"").getvalue()
            member.last_seen = time.monotonic()
            if group.state == "CompletingRebalance" and member_id == group.leader:
                given = dict(assignments)
                for mid, mb in group.members.items():
                    mb.assignment = given.get(mid, b"")
                group.state = "Stable"
                self.lock.notify_all()
            while group.state == "CompletingRebalance" and member_id in group.members:
                self.lock.wait(0.05)
            if group.state != "Stable" or member_id not in group.members:
                return Writer().int32(0).int16(REBALANCE_IN_PROGRESS).bytes_(b"").getvalue()
            return Writer().int32(0).int16(NONE).bytes_(member.assignment).getvalue()

    def _leave(self, body: bytes) -> bytes:
        r = Reader(body)
        group_id = r.string()
        leaving = r.array(lambda x: (x.string(), x.nullable_string()))
        r.expect_end()
        answers = []
        with self.lock:
            group = self.groups.setdefault(group_id, ClassicGroup())
            for member_id, _instance in leaving:
                if member_id in group.pending:
                    del group.pending[member_id]
                    code = NONE
                elif member_id in group.members:
                    self._remove(group, member_id)
                    code = NONE
                else:
                    code = UNKNOWN_MEMBER_ID
                self.leaves.append((group_id, member_id))
                answers.append((member_id, code))
        writer = Writer().int32(0).int16(NONE)
        writer.array(answers, lambda w, a: w.string(a[0]).nullable_string(None).int16(a[1]))
        return writer.getvalue()

    # -- offsets ---------------------------------------------------------------------------------

    def _commit_error(self, group: ClassicGroup, generation: int, member_id: str) -> int:
        if generation < 0 and group.state == "Empty":
            return NONE
        if generation >= 0 or member_id:
            if member_id not in group.members:
                return UNKNOWN_MEMBER_ID
            if generation != group.generation:
                return ILLEGAL_GENERATION
        elif group.state != "Empty":
            return UNKNOWN_MEMBER_ID
        if group.state == "CompletingRebalance":
            return REBALANCE_IN_PROGRESS
        return NONE

    def _commit(self, body: bytes) -> bytes:
        r = Reader(body)
        group_id, generation, member_id, _instance = (
            r.string(),
            r.int32(),
            r.string(),
            r.nullable_string(),
        )

        def partition(x: Reader) -> tuple[int, int]:
            index, offset = x.int32(), x.int64()
            x.int32()  # CommittedLeaderEpoch 6+
            x.nullable_string()  # CommittedMetadata
            return index, offset

        topics = r.array(lambda x: (x.string(), x.array(partition)))
        r.expect_end()
        with self.lock:
            group = self.groups.setdefault(group_id, ClassicGroup())
            code = self._commit_error(group, generation, member_id)
            answers = []
            written = {}
            for topic, parts in topics:
                row = []
                for index, offset in parts:
                    error = code
                    if not error and not 0 <= index < self.topics.get(topic, 0):
                        error = UNKNOWN_TOPIC_OR_PARTITION
                    if not error:
                        written[(topic, index)] = offset
                    row.append((index, error))
                answers.append((topic, row))
            self.offsets.setdefault(group_id, {}).update(written)
            if written and member_id in group.members:
                group.members[member_id].last_seen = time.monotonic()
                self.member_commits.append((group_id, member_id, written))
            elif written:
                self.admin_commits.append((group_id, written))
        writer = Writer().int32(0)

        def topic(w: Writer, item: tuple[str, list[tuple[int, int]]]) -> None:
            w.string(item[0]).array(item[1], lambda pw, p: pw.int32(p[0]).int16(p[1]))

        return writer.array(answers, topic).getvalue()

    def _describe(self, body: bytes) -> bytes:
        r = Reader(body)
        wanted = r.array(lambda x: x.string())
        r.boolean()  # IncludeAuthorizedOperations 3+
        writer = Writer().int32(0)

        def member(w: Writer, item: tuple[Member, str]) -> None:
            mb, protocol = item
            w.string(mb.member_id).nullable_string(None).string(mb.client_id)
            w.string("/127.0.0.1").bytes_(dict(mb.protocols).get(protocol, b""))
            w.bytes_(mb.assignment)

        def entry(w: Writer, group_id: str) -> None:
            group = self.groups.get(group_id)
            if group is not None and (group.members or group.state != "Empty"):
                w.int16(0).string(group_id).string(group.state).string("consumer")
                w.string(group.protocol_name)
                w.array([(mb, group.protocol_name) for mb in group.members.values()], member)
            elif group_id in self.offsets and group_id not in self.consumer_groups:
                w.int16(0).string(group_id).string("Empty").string("consumer").string("")
                w.array([], member)
            else:
                w.int16(0).string(group_id).string("Dead").string("").string("")
                w.array([], member)
            w.int32(-(2**31))

        with self.lock:
            writer.array(wanted, entry)
        return writer.getvalue()


def _join_answer(
    code: int,
    generation: int,
    protocol: str,
    leader: str,
    member_id: str,
    members: list[tuple[str, bytes]],
) -> bytes:
    """JoinGroupResponse v5: ThrottleTimeMs, ErrorCode, GenerationId, ProtocolName, Leader,
    MemberId, Members [MemberId, GroupInstanceId, Metadata]."""
    writer = Writer().int32(0).int16(code).int32(generation).string(protocol).string(leader)
    writer.string(member_id)
    writer.array(members, lambda w, mb: w.string(mb[0]).nullable_string(None).bytes_(mb[1]))
    return writer.getvalue()
