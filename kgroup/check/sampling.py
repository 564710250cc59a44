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
from kgroup.core.models import TopicPartition

Pair = tuple[str, int]  # (topic, partition): hashed in C, unlike TopicPartition
Committed = dict[str, dict[Pair, int] | KgroupError]


@dataclass(frozen=True)
class Round:
    """One sampling round: when, each group's committed offsets by partition (or its error),
    and the log ends; offsets only, so a round of a large fleet stays small."""

    timestamp_ms: int
    committed: Committed
    log_ends: dict[Pair, int]


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
    chunk: int = 2000,
    pairs: dict[Pair, Pair] | None = None,
) -> list[Round]:
    """`samples` rounds, the first now and the last `window_ms` later, evenly spaced.
    `on_round(done, total, seconds_left)` follows the progress. `first`: committed offsets
    just read (some or all of the groups' lookup, as `compact` keeps them), taken as the first
    round's instead of asking again. Offsets are asked `chunk` groups at a time, each answer
    kept as offsets by pair (`pairs`: the pairs `first` was compacted with)."""
    interval_s = window_ms / 1000 / max(1, samples - 1)
    start = clock()
    rounds = []
    if pairs is None:  # one tuple per partition, shared by every group and round
        pairs = {}
    if on_round is not None:
        on_round(0, samples, (samples - 1) * interval_s)
    for index in range(samples):
        wait = start + index * interval_s - clock()
        if wait > 0:
            sleep(wait)
        now_ms = int(clock() * 1000)
        committed: Committed = first if index == 0 and first is not None else {}
        first = None
        rest = [g for g in group_ids if g not in committed]
        for at in range(0, len(rest), chunk):
            for group, offsets in admin.committed_offsets_many(rest[at : at + chunk]).items():
                committed[group] = compact(offsets, pairs)
        wanted = sorted(
            {
                pair
                for offsets in committed.values()
                if not isinstance(offsets, KgroupError)
                for pair in offsets
                if pair[1] < partition_counts.get(pair[0], 0)
            }
        )
        tps = [TopicPartition(t, p) for t, p in wanted]
        answer = admin.list_offsets(tps, "latest") if tps else {}
        ends = {(tp.topic, tp.partition): a.offset for tp, a in answer.items()}
        rounds.append(Round(now_ms, committed, ends))
        if on_round is not None:
            left = max(0.0, start + (samples - 1) * interval_s - clock())
            on_round(index + 1, samples, left)
    return rounds


def compact(offsets: Any, pairs: dict[Pair, Pair]) -> dict[Pair, int] | KgroupError:
    """A group's committed offsets as offsets by (topic, partition) (an error as it is)."""
    if isinstance(offsets, KgroupError):
        return offsets
    out = {}
    for tp, c in offsets.items():
        key = (tp.topic, tp.partition)
        out[pairs.setdefault(key, key)] = c.offset
    return out
