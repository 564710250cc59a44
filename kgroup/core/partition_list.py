"""Partition lists as users write them (`0-2,5`), kept as ranges so size never costs memory.

`--topic orders:0-99999999` is two integers here, not a hundred million: callers clip a set to a
topic's partition count (`within`) before anything is expanded, and report what lies beyond it
(`beyond`) as ranges too.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

from kgroup.core.errors import UsageError

# Kafka partition ids are int32 (org.apache.kafka.common.TopicPartition#partition).
MAX_PARTITION = 2**31 - 1


@dataclass(frozen=True, slots=True)
class PartitionSet:
    """Partition ids as sorted, disjoint, non-adjacent inclusive ranges `(first, last)`."""

    ranges: tuple[tuple[int, int], ...]

    @classmethod
    def of(cls, partitions: Iterable[int]) -> PartitionSet:
        """The set of the given ids."""
        return cls(_merged((p, p) for p in partitions))

    @classmethod
    def of_ranges(cls, ranges: Iterable[tuple[int, int]]) -> PartitionSet:
        """The union of inclusive ranges `(first, last)`."""
        return cls(_merged(ranges))

    def __contains__(self, partition: object) -> bool:
        if not isinstance(partition, int):
            return False
        i = bisect_right(self.ranges, (partition, MAX_PARTITION + 1)) - 1
        return i >= 0 and self.ranges[i][0] <= partition <= self.ranges[i][1]

    def within(self, count: int) -> list[int]:
        """The ids below `count` (a topic's partition count), ascending; at most `count` ids."""
        return [p for first, last in self.ranges for p in range(first, min(last, count - 1) + 1)]

    def beyond(self, count: int) -> list[str]:
        """The ids at or above `count`, as `5` or `5-99999999` texts."""
        out = []
        for first, last in self.ranges:
            if last >= count:
                start = max(first, count)
                out.append(str(start) if start == last else f"{start}-{last}")
        return out

    def __str__(self) -> str:
        return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in self.ranges)


def _merged(ranges: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if out and first <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return tuple(out)


def parse_partitions(text: str, *, option: str, value: str) -> PartitionSet:
    """`0,2`, `0-2,5` -> PartitionSet; anything else is a usage error naming `value`.

    `option` and `value` (the whole option value, e.g. `orders:2-0`) only shape the message.
    """

    def bad(why: str) -> UsageError:
        return UsageError(
            f"{option} '{value}': {why}",
            hint=f"partitions are non-negative integers or ranges, e.g. {option} orders:0-2,5",
        )

    def number(digits: str, part: str) -> int:
        if not digits.isascii() or not digits.isdigit():
            raise bad(f"'{part}' is not a partition or a range FIRST-LAST")
        n = int(digits)
        if n > MAX_PARTITION:
            raise bad(f"partition {digits} is above Kafka's largest id {MAX_PARTITION}")
        return n

    ranges = []
    for raw in text.split(","):
        part = raw.strip()
        first, dash, last = part.partition("-")
        a = number(first.strip(), part)
        b = number(last.strip(), part) if dash else a
        if b < a:
            raise bad(f"range '{part}' ends before it starts")
        ranges.append((a, b))
    return PartitionSet(_merged(ranges))
