"""A broker-side fence: kgroup holds a classic group as its only member while it commits.

Kafka's group coordinator accepts an administrative offset commit (generation -1, no member
id) only while a classic group is Empty, and a member's commit only for the group's current
generation (ClassicGroup.validateOffsetCommit). So a writer that has joined the group (JoinGroup,
then SyncGroup as leader) and found itself the only member can commit with its member id and
generation, while the coordinator itself refuses:
- every administrative commit (another kgroup run, kafka-consumer-groups.sh, Admin clients):
  the group is not Empty;
- every other joiner's effect on us: a member joining starts a rebalance, which Kafka completes
  only once kgroup rejoins or leaves (or its rebalance timeout passes, which drops kgroup from the
  group: its commit then fails, UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION, and nothing is written).
  Until then the joiner's JoinGroup waits and kgroup's commit in the current generation is still
  accepted (PreparingRebalance), so the joiner starts after kgroup's commit.
Whatever the interleaving, at most one writer's commit lands per generation. A joiner that is
another kgroup run (its member id starts with `CLIENT_ID_PREFIX`) does its own compare-and-set
after kgroup left, so it never overwrites kgroup's commit with stale offsets.

The member offers the consumer protocol with an empty subscription under the usual assignor
names, so a consumer starting meanwhile joins normally (and wins: kgroup then refuses).
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgroup.core.errors import (
    EXIT_INTERRUPTED,
    AuthorizationError,
    KafkaOperationError,
    KgroupError,
    SafetyRefusal,
)
from kgroup.core.models import CommittedOffset, TopicPartition
from kgroup.core.wire.calls import read_answer
from kgroup.core.wire.error_codes import (
    GROUP_AUTHORIZATION_FAILED,
    ILLEGAL_GENERATION,
    INCONSISTENT_GROUP_PROTOCOL,
    INVALID_SESSION_TIMEOUT,
    MEMBER_ID_REQUIRED,
    NONE,
    REBALANCE_IN_PROGRESS,
    UNKNOWN_MEMBER_ID,
    UNSUPPORTED_VERSION,
    error_name,
)
from kgroup.core.wire.group_calls import (
    encode_describe_groups_request,
    encode_join_group_request,
    encode_leave_group_request,
    encode_sync_group_request,
)
from kgroup.core.wire.member_protocol import (
    Assignment,
    Subscription,
    Versioned,
    encode_assignment,
    encode_subscription,
)
from kgroup.core.wire.offset_calls import (
    decode_offset_commit_response,
    decode_offset_fetch_response,
    encode_offset_commit_request,
    encode_offset_fetch_request,
)
from kgroup.protocol import messages as api_table

if TYPE_CHECKING:
    from kgroup.protocol.generated.wire.join_group_response import JoinGroupResponse

PROTOCOL_TYPE = "consumer"
PROTOCOL_NAMES = ("range", "roundrobin", "sticky", "cooperative-sticky")
# Kafka's default group.min.session.timeout.ms: the shortest session a default broker accepts.
# If kgroup dies while holding the group, the coordinator drops the member after this long.
DEFAULT_SESSION_TIMEOUT_MS = 6000
SESSION_TIMEOUT_ENV = "KGROUP_FENCE_SESSION_TIMEOUT_MS"
# Leaving after the fence's connection died: a short, separate budget (the coordinator may be
# the reason it died; an unanswered leave costs at most this, then the session expires).
RELEASE_TIMEOUT_S = 1.0
# The fencing member's client id (Kafka makes member ids "<client id>-<uuid>"): other kgroup runs
# recognise it in DescribeGroups and say "another kgroup run" instead of "active member".
CLIENT_ID_PREFIX = "kgroup-reset-offsets"
_LABEL = re.compile(re.escape(CLIENT_ID_PREFIX) + r" pid (\d+) on (.+)")


def fence_label(pid: int | None = None, host: str | None = None) -> str:
    """The client id of this process's fencing members: `kgroup-reset-offsets pid N on HOST`."""
    pid = os.getpid() if pid is None else pid
    return f"{CLIENT_ID_PREFIX} pid {pid} on {host if host is not None else socket.gethostname()}"


