"""`reset-offsets --to-committed-at TIME`: read the groups' `__consumer_offsets` history, live or
from segments, and say what each group had committed as of TIME (kgroup.reset.history_choice).

The state at TIME is `decode --as-of`'s (the `Scan.as_of` view of kgroup.scan: the local engine,
or Spark for large segment sets with `--engine auto|spark`). Live, the group's partition
(`abs(hashCode(group)) % partitions`) is copied batch by batch as the broker holds it,
transaction markers included (kgroup.core.wire.log_copy, into a temporary directory the size of
that partition), and read as segments are: a consumer never sees a marker, so it could not tell
when a transactional commit took effect. Only where kgroup's wire client cannot be used
(librdkafka-only settings) does a consumer (`check`'s TopicReader, read_committed) read it,
and a note says what that cannot tell. What the history holds (where it begins, where records
were removed) comes from the batch headers, or from the offsets of the messages consumed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kgroup.core.errors import CorruptInputError, NotFoundError, UsageError
from kgroup.core.models import TopicPartition
from kgroup.reset.history_choice import (
    Coverage,
    CoverageFold,
    given_at,
    merge_coverage,
    unreached,
)
from kgroup.reset.strategy import GivenOffset, ToCommittedAt
from kgroup.reset.timespec import format_utc_ms

CORRUPT_HINT = (
    "a restore never skips a bad batch (an offset behind it may be the one in force at TIME): "
    "copy the segments again, or see every bad batch with "
    "`kgroup decode --segments DIR --skip-corrupt`"
)
LEFT_OUT_WHY = "no committed offset at TIME: never committed, deleted, expired or aborted"


@dataclass(frozen=True)
class GroupHistory:
    """One group's offsets as of TIME (with the commit each came from) and its coverage."""

    given: dict[TopicPartition, GivenOffset]
    coverage: Coverage | None


def check_time(strategy: ToCommittedAt, now_ms: int) -> ToCommittedAt:
    """TIME resolved (a duration ago) and checked: a TIME in the future is a usage error."""
    resolved = strategy.resolve(now_ms)
    if resolved.ms > now_ms:
        raise UsageError(
            f"--to-committed-at {strategy.source_text or resolved.ms}: "
            f"{format_utc_ms(resolved.ms)} is in the future (now is {format_utc_ms(now_ms)})",
            hint="give a past time; the history holds only what was committed",
        )
    return resolved


def refuse_unreached(
    group: str,
    partitions: Sequence[TopicPartition],
    history: GroupHistory,
    when_ms: int,
) -> None:
    """All or nothing: partitions whose offset at TIME the history cannot tell fail the plan
    (exit 5), each listed with why."""
    from kgroup.reset.planner import PartitionFailure, PlanCheckFailed, shortened

    lacking = unreached(partitions, history.given, history.coverage, when_ms)
    coverage = history.coverage
    if coverage is not None and coverage.first_ms is not None and coverage.first_ms > when_ms:
        raise PlanCheckFailed(  # whatever the scope: nothing at all is known of TIME
            f"to-committed-at {format_utc_ms(when_ms)}: group {group}: TIME is before the "
            f"history ({coverage.scope} begins at {format_utc_ms(coverage.first_ms)}); "
            "nothing planned",
            [PartitionFailure(group, tp, why) for tp, why in sorted(lacking.items())],
            "choose a TIME the history covers; kgroup never guesses an offset it does not hold",
        )
    if not lacking:
        return
    failures = [PartitionFailure(group, tp, why) for tp, why in sorted(lacking.items())]
    reasons = sorted(set(lacking.values()))
    listed = shortened([str(tp) for tp in sorted(lacking)])
    raise PlanCheckFailed(
        f"to-committed-at {format_utc_ms(when_ms)}: group {group}: the history does not reach "
        f"back for {len(lacking)} partition(s) ({listed}): {'; '.join(reasons)}; nothing planned",
        failures,
        "choose a later TIME, or leave those partitions out with --topic; kgroup never guesses "
        "an offset the history does not hold",
    )


