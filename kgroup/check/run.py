"""Run `kgroup check`: collect a window per group (history or sampling), evaluate, render, exit.

Exit codes after the output (CLI.md): 3 when a named group does not exist (and nothing else
failed), 1 when a group could not be evaluated (authorization, ...), 5 when a group is at or
above `--fail-on` (err by default), 6 when the cluster is unreachable, 0 otherwise.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgroup.check.model import (
    HISTORY,
    SAMPLING,
    GroupVerdict,
    LogEnd,
    Observation,
    Owner,
    PartitionWindow,
    Status,
    Thresholds,
    TopicRetention,
)
from kgroup.check.sampling import compact
from kgroup.core.errors import (
    CheckFailed,
    KafkaOperationError,
    KgroupError,
)
from kgroup.core.models import NextRecord, TopicPartition, tp_order
from kgroup.core.timefmt import format_local_clock

if TYPE_CHECKING:
    from kgroup.core.admin import GroupAdmin
    from kgroup.describe.collect import Selection

SOURCES = ("auto", "history", "sampling")


@dataclass
class CheckOptions:
    groups: list[str]
    all_groups: bool = False
    match: str | None = None
    window_ms: int = 300_000
    samples: int = 10
    thresholds: Thresholds = field(default_factory=Thresholds)
    fail_on: str = "err"
    source: str = "auto"
    watch: bool = False
    lag_time: bool = True  # fetch the first unconsumed record of lagging partitions


# Why `check` does not judge share groups (KIP-932)
SHARE_NOT_EVALUATED = (
    "share group: not evaluated by Burrow's rules, which read a consumer's commits; a share "
    "group's members acknowledge records one by one and its start offset is not a commit "
    "(see `kgroup describe` for its start offsets and lag)"
)

Note = Callable[[str], None]
Progress = Callable[[int, int, float], None]


@dataclass
class CheckRun:
    """A check's verdicts, produced while they are iterated (once), and the run's outcome."""

    request: CheckOptions
    selection: Selection
    source: str
    now_ms: int
    notes: tuple[str, ...]
    _verdicts: Iterable[GroupVerdict]
    failed: list[tuple[str, str | None]] = field(default_factory=list)
    bad: list[GroupVerdict] = field(default_factory=list)  # the first SHOWN_BAD, for the error
    bad_count: int = 0
    seen: int = 0

    def __iter__(self) -> Iterator[GroupVerdict]:
        from kgroup.check.rules import fails

        for verdict in self._verdicts:
            self.seen += 1
            if verdict.error:
                self.failed.append((verdict.group, verdict.error_kind))
            if fails(verdict.status, self.request.fail_on):
                self.bad_count += 1
                if len(self.bad) < SHOWN_BAD:
                    self.bad.append(verdict)
            yield verdict

    @property
    def groups(self) -> list[GroupVerdict]:
        """Every verdict (iterates the run)."""
        return list(self)

    def raise_outcome(self) -> None:
        """Raise the error whose exit code the run ends with (none: exit 0)."""
        from kgroup.core.errors import failed_groups_error

        error = failed_groups_error(
            self.failed, self.seen, listed=self.selection.listed, verb="checked"
        )
        if error is not None:
            raise error
        if self.bad_count:
            shown = "; ".join(f"{g.group} {g.status.name}: {g.reason}" for g in self.bad)
            more = self.bad_count - len(self.bad)
            raise CheckFailed(
                f"{self.bad_count} of {self.seen} groups are {self.request.fail_on.upper()} "
                f"or worse: {shown}" + (f"; and {more} more" if more > 0 else "")
            )


SHOWN_BAD = 3

CHUNK_GROUPS = 2000  # groups described, evaluated and printed at a time (as describe's chunks)


@dataclass
class _Chunk:
    """One chunk's notes (retention, sizes: said before its verdicts) and verdicts."""

    notes: tuple[str, ...]
    verdicts: Iterator[GroupVerdict]


@dataclass
class _Said:
    """What earlier chunks asked and said: topics' retention, and the notes already given."""

    retention: dict[str, TopicRetention] = field(default_factory=dict)
    asked: set[str] = field(default_factory=set)
    notes: set[str] = field(default_factory=set)

    def new(self, notes: Iterable[str]) -> tuple[str, ...]:
        fresh = tuple(dict.fromkeys(n for n in notes if n not in self.notes))
        self.notes.update(fresh)
        return fresh


