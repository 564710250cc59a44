"""The answers kgroup reads its own way, and the request constants it sends.

Most answers are read as their generated message classes (`kgroup.protocol.generated.wire`,
`calls.read_answer`) and made models by `convert`. The types here carry kgroup's own
decisions or sit on describe's hot path: FindCoordinator's coordinators by key (one shape for
v1-v3 and v4+), OffsetFetch's partitions flattened for `convert.to_committed_offsets` (sorted
by a C itemgetter; one group shape for v2-v7 and v8+), ListOffsets' and Fetch's partitions
flattened for the leaders' retries, and a fetch's positions. Named tuples: immutable, compared
and hashed by value, and made at import without the generated code each dataclass costs
(~1.4 ms apiece). The constants cite their Kafka class; error codes are `error_codes`.
"""

from __future__ import annotations

from typing import NamedTuple

# --- ListOffsets v1-v8 ---------------------------------------------------------------------------

EARLIEST_TIMESTAMP = -2  # ListOffsetsRequest.EARLIEST_TIMESTAMP: the log start offset
LATEST_TIMESTAMP = -1  # ListOffsetsRequest.LATEST_TIMESTAMP: the log end (or last stable) offset
READ_UNCOMMITTED = 0  # IsolationLevel
READ_COMMITTED = 1


class ListedOffset(NamedTuple):
    topic: str
    partition: int
    error_code: int
    timestamp: int
    offset: int
    leader_epoch: int = -1


# --- FindCoordinator v1-v4 -----------------------------------------------------------------------

KEY_TYPE_GROUP = 0


class CoordinatorResult(NamedTuple):
    key: str
    node_id: int
    host: str
    port: int
    error_code: int
    error_message: str | None


# --- DescribeConfigs v1-v2 -----------------------------------------------------------------------

RESOURCE_TOPIC = 2  # org.apache.kafka.common.config.ConfigResource.Type.TOPIC


# --- OffsetFetch v2-v8 ---------------------------------------------------------------------------


class FetchedOffset(NamedTuple):
    """One partition of an OffsetFetch answer (a named tuple: as immutable as a frozen dataclass
    and ~5x cheaper to make; an OffsetFetch for a fleet carries 100,000 of them)."""

    topic: str
    partition: int
    offset: int
    leader_epoch: int
    metadata: str | None
    error_code: int


class FetchedGroup(NamedTuple):
    group_id: str
    error_code: int
    partitions: list[FetchedOffset]


# --- Fetch v4-v11 (FetchRequest.json / FetchResponse.json) -------------------------------------
# A consumer's fetch without a fetch session (KIP-227: SessionId 0, SessionEpoch -1 = a full
# fetch request that opens no session), ReplicaId -1, CurrentLeaderEpoch -1 (KIP-320: no
# fencing). Used to read the first record a consumer would get at an offset.

FETCH_MAX_BYTES = 52428800  # ConsumerConfig fetch.max.bytes default (KIP-74)
# ConsumerConfig fetch.max.wait.ms default. With MinBytes 0 Kafka answers at once with what it
# has; tansu answers MaxWaitMs 0 with no partitions at all and fills partitions only until the
# wait runs out (TEST_ENVIRONMENT.md), so the wait must leave it time.
FETCH_MAX_WAIT_MS = 500


class FetchPosition(NamedTuple):
    """One partition to fetch: where from and at most how many bytes (KIP-74: the broker still
    returns the first batch whole when it is larger, for the first partition of a response)."""

    topic: str
    partition: int
    offset: int
    max_bytes: int


class FetchedPartition(NamedTuple):
    topic: str
    partition: int
    error_code: int
    high_watermark: int
    last_stable_offset: int  # -1 when unknown (4+)
    log_start_offset: int  # -1 when unknown or before v5
    # (producer id, first offset) of the aborted transactions in the fetched range (read_committed
    # only; None otherwise)
    aborted: tuple[tuple[int, int], ...] | None
    records: bytes