# ---------------------------------------------------------------------------------------------
# Reading


def read_history(
    strategy: ToCommittedAt,
    groups: Sequence[str],
    *,
    admin: Any = None,
    note: Callable[[str], None] = lambda _m: None,
) -> dict[str, GroupHistory]:
    """Every group's history answer, from `strategy.segments` or live through `admin`."""
    if not strategy.segments and admin is None:
        raise UsageError("--to-committed-at without --segments reads the cluster")
    try:
        if strategy.segments:
            return _from_segments(strategy, groups, note)
        return _live(admin, strategy, groups, note)
    except CorruptInputError as exc:  # decode's hint names --skip-corrupt, not ours
        raise CorruptInputError(
            exc.message,
            CORRUPT_HINT,
            source=exc.source,
            position=exc.position,
        ) from exc


def _filter(groups: Sequence[str]) -> Any:
    from kgroup.scan.local import OFFSET_TYPES, DecodeFilter

    return DecodeFilter(groups=frozenset(groups), type_ids=OFFSET_TYPES)


def _answers(
    groups: Sequence[str], state: list[Any], coverage_of: Callable[[str], Coverage | None]
) -> dict[str, GroupHistory]:
    return {g: GroupHistory(given_at(g, state), coverage_of(g)) for g in groups}


def _from_segments(
    strategy: ToCommittedAt, groups: Sequence[str], note: Callable[[str], None]
) -> dict[str, GroupHistory]:
    from kgroup.decode.run import choose_engine
    from kgroup.scan.api import LocalScan, segment_scope_order
    from kgroup.scan.local import LocalEngine, find_segments

    inputs = find_segments(strategy.segments)
    flt = _filter(groups)
    if choose_engine(strategy.engine, inputs, False, view="as_of"):
        from kgroup.scan.spark import SparkScan, start_session

        spark = start_session(None, [], app_name="kgroup reset-offsets")
        scan: Any = SparkScan(spark, flt, inputs=inputs)
    else:
        eng = LocalEngine(flt)
        scan = LocalScan(eng, lambda: eng.segment_records(inputs), segment_scope_order(inputs))
    state = scan.as_of(strategy.ms)
    scopes = _scopes_of(groups, state)
    absent = [g for g in groups if g not in scopes]
    if absent:  # nothing at TIME: find where the group's records (of any type) are at all
        from kgroup.scan.local import DecodeFilter

        eng = LocalEngine(DecodeFilter(groups=frozenset(absent)))
        for rec in eng.plain(eng.segment_records(inputs)):
            scopes.setdefault(rec.group, set()).add(_scope(rec.partition, rec.source))
    for group in groups:
        if group not in scopes:
            raise NotFoundError(
                f"group {group} has no record in the segments of {', '.join(strategy.segments)}",
                hint="check the group name (kgroup decode --segments DIR --summary lists them)",
            )
    cache: dict[Any, Coverage] = {}

    def coverage_of(group: str) -> Coverage | None:
        parts = []
        for scope in sorted(scopes[group], key=str):
            if scope not in cache:
                files = [i for i in inputs if _scope(i.partition, i.source) == scope]
                cache[scope] = segment_coverage(files)
            parts.append(cache[scope])
        return merge_coverage(parts)

    return _answers(groups, state, coverage_of)


def _scope(partition: int | None, source: str) -> Any:
    return partition if partition is not None else source


def _scopes_of(groups: Sequence[str], state: list[Any]) -> dict[str, set[Any]]:
    out: dict[str, set[Any]] = {}
    wanted = set(groups)
    for rec in state:
        if rec.group in wanted:
            out.setdefault(rec.group, set()).add(_scope(rec.partition, rec.source))
    return out