def check(
    admin: GroupAdmin,
    request: CheckOptions,
    *,
    note: Note | None = None,
    progress: Progress | None = None,
) -> CheckRun:
    """Look the groups up, collect the windows (history, or sampling, which takes the window),
    and evaluate the groups CHUNK_GROUPS at a time while the result is iterated: a chunk is
    described, evaluated and printed, then dropped, so memory does not grow with the fleet
    beyond the windows themselves (history: each partition's commits in the window; sampling:
    each partition's sampled offsets). The first chunk is looked up before any window, and
    before sampling so is every named group (of later chunks only the missing groups and the
    offsets, the first round's, are kept): a group that does not exist is neither sampled nor
    waited for, and when none exists nothing is sampled. History waits for no window: the
    later chunks are looked up once, in their turn. Later chunks' notes go to `note` when
    they come."""
    from itertools import chain

    from kgroup.check.history import OFFSETS_TOPIC, HistoryUnavailable, read_history
    from kgroup.describe.collect import collect_inputs, partition_counts, select_groups

    selection = select_groups(admin, request.groups, request.all_groups, request.match)
    ids = selection.ids
    counts = partition_counts(admin)
    chunks = [ids[i : i + CHUNK_GROUPS] for i in range(0, len(ids), CHUNK_GROUPS)] or [[]]
    first = collect_inputs(admin, chunks[0]) if ids else {}
    missing = {g: gi for g, gi in first.items() if gi.error_kind == "not_found"}
    # named groups of later chunks not looked up yet (listed ones exist): looked up before
    # sampling, or described once in their turn when the history is read
    unknown = len(chunks) > 1 and not selection.listed
    now_ms = int(time.time() * 1000)
    history = None
    reason = None
    if request.source in ("auto", "history") and (unknown or len(missing) < len(ids)):
        if OFFSETS_TOPIC not in counts:
            reason = f"the cluster has no {OFFSETS_TOPIC} topic"
        else:
            try:
                history = read_history(
                    admin,
                    [g for g in ids if g not in missing],
                    partitions=counts[OFFSETS_TOPIC],
                    now_ms=now_ms,
                    window_ms=request.window_ms,
                    samples=request.samples,
                )
            except HistoryUnavailable as exc:
                reason = str(exc)
        if history is None and request.source == "history":
            raise KafkaOperationError(
                f"cannot read the groups' commit history: {reason}",
                hint="use --source sampling (or auto), or ask for Describe and Read on "
                f"Topic:{OFFSETS_TOPIC}",
            )
    pairs: dict[tuple[str, int], tuple[str, int]] = {}  # one tuple a partition (sampling)
    looked_up: dict[str, Any] = {}  # sampling's first round: the offsets read just now
    if history is None:  # a group whose lookup failed has no offsets for it (as before)
        looked_up.update((g, compact(gi.committed, pairs)) for g, gi in first.items())
    if history is None and unknown:
        # before the window: a missing group is never sampled nor waited for; the offsets
        # read are the first round's (the descriptions are asked again at the window's end)
        for chunk in chunks[1:]:
            for g, gi in collect_inputs(admin, chunk).items():
                if gi.error_kind == "not_found":
                    missing[g] = gi
                else:
                    looked_up[g] = compact(gi.committed, pairs)
    live = [g for g in ids if g not in missing]
    if not live:
        verdicts = [_failed_verdict(g, missing[g], SAMPLING) for g in ids]
        return CheckRun(request, selection, SAMPLING, now_ms, (), verdicts)
    said = _Said()
    if history is not None:
        source = HISTORY
        del looked_up
        made = _history_chunks(
            admin, request, chunks, first, missing, counts, history.commits, said
        )
    else:
        source = SAMPLING
        why = f"history unavailable: {reason}; " if reason else ""
        seconds = request.window_ms / 1000
        if note is not None:
            note(
                f"{why}sampling {request.samples} times over {_seconds_text(seconds)} "
                f"(done at {format_local_clock(time.time() + seconds)})"
            )
        made = _sampling_chunks(
            admin, request, chunks, looked_up, pairs, missing, live, counts, progress, said
        )
        del looked_up
    del first
    # the first chunk now: the window is taken, and what fails for every group fails before
    # anything is printed
    head = next(made)

    def later() -> Iterator[GroupVerdict]:
        for chunk in made:
            for text in chunk.notes:
                if note is not None:
                    note(text)
            yield from chunk.verdicts

    return CheckRun(request, selection, source, now_ms, head.notes, chain(head.verdicts, later()))