@dataclass(frozen=True)
class FenceOwner:
    """The kgroup run a fencing member belongs to, read from its client id (or member id)."""

    pid: int
    host: str

    def on_this_host(self) -> bool:
        return self.host == socket.gethostname()

    def gone(self) -> bool:
        """True when this is a run of this host whose process no longer exists."""
        if not self.on_this_host():
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        except OSError:  # exists, owned by someone else
            return False
        return False


def fence_owner(member_id: str, client_id: str | None = None) -> FenceOwner | None:
    """Whose fencing member this is, when it is one of kgroup's (pure: no I/O).

    kgroup's fence joins with client id `kgroup-reset-offsets pid N on HOST`; Kafka names the
    member `<client id>-<uuid>`, so the member id alone tells too (DescribeGroups on brokers
    that report no client id). None for any other member.
    """
    candidates = [client_id or ""]
    if len(member_id) > 37 and member_id[-37] == "-":  # "<client id>-<36-character uuid>"
        candidates.append(member_id[:-37])
    for text in candidates:
        found = _LABEL.fullmatch(text)
        if found is not None:
            return FenceOwner(int(found.group(1)), found.group(2))
    return None


def fence_member_note(member_id: str, client_id: str | None = None) -> str | None:
    """What `describe` and `check` say of a kgroup fence member (pure), or None for another."""
    owner = fence_owner(member_id, client_id)
    if owner is None:
        return None
    return (
        f"kgroup reset fence of pid {owner.pid} on {owner.host}, not a consumer: it holds the "
        f"group while that run changes offsets (if the run is gone, the next reset on "
        f"{owner.host} removes it, or Kafka after its session)"
    )


def is_fence_member(member_id: str, client_id: str | None = None) -> bool:
    """Whether a group member is a kgroup reset's fencing member (see `fence_owner`)."""
    return member_id.startswith(CLIENT_ID_PREFIX) or (client_id or "").startswith(CLIENT_ID_PREFIX)


# Errors on a whole OffsetCommit request (every partition carries the same code): nothing written.
_GROUP_LEVEL = frozenset(
    {
        UNKNOWN_MEMBER_ID,
        ILLEGAL_GENERATION,
        REBALANCE_IN_PROGRESS,
        GROUP_AUTHORIZATION_FAILED,
    }
)


class FenceUnavailable(KgroupError):
    """The broker cannot fence this group (no classic membership for it); not a refusal."""


class FenceCancelled(KgroupError):
    """The fence was aborted (Ctrl-C, SIGTERM) before it joined: nothing may be written."""

    exit_code = EXIT_INTERRUPTED


def session_timeout_ms(env: Mapping[str, str] | None = None) -> int:
    raw = (env if env is not None else os.environ).get(SESSION_TIMEOUT_ENV, "")
    if raw.strip():
        try:
            value = int(raw)
        except ValueError:
            value = -1
        if value > 0:
            return value
        from kgroup.core.errors import UsageError

        raise UsageError(
            f"{SESSION_TIMEOUT_ENV}={raw!r} is not a positive number of milliseconds",
            hint=f"unset it, or set it to e.g. {DEFAULT_SESSION_TIMEOUT_MS}",
        )
    return DEFAULT_SESSION_TIMEOUT_MS


@dataclass
class FenceHold:
    """What the coordinator gave kgroup: its member id in the group's current generation."""

    member_id: str
    generation: int