def segment_coverage(items: Sequence[Any]) -> Coverage:
    """Coverage of one partition's segment files from their batch headers alone."""
    from kgroup.offsets import segments as seg

    scope = items[0].source.split("/", 1)[0] if items else "?"
    fold = CoverageFold(scope)
    for item in items:
        with open(item.path, "rb") as fh:
            for entry in seg.read_batches(fh.read, item.source, resync=False):
                if isinstance(entry, seg.Problem):
                    if entry.fatal:
                        raise CorruptInputError(
                            f"corrupt input: {entry.describe()}",
                            source=entry.source,
                            position=entry.position,
                        )
                    continue
                fold.add(
                    entry.base_offset, entry.last_offset, entry.records_count, entry.base_timestamp
                )
    return fold.result()


def _live(
    admin: Any, strategy: ToCommittedAt, groups: Sequence[str], note: Callable[[str], None]
) -> dict[str, GroupHistory]:
    from kgroup.core.topic_reader import TopicReader
    from kgroup.offsets.replay import partition_for
    from kgroup.scan.api import LocalScan, live_scope_order
    from kgroup.scan.local import LocalEngine

    if strategy.engine == "spark":
        note("engine spark: the live history of one group's partition is read by the local engine")
    topic = strategy.offsets_topic
    reader = TopicReader(admin, topic)
    count = reader.partition_count()
    partition_of = {g: partition_for(g, count) for g in groups}
    wire = getattr(admin, "wire", None)
    if wire is not None:
        return _live_log(wire, strategy, groups, partition_of)
    # librdkafka only (GSSAPI, ...): no transaction marker reaches a consumer, so a committed
    # transactional commit counts from its own record's time, not from its COMMIT marker's
    note(
        "the history is read by a consumer, which never sees transaction markers: a "
        "transactional commit counts from its record's time, not its COMMIT marker's"
    )
    folds = {p: CoverageFold(f"{topic}-{p}") for p in sorted(set(partition_of.values()))}

    def spans(messages: Any) -> Iterator[Any]:
        for message in messages:
            folds[message.partition].add(message.offset, message.offset, 1, message.timestamp)
            yield message

    eng = LocalEngine(_filter(groups))
    records = eng.live_records(spans(reader.read(sorted(folds))))
    # as_of reads the whole partition (records after TIME too): the folds see every offset
    state = LocalScan(eng, lambda: records, live_scope_order).as_of(strategy.ms)
    return _answers(groups, state, lambda g: folds[partition_of[g]].result())


def _live_log(
    wire: Any, strategy: ToCommittedAt, groups: Sequence[str], partition_of: dict[str, int]
) -> dict[str, GroupHistory]:
    """The groups' partitions of the offsets topic copied batch by batch (transaction markers
    included, `kgroup.core.wire.log_copy`) and read as segments are: a transactional commit
    counts from its COMMIT marker, an aborted one never, holes are only what the log lacks."""
    import tempfile
    from pathlib import Path

    from kgroup.core.wire.log_copy import copy_partition_log
    from kgroup.scan.api import LocalScan, segment_scope_order
    from kgroup.scan.local import LocalEngine, find_segments

    topic = strategy.offsets_topic
    with tempfile.TemporaryDirectory(prefix="kgroup-history-") as tmp:
        folders = []
        for part in sorted(set(partition_of.values())):
            folder = Path(tmp) / f"{topic}-{part}"
            folder.mkdir()
            with open(folder / f"{0:020d}.log", "wb") as fh:
                copy_partition_log(wire, TopicPartition(topic, part), fh)
            folders.append(str(folder))
        inputs = find_segments(folders)
        eng = LocalEngine(_filter(groups))
        scan = LocalScan(eng, lambda: eng.segment_records(inputs), segment_scope_order(inputs))
        state = scan.as_of(strategy.ms)
        coverage = {
            part: segment_coverage([i for i in inputs if i.partition == part])
            for part in set(partition_of.values())
        }
        for part, cov in coverage.items():
            if cov.scope == "?":  # an empty partition: no file to name it by
                coverage[part] = Coverage(f"{topic}-{part}")
    return _answers(groups, state, lambda g: coverage[partition_of[g]])
