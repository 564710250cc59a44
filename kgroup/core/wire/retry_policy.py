"""Which failures of a group request are worth retrying, and how: Kafka's clients' rules, in one
table, and the backoff and deadline of the retries.

For each group API kgroup sends, an error code is one of three things (`Action`):
- NEW_COORDINATOR: the group's coordinator moved or is unavailable (NOT_COORDINATOR,
  COORDINATOR_NOT_AVAILABLE): find the coordinator again (FindCoordinator), then retry there;
- IN_PLACE: the coordinator is busy (COORDINATOR_LOAD_IN_PROGRESS after it took over the group's
  partition of __consumer_offsets; REBALANCE_IN_PROGRESS / UNSTABLE_OFFSET_COMMIT where the API
  allows): retry on the same coordinator after a backoff;
- FATAL: any other code is the answer.

Each rule names the Kafka client class it comes from (apache/kafka, clients/src/main/java/org/
apache/kafka/clients/: the Admin client's handlers under admin/internals/, the consumer's
ConsumerCoordinator and AbstractCoordinator under consumer/internals/). A connection that fails
(refused, closed, reset) is NEW_COORDINATOR for every group request, as AdminApiDriver.onFailure
does on a DisconnectException ("this gives us a chance to find a new coordinator").

Retries last until the operation's deadline (--timeout), with Kafka's default exponential backoff
(retry.backoff.ms 100, retry.backoff.max.ms 1000, factor 2, jitter 0.2: ExponentialBackoff); when
time runs out the last error is the answer, saying how long it was retried.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from enum import Enum

from kgroup.core.errors import KgroupError, UnreachableError
from kgroup.core.wire.connection import BrokerTimeout
from kgroup.core.wire.error_codes import (
    COORDINATOR_LOAD_IN_PROGRESS,
    COORDINATOR_NOT_AVAILABLE,
    ERROR_NAMES,
    FENCED_LEADER_EPOCH,
    LEADER_NOT_AVAILABLE,
    NOT_COORDINATOR,
    NOT_LEADER_OR_FOLLOWER,
    OFFSET_NOT_AVAILABLE,
    REBALANCE_IN_PROGRESS,
    REPLICA_NOT_AVAILABLE,
    UNKNOWN_LEADER_EPOCH,
    UNSTABLE_OFFSET_COMMIT,
)

# Kafka's client defaults (CommonClientConfigs: retry.backoff.ms, retry.backoff.max.ms) and
# ExponentialBackoff's multiplier and jitter as the clients use them.
BACKOFF_INITIAL_S = 0.1
BACKOFF_MAX_S = 1.0
BACKOFF_FACTOR = 2.0
BACKOFF_JITTER = 0.2
# The last backoff ends this long before the deadline, so that a last try still fits.
LAST_TRY_S = 0.05


# Partition errors after which asking the partition's leader again, with fresh metadata, can
# succeed: the leader moved or is being elected (the Java admin client's ListOffsetsHandler
# retries these after a metadata refresh too). ListOffsets and Fetch (`leaders`, `log_copy`).
RETRIABLE_LEADER_ERRORS = frozenset(
    {
        LEADER_NOT_AVAILABLE,
        NOT_LEADER_OR_FOLLOWER,
        REPLICA_NOT_AVAILABLE,
        FENCED_LEADER_EPOCH,
        UNKNOWN_LEADER_EPOCH,
        OFFSET_NOT_AVAILABLE,
    }
)


class Action(Enum):
    """What to do after a failed group request."""

    NEW_COORDINATOR = "find the coordinator again, then retry"
    IN_PLACE = "retry on the same coordinator"
    FATAL = "final"


_MOVED = frozenset({NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE})
_LOADING = frozenset({COORDINATOR_LOAD_IN_PROGRESS})


@dataclass(frozen=True)
class ApiRule:
    """One API's retriable error codes and the Kafka class the rule comes from."""

    api: str
    new_coordinator: frozenset[int]
    in_place: frozenset[int]
    source: str

    def action(self, code: int) -> Action:
        if code in self.new_coordinator:
            return Action.NEW_COORDINATOR
        if code in self.in_place:
            return Action.IN_PLACE
        return Action.FATAL


def _rule(
    api: str, source: str, *, new: frozenset[int] = _MOVED, in_place: frozenset[int] = _LOADING
) -> ApiRule:
    return ApiRule(api, new, in_place, source)