class GroupFence:
    """Join `group_id` alone on a dedicated connection to its coordinator; see module doc."""

    def __init__(self, client, group_id: str, *, session_ms: int | None = None, node=None) -> None:
        self.client = client
        self.group_id = group_id
        self.session_ms = session_ms if session_ms is not None else session_timeout_ms()
        self.hold: FenceHold | None = None
        self._connection = None
        self._node = node  # the coordinator, once found (or given: bulk resets batch the lookup)
        # release() and abort() may race (a worker thread and the main thread on Ctrl-C): the
        # member leaves once.
        self._leave_lock = threading.Lock()
        self._left: set[str] = set()
        self.cancelled = threading.Event()

    # -- lifecycle -------------------------------------------------------------------------------

    def __enter__(self) -> GroupFence:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _open(self, timeout_s: float | None = None):
        node = self._node
        if node is None:
            found = self.client.find_coordinators([self.group_id])[self.group_id]
            if isinstance(found, KgroupError):
                raise found
            node = self._node = found
        connection = self.client.new_connection(node.host, node.port)
        connection.client_id = fence_label()
        if timeout_s is not None:
            connection.timeout_s = min(connection.timeout_s, timeout_s)
        return connection.open(time.monotonic() + connection.timeout_s)

    def acquire(self) -> FenceHold:
        """Become the group's only member, or raise SafetyRefusal naming who else is there.

        A coordinator that moved, is loading or stopped before the join was answered is tried
        again (found again where the rule says so) as Kafka's consumer retries a JoinGroup
        (kgroup.core.wire.retry_policy), within the client's timeout: nothing was written."""
        from kgroup.core.wire.retry_policy import Action, Retries, failure_action

        retries = Retries(self.client.timeout_s, initial_s=self.client.retry_backoff_s)
        while True:
            if self.cancelled.is_set():  # aborted while backing off: joining again would leave
                raise FenceCancelled(  # a member nobody asks to leave
                    f"group {self.group_id}: interrupted before the fence joined"
                )
            try:
                self._connection = self._open()
                self.hold = self._join()
                return self.hold
            except KgroupError as exc:
                self.release()
                decided = failure_action("JoinGroup", exc)
                if decided is Action.FATAL:
                    raise
                if not retries.wait(exc):
                    raise retries.expired(exc) from None
                if decided is Action.NEW_COORDINATOR:
                    self._node = None
            except BaseException:
                self.release()
                raise

    def _join(self) -> FenceHold:
        connection = self._connection
        version = connection.version_for(api_table.JOIN_GROUP)
        sync_version = connection.version_for(api_table.SYNC_GROUP)
        if version is None or sync_version is None:
            raise FenceUnavailable(
                f"the coordinator of group {self.group_id} offers no usable JoinGroup/SyncGroup"
            )
        metadata = encode_subscription(Versioned(0, Subscription()))
        protocols = [(name, metadata) for name in PROTOCOL_NAMES]
        # Runs that joined in the same generation: the leader (the first to join) goes on once
        # the others (which refuse and leave) are gone; a member that is not a kgroup run ends it.
        deadline = time.monotonic() + 2 * self.session_ms / 1000
        member_id = ""
        while True:
            joined = self._join_once(version, member_id, protocols)
            self._raise_join_error(joined.error_code)
            member_id = joined.member_id
            # Noted before the checks below, so that release() leaves the group on a refusal.
            self.hold = FenceHold(member_id, joined.generation_id)
            if joined.leader != member_id:
                # An empty leader: the group is a KIP-848 consumer group with members.
                raise self._occupied([joined.leader or "(consumer-protocol members)"])
            others = sorted({m.member_id for m in joined.members if m.member_id != member_id})
            if not others:
                code = self._sync(sync_version, joined, member_id)
                if code == NONE:
                    return self.hold
                if code != REBALANCE_IN_PROGRESS or time.monotonic() > deadline:
                    self._raise_lost(code)
                continue  # someone left or joined meanwhile: join again and look
            if not all(mid.startswith(CLIENT_ID_PREFIX) for mid in others):
                raise self._occupied(others)
            if time.monotonic() > deadline or self.cancelled.wait(0.2):
                raise self._occupied(others)

    def _join_once(
        self, version: int, member_id: str, protocols: list[tuple[str, bytes]]
    ) -> JoinGroupResponse:
        from kgroup.protocol.generated.wire import join_group_response

        # The coordinator may hold a join for its rebalance delay (group.initial.rebalance.delay.ms)
        # or until the rebalance ends: Kafka's consumer waits rebalance timeout + 5 s for it
        # (AbstractCoordinator.sendJoinGroupRequest, JOIN_GROUP_TIMEOUT_LAPSE), never less than
        # its request timeout.
        join_timeout_s = max(self._connection.timeout_s, self.session_ms / 1000 + 5)
        for _attempt in range(3):
            body = self._connection.call(
                api_table.JOIN_GROUP,
                version,
                encode_join_group_request(
                    version,
                    self.group_id,
                    member_id,
                    session_timeout_ms=self.session_ms,
                    rebalance_timeout_ms=self.session_ms,
                    protocol_type=PROTOCOL_TYPE,
                    protocols=protocols,
                    reason="kgroup fences the group while it changes committed offsets",
                ),
                timeout_s=join_timeout_s,
            )
            joined = read_answer(join_group_response, body, version)
            if joined.member_id:
                # Known to the coordinator from now on: release() must leave even if the
                # next call is interrupted (Ctrl-C during the join's rebalance delay).
                self.hold = FenceHold(joined.member_id, joined.generation_id)
            if joined.error_code != MEMBER_ID_REQUIRED:
                return joined
            member_id = joined.member_id  # KIP-394: join again with the id given
        return joined

    def _sync(self, sync_version: int, joined: JoinGroupResponse, member_id: str) -> int:
        body = self._connection.call(
            api_table.SYNC_GROUP,
            sync_version,
            encode_sync_group_request(
                sync_version,
                self.group_id,
                joined.generation_id,
                member_id,
                protocol_type=PROTOCOL_TYPE,
                protocol_name=joined.protocol_name,
                assignments=[(member_id, encode_assignment(Versioned(0, Assignment())))],
            ),
        )
        from kgroup.protocol.generated.wire import sync_group_response

        return read_answer(sync_group_response, body, sync_version).error_code

    def _occupied(self, others: list[str]) -> SafetyRefusal:
        listed = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
        if all(mid.startswith(CLIENT_ID_PREFIX) for mid in others):
            return SafetyRefusal(
                f"another kgroup run is changing the offsets of group {self.group_id} right now "
                f"(member {listed})",
                hint="nothing was committed; wait for it to finish, then make a new plan",
            )
        return SafetyRefusal(
            f"group {self.group_id} is not empty: member(s) {listed} joined it",
            hint="nothing was committed; stop the group's consumers first, then retry",
        )

    def _raise_join_error(self, code: int) -> None:
        if code == NONE:
            return
        name = error_name(code)
        if code == INCONSISTENT_GROUP_PROTOCOL:
            raise SafetyRefusal(
                f"group {self.group_id} has active members of another protocol ({name})",
                hint="stop the group's members first, then retry",
            )
        if code == GROUP_AUTHORIZATION_FAILED:
            raise AuthorizationError(
                f"not authorized to join group {self.group_id} to fence it ({name})",
                hint=f"ask for an ACL granting Read on Group:{self.group_id}",
            )
        if code == INVALID_SESSION_TIMEOUT:
            raise KafkaOperationError(
                f"the coordinator refused a fence session of {self.session_ms} ms ({name})",
                hint=f"set {SESSION_TIMEOUT_ENV} within the broker's group.min/max.session."
                "timeout.ms",
            )
        if code in (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS):
            self._raise_lost(code)
        if code == UNSUPPORTED_VERSION:
            raise FenceUnavailable(f"the coordinator cannot fence group {self.group_id} ({name})")
        # Anything else (coordinator moving or loading, group full, server error) is an error,
        # never a silent fall back to an unfenced commit.
        error = KafkaOperationError(
            f"cannot join group {self.group_id} to fence it for the reset ({name})",
            hint="nothing was committed; retry in a moment",
        )
        error.kafka_error = name  # type: ignore[attr-defined]  # retry_policy decides on it
        raise error

    def _raise_lost(self, code: int) -> None:
        raise SafetyRefusal(
            f"another member joined group {self.group_id} while kgroup was fencing it "
            f"({error_name(code)})",
            hint="nothing was committed; stop the other writer or consumers, then retry",
        )

    def commit(self, offsets: Mapping[TopicPartition, CommittedOffset]) -> None:
        """Commit as the fencing member: the coordinator refuses it if anyone joined since."""
        if self.hold is None or self._connection is None:
            raise KafkaOperationError(f"group {self.group_id} is not fenced")
        connection = self._connection
        version = connection.version_for(api_table.OFFSET_COMMIT)
        if version is None:
            raise KafkaOperationError(
                f"the coordinator of group {self.group_id} offers no usable OffsetCommit"
            )
        from kgroup.core.wire.client import commit_rows

        rows = commit_rows(offsets)
        body = connection.call(
            api_table.OFFSET_COMMIT,
            version,
            encode_offset_commit_request(
                version,
                self.group_id,
                rows,
                generation=self.hold.generation,
                member_id=self.hold.member_id,
            ),
        )
        answers = decode_offset_commit_response(body, version)
        failed = [(t, p, code) for t, p, code in answers if code != NONE]
        if not failed:
            return
        lost = [code for _t, _p, code in failed if code in _GROUP_LEVEL]
        if lost:
            self._raise_lost(lost[0])  # the whole request was refused: nothing was written
        from kgroup.core.wire.client import commit_error

        topic, partition, code = failed[0]
        error = commit_error(code, self.group_id, TopicPartition(topic, partition))
        # Kafka writes the partitions it accepted and refuses the others one by one.
        error.written = [  # type: ignore[attr-defined]
            TopicPartition(t, p) for t, p, c in answers if c == NONE
        ]
        raise error

    # -- reads on the fence's own connection ---------------------------------------------------
    # The compare-and-set read, the read-back and the last look at the members go to the
    # coordinator on this connection: each group's fence has its own, so a bulk reset's groups
    # never queue behind one another on a shared one (a slow answer for one group held every
    # group of its coordinator). None: this connection cannot tell (closed, coordinator moved,
    # a KIP-848 group); the caller then asks through the client, which finds the coordinator.

    def committed_offsets(self) -> dict[TopicPartition, CommittedOffset] | None:
        """The group's committed offsets ({} for a group Kafka does not know), or None."""
        from kgroup.core.errors import NotFoundError, UnreachableError
        from kgroup.core.wire.convert import to_committed_offsets

        connection = self._connection
        version = connection.version_for(api_table.OFFSET_FETCH) if connection is not None else None
        if version is None or not connection.is_open:
            return None
        try:
            body = connection.call(
                api_table.OFFSET_FETCH,
                version,
                encode_offset_fetch_request(version, [self.group_id]),
            )
        except UnreachableError:
            return None
        answers = decode_offset_fetch_response(body, version, [self.group_id])
        answer = next(
            (to_committed_offsets(g) for g in answers if g.group_id == self.group_id), None
        )
        if isinstance(answer, NotFoundError):
            return {}
        if isinstance(answer, KgroupError):
            raise answer
        return answer if isinstance(answer, dict) else None

    def describe(self):
        """The group as DescribeGroups answers it here, while it is the classic group this fence
        is a member of; else None (converted, moved, connection gone)."""
        from kgroup.core.errors import UnreachableError
        from kgroup.core.wire.convert import to_group_description

        connection, hold = self._connection, self.hold
        version = (
            connection.version_for(api_table.DESCRIBE_GROUPS) if connection is not None else None
        )
        if version is None or hold is None or not connection.is_open:
            return None
        try:
            body = connection.call(
                api_table.DESCRIBE_GROUPS,
                version,
                encode_describe_groups_request(version, [self.group_id]),
            )
        except UnreachableError:
            return None
        from kgroup.protocol.generated.wire import describe_groups_response

        for group in read_answer(describe_groups_response, body, version).groups:
            if group.group_id == self.group_id and group.error_code == NONE:
                described = to_group_description(group, self._node)
                if any(mb.member_id == hold.member_id for mb in described.members):
                    return described
        return None

    def still_alone(self, description) -> str | None:
        """None if the group is still the classic group kgroup holds alone; else what changed
        (a member joined, or a KIP-848 consumer converted the group while kgroup held it)."""
        if self.hold is None:
            return "kgroup no longer holds the group"
        if description.type not in (None, "classic"):
            return f"the group became a {description.type} group (a consumer joined)"
        # Another kgroup run that joined meanwhile waits for its join until kgroup left, then
        # makes its own compare-and-set read: it never writes stale offsets over these.
        others = [
            m.member_id
            for m in description.members
            if m.member_id != self.hold.member_id and not is_fence_member(m.member_id, m.client_id)
        ]
        if others:
            return f"member(s) {', '.join(others[:5])} joined it"
        return None

    def release(self) -> None:
        """Leave the group (best effort: an expired session leaves it as well). On a fresh
        connection when the old one died mid-call (Ctrl-C, timeout)."""
        connection, self._connection = self._connection, None
        hold, self.hold = self.hold, None
        if hold is None:
            if connection is not None:
                connection.close()
            return
        try:
            if connection is None or not connection.is_open:
                if connection is not None:
                    connection.close()
                connection = self._open(RELEASE_TIMEOUT_S)
            self._leave(connection, hold.member_id)
        except (KgroupError, OSError):
            pass  # the session expires after session_ms; the commit outcome stands
        finally:
            if connection is not None:
                connection.close()

    def abort(self) -> str | None:
        """From another thread (Ctrl-C while this fence joins or holds): stop waiting for other
        kgroup runs, and leave the group by member id on a fresh connection, which also ends a
        JoinGroup the coordinator holds (it answers UNKNOWN_MEMBER_ID). The member id is known
        from the coordinator's first answer (MEMBER_ID_REQUIRED, KIP-394). Returns the member id
        that was asked to leave, or None when there was none yet."""
        self.cancelled.set()
        hold = self.hold
        if hold is None:
            return None
        connection = None
        try:
            connection = self._open(RELEASE_TIMEOUT_S)
            self._leave(connection, hold.member_id)
        except (KgroupError, OSError):
            pass
        finally:
            if connection is not None:
                connection.close()
        return hold.member_id

    def _leave(self, connection, member_id: str) -> None:
        with self._leave_lock:
            if member_id in self._left:
                return
            self._left.add(member_id)
        send_leave(connection, self.group_id, [member_id], "kgroup is done")