def _failed_verdict(gid: str, gi: Any, source: str) -> GroupVerdict:
    status = Status.NOTFOUND if gi.error_kind == "not_found" else Status.ERR
    return GroupVerdict(
        group=gid,
        status=status,
        rule="not-found" if status == Status.NOTFOUND else "group-error",
        reason=gi.error,
        source=source,
        error=gi.error,
        error_kind=gi.error_kind,
    )


def _seconds_text(seconds: float) -> str:
    from kgroup.core.timefmt import format_duration_ms

    return format_duration_ms(int(seconds * 1000))


def _history_chunks(
    admin: GroupAdmin,
    request: CheckOptions,
    chunks: list[list[str]],
    first: dict[str, Any],
    missing: dict[str, Any],
    counts: dict[str, int],
    commits: dict[tuple[str, TopicPartition], list[tuple[int, int]]],
    said: _Said,
) -> Iterator[_Chunk]:
    """Each chunk described (the first already is; `missing`: the groups known not to exist,
    not asked again), its log ends read across the window, its groups evaluated from their
    commits (each popped once evaluated)."""
    from kgroup.check.history import log_end_grid
    from kgroup.describe.collect import collect_inputs

    for index, chunk in enumerate(chunks):
        if index == 0:
            inputs = first
        else:
            asked = [g for g in chunk if g not in missing]
            inputs = {g: missing[g] for g in chunk if g in missing}
            inputs.update(collect_inputs(admin, asked) if asked else {})
        first = {}
        yield _history_chunk(admin, request, chunk, inputs, counts, commits, said, log_end_grid)


def _history_chunk(
    admin: GroupAdmin,
    request: CheckOptions,
    chunk: list[str],
    inputs: dict[str, Any],
    counts: dict[str, int],
    commits: dict[tuple[str, TopicPartition], list[tuple[int, int]]],
    said: _Said,
    log_end_grid: Callable[..., dict[TopicPartition, list[LogEnd]]],
) -> _Chunk:
    from kgroup.check.window import from_commits

    views, existing, now_ms, marks = _views_now(admin, inputs, counts)
    step = request.window_ms // request.samples
    times = [now_ms - request.window_ms + k * step for k in range(request.samples)]
    grid = log_end_grid(admin, existing, times, {tp: m.log_end for tp, m in marks.items()})

    shared: dict[TopicPartition, tuple[LogEnd, ...]] = {}  # log ends, one tuple a partition

    def windows_of(gid: str) -> list[PartitionWindow]:
        gi = inputs[gid]
        owners = _owners(gi.description)
        out = []
        for tp in views[gid]:
            mark = marks.get(tp)
            ends = shared.get(tp)
            if ends is None:
                ends = shared[tp] = (
                    (*grid.get(tp, []), LogEnd(now_ms, mark.log_end)) if mark else ()
                )
            at = gi.committed.get(tp)
            committed = at.offset if at is not None else None
            obs = from_commits(
                commits.pop((gid, tp), []),
                ends,
                samples=request.samples,
                window_ms=request.window_ms,
            )
            positions = [LogEnd(o.timestamp_ms, o.offset) for o in obs]
            if committed is not None:
                if not obs:  # no commit in the window: the offset stood still all along
                    positions.append(LogEnd(now_ms - request.window_ms, committed))
                positions.append(LogEnd(now_ms, committed))
            out.append(
                _window(tp, obs, ends, committed, mark, owners.get(tp), request.samples, positions)
            )
        return out

    return _finish(admin, request, chunk, inputs, views, marks, windows_of, HISTORY, now_ms, said)