RULES: dict[str, ApiRule] = {
    rule.api: rule
    for rule in (
        _rule(
            "FindCoordinator",
            "admin/internals/CoordinatorStrategy.handleError (COORDINATOR_NOT_AVAILABLE and "
            "COORDINATOR_LOAD_IN_PROGRESS: retry the lookup)",
            new=frozenset(),
            in_place=frozenset({COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS}),
        ),
        _rule(
            "ListGroups",
            "admin/KafkaAdminClient.listConsumerGroups (COORDINATOR_LOAD_IN_PROGRESS and "
            "COORDINATOR_NOT_AVAILABLE are thrown as retriable: the call to that broker is "
            "retried)",
            new=frozenset(),
            in_place=frozenset({COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS}),
        ),
        _rule(
            "OffsetFetch",
            "admin/internals/ListConsumerGroupOffsetsHandler.handleGroupError; "
            "UNSTABLE_OFFSET_COMMIT: consumer/internals/ConsumerCoordinator."
            "OffsetFetchResponseHandler (retriable, KIP-447)",
            in_place=frozenset({COORDINATOR_LOAD_IN_PROGRESS, UNSTABLE_OFFSET_COMMIT}),
        ),
        _rule(
            "OffsetCommit",
            "admin/internals/AlterConsumerGroupOffsetsHandler.handleError (an administrative "
            "commit: COORDINATOR_LOAD_IN_PROGRESS and REBALANCE_IN_PROGRESS retried in place)",
            in_place=frozenset({COORDINATOR_LOAD_IN_PROGRESS, REBALANCE_IN_PROGRESS}),
        ),
        _rule(
            "OffsetCommit (member)",
            "consumer/internals/ConsumerCoordinator.OffsetCommitResponseHandler (a member's "
            "commit: REBALANCE_IN_PROGRESS, UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION fail it)",
        ),
        _rule(
            "DescribeGroups",
            "admin/internals/DescribeClassicGroupsHandler / DescribeConsumerGroupsHandler."
            "handleError",
        ),
        _rule(
            "ConsumerGroupDescribe",
            "admin/internals/DescribeConsumerGroupsHandler.handleError",
        ),
        _rule(
            "OffsetDelete",
            "admin/internals/DeleteConsumerGroupOffsetsHandler.handleGroupError",
        ),
        _rule(
            "DeleteGroups",
            "admin/internals/DeleteConsumerGroupsHandler.handleError (kgroup.core.wire."
            "delete_groups, for every group type; librdkafka, which deleted groups before and "
            "still does where kgroup's client cannot go, retries only the coordinator lookup "
            "and returns a group's NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS as its error)",
        ),
        _rule(
            "JoinGroup",
            "consumer/internals/AbstractCoordinator.JoinGroupResponseHandler "
            "(MEMBER_ID_REQUIRED and UNKNOWN_MEMBER_ID: join again, the fence's own loop)",
        ),
        _rule(
            "SyncGroup",
            "consumer/internals/AbstractCoordinator.SyncGroupResponseHandler "
            "(REBALANCE_IN_PROGRESS: join again, the fence's own loop)",
            in_place=frozenset(),
        ),
        _rule(
            "Heartbeat",
            "consumer/internals/AbstractCoordinator.HeartbeatResponseHandler (kgroup sends no "
            "Heartbeat: the fence holds a group for less than its session)",
            in_place=frozenset(),
        ),
        _rule(
            "LeaveGroup",
            "consumer/internals/AbstractCoordinator.maybeLeaveGroup (sent once, best effort: "
            "the session expires anyway)",
            new=frozenset(),
            in_place=frozenset(),
        ),
    )
}


def action(api: str, code: int) -> Action:
    """What Kafka's clients do after `api` answered error `code`."""
    return RULES[api].action(code)


def connection_retriable(error: BaseException) -> bool:
    """Whether a broker's failed connection is worth a retry elsewhere (after the coordinator or
    leader is looked up again): refused or closed, not timed out (the deadline is spent) nor
    closed again on a fresh connection for the same request (`repeated`: it refuses it)."""
    return (
        isinstance(error, UnreachableError)
        and not isinstance(error, BrokerTimeout)
        and not getattr(error, "repeated", False)
    )


def failure_action(api: str, error: KgroupError) -> Action:
    """What to do after `api` failed with `error` (raised rather than answered): a connection
    that failed is NEW_COORDINATOR (AdminApiDriver.onFailure), unless it timed out or the broker
    closed a fresh connection on the same request too (`repeated`: it refuses the request); an
    error carrying Kafka's error name follows `api`'s rule; anything else is FATAL."""
    if isinstance(error, UnreachableError):
        return Action.NEW_COORDINATOR if connection_retriable(error) else Action.FATAL
    name = getattr(error, "kafka_error", None)
    codes = [code for code, known in ERROR_NAMES.items() if known == name]
    return action(api, codes[0]) if codes else Action.FATAL


@dataclass
class Retries:
    """The retry budget of one operation: its deadline, the backoff, the last error.

    `wait()` sleeps the next backoff (never past the deadline) and says whether another try
    fits; `expired(error)` is `error` saying it was retried until the deadline."""

    timeout_s: float
    initial_s: float = BACKOFF_INITIAL_S
    started: float = field(default_factory=time.monotonic)
    attempts: int = 0
    last: KgroupError | None = None

    @property
    def deadline(self) -> float:
        return self.started + self.timeout_s

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def backoff_s(self) -> float:
        """Kafka's ExponentialBackoff: 100 ms doubling to 1 s, +-20 % jitter (`initial_s` scales
        both ends)."""
        ceiling = self.initial_s * BACKOFF_MAX_S / BACKOFF_INITIAL_S
        base = min(self.initial_s * BACKOFF_FACTOR ** max(self.attempts - 1, 0), ceiling)
        return base * random.uniform(1 - BACKOFF_JITTER, 1 + BACKOFF_JITTER)

    def wait(self, error: KgroupError | None = None) -> bool:
        """After failed try number `attempts`: back off; False when no time is left."""
        self.attempts += 1
        if error is not None:
            self.last = error
        remaining = self.remaining()
        if remaining <= LAST_TRY_S:
            return False
        time.sleep(min(self.backoff_s(), remaining - LAST_TRY_S))
        return True

    def expired(self, error: KgroupError) -> KgroupError:
        """`error`, the last of several tries, saying for how long it was retried."""
        if self.attempts <= 1 or getattr(error, "retried", False):
            return error
        error.message = (
            f"{error.message.rstrip('.')} (still failing after {self.attempts} tries in "
            f"{time.monotonic() - self.started:.1f} s; --timeout {self.timeout_s:g})"
        )
        error.retried = True  # type: ignore[attr-defined]
        return error


__all__ = [
    "RULES",
    "Action",
    "ApiRule",
    "Retries",
    "action",
    "connection_retriable",
    "failure_action",
]