def send_leave(connection, group_id: str, member_ids: Sequence[str], reason: str) -> None:
    """LeaveGroup for each of `member_ids` on `connection` (one request per member). Kafka
    removes the member named, a pending one (MEMBER_ID_REQUIRED, not yet joined) too."""
    version = connection.version_for(api_table.LEAVE_GROUP)
    if version is None:
        return
    for member_id in member_ids:
        connection.call(
            api_table.LEAVE_GROUP,
            version,
            encode_leave_group_request(version, group_id, member_id, reason),
        )


def remove_members(client, group_id: str, member_ids: Sequence[str]) -> None:
    """Remove left-behind members of `group_id` by member id (LeaveGroup on a connection of its
    own to the coordinator): what `abort()` does for a member this process still knows, for a
    member whose kgroup run is gone."""
    fence = GroupFence(client, group_id)
    connection = fence._open()
    try:
        send_leave(connection, group_id, member_ids, "kgroup removes a fence member left behind")
    finally:
        connection.close()


__all__ = [
    "DEFAULT_SESSION_TIMEOUT_MS",
    "FenceOwner",
    "FenceUnavailable",
    "GroupFence",
    "ShareGroupFence",
    "fence_label",
    "fence_member_note",
    "fence_owner",
    "is_fence_member",
    "remove_members",
    "send_leave",
    "session_timeout_ms",
]


NOT_FENCED = (
    "share groups have no classic membership to hold; Kafka refuses the change while the "
    "group has members (NON_EMPTY_GROUP)"
)


STREAMS_NOT_FENCED = (
    "streams groups have no classic membership to hold; Kafka refuses the change while the "
    "group has members"
)


class ShareGroupFence:
    """The fence `GroupAdmin.group_fence` gives for a share or streams group: none can be held
    (no classic membership to join)."""

    def __init__(self, group_id: str, group_type: str = "share") -> None:
        self.group_id = group_id
        self.reason = STREAMS_NOT_FENCED if group_type == "streams" else NOT_FENCED

    def acquire(self) -> None:
        raise FenceUnavailable(self.reason)

    def release(self) -> None:
        return None

    def abort(self) -> str | None:
        """Ctrl-C / SIGTERM (kgroup.reset.apply._stop): no member was joined, none leaves."""
        return None