def _sampling_chunks(
    admin: GroupAdmin,
    request: CheckOptions,
    chunks: list[list[str]],
    looked_up: dict[str, Any],
    pairs: dict[tuple[str, int], tuple[str, int]],
    missing: dict[str, Any],
    live: list[str],
    counts: dict[str, int],
    progress: Progress | None,
    said: _Said,
) -> Iterator[_Chunk]:
    """Sample every live group across the window (each round kept as offsets by partition
    only; `looked_up`: the offsets read when the groups were looked up, the first round's),
    then describe, evaluate and print the groups chunk by chunk (`missing`: the groups known
    not to exist, neither sampled nor asked again)."""
    from kgroup.check.sampling import sample
    from kgroup.describe.collect import collect_inputs

    alive = set(live)
    rounds = sample(
        admin,
        live,
        counts,
        samples=request.samples,
        window_ms=request.window_ms,
        on_round=progress,
        first={g: offsets for g, offsets in looked_up.items() if g in alive},
        chunk=CHUNK_GROUPS,
        pairs=pairs,
    )
    missing = dict(missing)  # popped as their chunks come
    looked_up.clear()
    for chunk in chunks:
        asked = [g for g in chunk if g in alive]
        # the last sample's offsets are the committed offsets now (read at the window's end)
        last = rounds[-1].committed
        made: dict[Any, Any] = {}
        offsets = {g: _restored(last.get(g), made) for g in asked}
        del made
        inputs = {
            **{g: missing.pop(g) for g in chunk if g in missing},
            **collect_inputs(admin, asked, offsets=offsets),
        }
        del offsets
        yield _sampling_chunk(admin, request, chunk, inputs, counts, rounds, said)


def _restored(offsets: Any, made: dict[Any, Any]) -> Any:
    """A sampled group's offsets by partition as collect_inputs takes them (errors as they are).
    `made`: the chunk's TopicPartition and CommittedOffset objects (immutable), shared."""
    from kgroup.core.models import CommittedOffset

    if not isinstance(offsets, dict):
        return offsets if offsets is not None else {}
    out = {}
    for pair, offset in offsets.items():
        tp = made.get(pair)
        if tp is None:
            tp = made[pair] = TopicPartition(*pair)
        committed = made.get(offset)
        if committed is None:
            committed = made[offset] = CommittedOffset(offset)
        out[tp] = committed
    return out


def _sampling_chunk(
    admin: GroupAdmin,
    request: CheckOptions,
    chunk: list[str],
    inputs: dict[str, Any],
    counts: dict[str, int],
    rounds: list[Any],
    said: _Said,
) -> _Chunk:
    from kgroup.check.window import from_samples

    views, _, now_ms, marks = _views_now(admin, inputs, counts)

    # lookups by (topic, partition) tuples (C hashing; TopicPartition's runs in Python)
    marks_of = {(tp.topic, tp.partition): m for tp, m in marks.items()}
    ends_of = [r.log_ends for r in rounds]
    times = [r.timestamp_ms for r in rounds]

    # the log ends of a partition across the window, one tuple shared by the groups reading it
    shared: dict[tuple[str, int], tuple[LogEnd, ...]] = {}

    def log_ends(pair: tuple[str, int]) -> tuple[LogEnd, ...]:
        ends = [
            LogEnd(ts, end)
            for ts, r in zip(times, ends_of, strict=True)
            if (end := r.get(pair)) is not None
        ]
        mark = marks_of.get(pair)
        if mark is not None:
            ends.append(LogEnd(now_ms, mark.log_end))
        shared[pair] = made = tuple(ends)
        return made

    samples = request.samples

    def windows_of(gid: str) -> list[PartitionWindow]:
        gi = inputs[gid]
        members = gi.description.members
        owners = (
            {(tp.topic, tp.partition): o for tp, o in _owners(gi.description).items()}
            if members
            else {}
        )
        # alive: a member owns the partition, or the group has members and the broker does
        # not say who owns what (tansu; TEST_ENVIRONMENT.md)
        anyone = bool(members) and not any(m.assignment for m in members)
        committed_of = {(tp.topic, tp.partition): c.offset for tp, c in gi.committed.items()}
        seen = [  # this group's samples (offsets by pair), dropped from the rounds
            offsets if isinstance(offsets := r.committed.pop(gid, None), dict) else {}
            for r in rounds
        ]
        out = []
        for tp in views[gid]:
            pair = (tp.topic, tp.partition)
            offs = [offsets.get(pair) for offsets in seen]
            owner = owners.get(pair)
            alive = owner is not None or anyone
            obs = from_samples(times, offs, [r.get(pair) for r in ends_of], alive=alive)
            positions = [
                LogEnd(ts, at) for ts, at in zip(times, offs, strict=True) if at is not None
            ]
            moved = len({p.offset for p in positions}) > 1
            committed = committed_of.get(pair)
            if committed is not None:
                positions.append(LogEnd(now_ms, committed))
            out.append(
                _window(
                    tp,
                    obs,
                    shared.get(pair) or log_ends(pair),
                    committed,
                    marks_of.get(pair),
                    owner,
                    samples,
                    positions,
                    alive or moved,
                )
            )
        return out

    return _finish(admin, request, chunk, inputs, views, marks, windows_of, SAMPLING, now_ms, said)


