"""Run `kgroup describe`: choose the groups, then describe them chunk by chunk, as an iterator.

The CLI renders what `DescribeRun` yields while it comes (kgroup/cli/describe.py), and then
calls `raise_outcome`: exit 3 when a named group does not exist (and nothing else failed), 1 when
any group failed otherwise (with --all-groups / --match also when a listed group turned out
missing: the others were described), 5 when --fail-on-lag finds a partition over the limit.

Groups are described CHUNK_GROUPS at a time (one DescribeGroups, OffsetFetch and ListOffsets
round per chunk), so memory does not grow with the fleet: a chunk's results are dropped once
printed. Fleets up to CHUNK_GROUPS groups send the same requests as before.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kgroup.core.collector import fewer_collections
from kgroup.core.errors import CheckFailed
from kgroup.describe.engine import GroupLag

if TYPE_CHECKING:
    from kgroup.core.admin import GroupAdmin
    from kgroup.core.partition_list import PartitionSet
    from kgroup.describe.collect import Selection

CHUNK_GROUPS = 2000
SHOWN_OVER_LAG = 5  # partitions over --fail-on-lag named in the error


@dataclass
class DescribeOptions:
    """What `kgroup describe` was asked."""

    groups: list[str]
    all_groups: bool = False
    match: str | None = None
    view: str = "offsets"
    # members view: add each member's assignment (--assignments; the global -v does it too)
    assignments: bool = False
    # --topic filter: topic -> its partitions (None: every partition); empty: no filter.
    topics: dict[str, PartitionSet | None] = field(default_factory=dict)
    lag_time: bool = False
    read_committed: bool = False
    fail_on_lag: int | None = None
    watch: float | None = None


@dataclass
class DescribeRun:
    """The described groups, produced while they are iterated (once), and the run's outcome."""

    request: DescribeOptions
    selection: Selection
    _groups: Iterator[GroupLag]
    failed: list[tuple[str, str | None]] = field(default_factory=list)
    seen: int = 0
    over_lag: list[str] = field(default_factory=list)  # the first SHOWN_OVER_LAG, as text
    over_lag_count: int = 0

    def __iter__(self) -> Iterator[GroupLag]:
        limit = self.request.fail_on_lag
        for group in self._groups:
            self.seen += 1
            if group.error:
                self.failed.append((group.group, group.error_kind))
            if limit is not None:
                for r in group.rows:
                    if r.lag is not None and r.lag > limit:
                        self.over_lag_count += 1
                        if len(self.over_lag) < SHOWN_OVER_LAG:
                            self.over_lag.append(f"{r.group} {r.topic}:{r.partition} lag {r.lag}")
            yield group

    def raise_outcome(self) -> None:
        """Raise the error whose exit code the run ends with (none: exit 0)."""
        from kgroup.core.errors import failed_groups_error

        error = failed_groups_error(
            self.failed, self.seen, listed=self.selection.listed, verb="described"
        )
        if error is not None:
            raise error
        if self.over_lag_count:
            more = self.over_lag_count - len(self.over_lag)
            raise CheckFailed(
                f"{self.over_lag_count} partition(s) lag more than {self.request.fail_on_lag}: "
                + ", ".join(self.over_lag)
                + (f" and {more} more" if more > 0 else "")
            )


def describe(
    admin: GroupAdmin,
    request: DescribeOptions,
    *,
    clock: Callable[[], float] = time.time,
) -> DescribeRun:
    """Choose the groups and describe the first chunk now (a usage or lookup error raises
    here), the others while the result is iterated."""
    from itertools import chain

    from kgroup.describe.collect import select_groups

    selection = select_groups(admin, request.groups, request.all_groups, request.match)
    groups = _described(admin, request, selection.ids, clock)
    # the first chunk now: what fails for every group (a --topic the cluster does not have,
    # an unreachable cluster) fails before anything is printed, not after a JSON document began
    first = next(groups, None)
    return DescribeRun(request, selection, chain(() if first is None else (first,), groups))


def _described(
    admin: GroupAdmin, request: DescribeOptions, ids: list[str], clock: Callable[[], float]
) -> Iterator[GroupLag]:
    from kgroup.describe.collect import collect

    if not ids:
        return
    with fewer_collections():
        metadata = admin.topics(include_internal=True)
        for start in range(0, len(ids), CHUNK_GROUPS):
            yield from collect(
                admin,
                ids[start : start + CHUNK_GROUPS],
                topics=request.topics or None,
                read_committed=request.read_committed,
                lag_time=request.lag_time and request.view == "offsets",
                now_ms=int(clock() * 1000),
                metadata=metadata,
            )
