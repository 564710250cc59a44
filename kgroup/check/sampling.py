"""Sampling: when the commits cannot be read, ask the cluster `--samples` times across
`--window` for every group's committed offsets (OffsetFetch, batched per coordinator) and the
log end of every committed partition (ListOffsets, batched per leader). The request count per
round does not grow with the number of groups beyond what describe sends.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kgroup.core.errors import KgroupError
from kgroup.core.models import CommittedOffset, TopicPartition

Committed = dict[str, dict[TopicPartition, CommittedOffset] | KgroupError]


@dataclass(frozen=True)
class Round:
    """One sampling round: when, each group's committed offsets (or error), the log ends."""

    timestamp_ms: int
    committed: Committed
    log_ends: dict[TopicPartition, int]


def sample(
    admin: Any,
    group_ids: Sequence[str],
    partition_counts: dict[str, int],
    *,
    samples: int,
    window_ms: int,
    on_round: Callable[[int, int, float], None] | None = None,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
    first: Committed | None = None,
) -> list[Round]:
    """`samples` rounds, the first now and the last `window_ms` later, evenly spaced.
    `on_round(done, total, seconds_left)` follows the progress. `first`: the committed offsets
    just read (the groups' lookup), taken as the first round's instead of asking again."""
    interval_s = window_ms / 1000 / max(1, samples - 1)
    start = clock()
    rounds = []
    if on_round is not None:
        on_round(0, samples, (samples - 1) * interval_s)
    for index in range(samples):
        wait = start + index * interval_s - clock()
        if wait > 0:
            sleep(wait)
        now_ms = int(clock() * 1000)
        if index == 0 and first is not None:
            committed, first = first, None
        else:
            committed = admin.committed_offsets_many(list(group_ids))
        partitions = sorted(
            {
                tp
                for offsets in committed.values()
                if not isinstance(offsets, KgroupError)
                for tp in offsets
                if tp.partition < partition_counts.get(tp.topic, 0)
            }
        )
        answer = admin.list_offsets(partitions, "latest") if partitions else {}
        rounds.append(Round(now_ms, committed, {tp: a.offset for tp, a in answer.items()}))
        if on_round is not None:
            left = max(0.0, start + (samples - 1) * interval_s - clock())
            on_round(index + 1, samples, left)
    return rounds