def _views_now(
    admin: GroupAdmin, inputs: dict[str, Any], counts: dict[str, int]
) -> tuple[dict[str, list[TopicPartition]], list[TopicPartition], int, dict[TopicPartition, Any]]:
    """Each described group's partitions in view, those that exist, the time now (ms) and
    their watermarks, read now."""
    from kgroup.describe.engine import partitions_in_view

    views = {g: partitions_in_view(gi, counts) for g, gi in inputs.items() if gi.error is None}
    existing = _existing(views, counts)
    now_ms = int(time.time() * 1000)
    marks = admin.watermarks(existing) if existing else {}
    return views, existing, now_ms, marks


def _existing(
    views: dict[str, list[TopicPartition]], counts: dict[str, int]
) -> list[TopicPartition]:
    return sorted(
        {tp for tps in views.values() for tp in tps if tp.partition < counts.get(tp.topic, 0)},
        key=tp_order,
    )


def _owners(description: Any) -> dict[TopicPartition, Owner]:
    from kgroup.describe.engine import owners

    return {
        tp: Owner(m.member_id, m.client_id, m.host) for tp, m in owners(description.members).items()
    }


def _window(
    tp: TopicPartition,
    obs: tuple[Observation, ...],
    ends: tuple[LogEnd, ...],
    committed: int | None,
    mark: Any,
    owner: Owner | None,
    slots: int,
    positions: list[LogEnd],
    committed_in_window: bool | None = None,
) -> PartitionWindow:
    """One partition's window, as history and sampling both make it: the committed offset and
    watermarks (`mark`, None when unknown) now, the log ends and commits of the window."""
    return PartitionWindow(
        tp.topic,
        tp.partition,
        obs,
        ends,
        committed,
        mark.log_start if mark is not None else None,
        mark.log_end if mark is not None else None,
        None,
        owner,
        slots,
        tuple(positions),
        committed_in_window,
    )


def _finish(
    admin: GroupAdmin,
    request: CheckOptions,
    chunk: list[str],
    inputs: dict[str, Any],
    views: dict[str, list[TopicPartition]],
    marks: dict[TopicPartition, Any],
    windows_of: Callable[[str], list[PartitionWindow]],
    source: str,
    now_ms: int,
    said: _Said,
) -> _Chunk:
    """Add the chunk's lag times and retention (topics earlier chunks asked for are not asked
    again), then evaluate its groups (errors carried) while they are iterated: a group's
    windows are made when it is evaluated and dropped after."""
    lagging_set = set()
    for gid, tps in views.items() if request.lag_time else ():  # --no-lag-time: none asked
        committed = inputs[gid].committed
        for tp in tps:
            at, mark = committed.get(tp), marks.get(tp)
            if at is not None and mark is not None and mark.log_end > at.offset:
                lagging_set.add((tp, at.offset))
    lagging = sorted(lagging_set, key=lambda item: (tp_order(item[0]), item[1]))
    del lagging_set
    peeked: dict[tuple[TopicPartition, int], NextRecord] = (
        admin.next_records(lagging) if lagging else {}
    )
    topics = sorted({tp.topic for tp, _ in lagging})
    retention, retention_notes = _retention(admin, [t for t in topics if t not in said.asked])
    said.asked.update(topics)
    said.retention.update(retention)
    retention = said.retention
    size_limited = [tp for tp, _ in lagging if _limits_size(retention.get(tp.topic))]
    sizes, size_notes = _sizes(admin, size_limited)
    verdicts = _verdicts(
        request, chunk, inputs, windows_of, source, now_ms, peeked, retention, sizes
    )
    return _Chunk(said.new((*retention_notes, *size_notes)), verdicts)


def _verdicts(
    request: CheckOptions,
    ids: list[str],
    inputs: dict[str, Any],
    windows_of: Callable[[str], list[PartitionWindow]],
    source: str,
    now_ms: int,
    peeked: dict[tuple[TopicPartition, int], NextRecord],
    retention: dict[str, TopicRetention],
    sizes: dict[TopicPartition, int],
) -> Iterator[GroupVerdict]:
    from kgroup.check.rules import evaluate_group
    from kgroup.describe.engine import time_lag_ms

    for gid in ids:
        gi = inputs[gid]
        if gi.error is not None:
            del inputs[gid]
            yield _failed_verdict(gid, gi, source)
            continue
        if gi.description.type == "share":  # KIP-932: no commits for Burrow's rules to read
            yield GroupVerdict(
                group=gid,
                status=Status.OK,
                rule="not-evaluated",
                reason=SHARE_NOT_EVALUATED,
                source=source,
                state=gi.description.state,
                type="share",
            )
            continue
        timed = []
        for w in windows_of(gid):
            lag = None
            if w.committed is not None and w.log_end is not None:
                lag = w.log_end - w.committed
            lag_ms = None
            if lag is not None and request.lag_time:
                key = (TopicPartition(w.topic, w.partition), w.committed)
                lag_ms = time_lag_ms(lag, peeked.get(key), now_ms)
            size = sizes.get(TopicPartition(w.topic, w.partition)) if sizes else None
            if lag_ms is not None or size is not None:
                w = dataclasses.replace(w, lag_ms=lag_ms, size_bytes=size)
            timed.append(w)
        del inputs[gid]
        d = gi.description
        yield evaluate_group(
            gid,
            timed,
            now_ms=now_ms,
            thresholds=request.thresholds,
            retention=retention,
            members=[(m.member_id, m.client_id, m.host) for m in d.members],
            state=d.state,
            group_type=d.type,
            source=source,
        )


def _limits_size(retention: TopicRetention | None) -> bool:
    """Whether retention.bytes can delete the topic's records (a limit and the delete policy)."""
    return (
        retention is not None
        and retention.delete_policy
        and retention.retention_bytes is not None
        and retention.retention_bytes >= 0
    )


def _sizes(
    admin: Any, partitions: Sequence[TopicPartition]
) -> tuple[dict[TopicPartition, int], tuple[str, ...]]:
    """Log sizes of the partitions on their leaders (DescribeLogDirs) for the retention.bytes
    headroom; what cannot be had becomes one note per reason, and that headroom is skipped."""
    if not partitions:
        return {}, ()
    if admin.wire is None:
        return {}, (
            "retention.bytes headroom skipped: partition sizes need DescribeLogDirs, which "
            "only the wire client sends (this configuration uses librdkafka)",
        )
    from kgroup.core.wire.log_dirs import partition_sizes

    sizes: dict[TopicPartition, int] = {}
    failed: dict[str, list[TopicPartition]] = {}
    for tp, got in partition_sizes(admin.wire, partitions).items():
        if isinstance(got, KgroupError):
            failed.setdefault(got.one_line(), []).append(tp)
        else:
            sizes[tp] = got
    notes = tuple(
        f"retention.bytes headroom skipped for {_some(tps)}: {why}" for why, tps in failed.items()
    )
    return sizes, notes


def _some(tps: Sequence[TopicPartition]) -> str:
    names = ", ".join(f"{tp.topic}:{tp.partition}" for tp in tps[:3])
    return names + (f" and {len(tps) - 3} more" if len(tps) > 3 else "")


def _retention(
    admin: Any, topics: Sequence[str]
) -> tuple[dict[str, TopicRetention], tuple[str, ...]]:
    """Retention settings of the topics (DescribeConfigs); a topic that fails gets a note."""
    if not topics:
        return {}, ()
    configs = admin.describe_topic_configs(topics)
    out: dict[str, TopicRetention] = {}
    notes = []
    for topic in topics:
        got = configs.get(topic)
        if isinstance(got, KgroupError):
            notes.append(f"retention of topic {topic} unknown: {got.one_line()}")
            continue
        out[topic] = retention_of(got or {})
    return out, tuple(notes)


def retention_of(config: dict[str, str | None]) -> TopicRetention:
    """TopicRetention from a topic's configuration entries (absent: unknown)."""

    def number(key: str) -> int | None:
        value = config.get(key)
        try:
            return int(value) if value is not None else None
        except ValueError:
            return None

    policy = config.get("cleanup.policy")
    return TopicRetention(
        retention_ms=number("retention.ms"),
        retention_bytes=number("retention.bytes"),
        delete_policy=policy is None or "delete" in policy.split(","),
    )
