"""One scan interface, two engines: `LocalScan` (in process) and `SparkScan` (kgroup.scan.spark).

Source of truth: CLI.md `kgroup decode` (the views: the record stream, `--latest`, `--as-of`,
`--summary`, `--out`). Both engines produce the same `DecodedRecord`s and summary rows, so the
CLI renders their results with one code path; the tests compare them row for row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from kgroup.offsets.decode import DecodedRecord
from kgroup.scan import summary as sm
from kgroup.scan.local import LocalEngine, ScanStats, SegmentInput

SPARK_AUTO_BYTES = 1024 * 1024 * 1024
"""Below this input size `--engine auto` always stays local (Spark's fixed cost dominates)."""

# Measured with `benchmarks/bench_spark.py --repeat 3 1024` on 1 GiB of generated segments on
# this project's 2-core machine, quiet (median of 3 fresh processes, both engines with the C fast
# path and the C line writer, Spark's class archive in place): Spark's fixed cost (session + first
# query) was 5.1 s; throughput in MB of segments per second, the record stream written with --out
# (JSON Lines locally, Parquet by Spark's tasks) and the replayed views (--summary):
SPARK_STARTUP_S = 5.1
LOCAL_MB_PER_S = {"records": 97.4, "replay": 86.8}  # one core
SPARK_MB_PER_S_PER_CORE = {"records": 88.0, "replay": 54.1}  # local[2] after start-up / 2


def spark_pays_off(size_bytes: int, cores: int, view: str) -> bool:
    """Whether Spark on `cores` cores should finish `view` over `size_bytes` sooner than the
    local engine, by the measured rates above. `records` is the record stream written with
    --out; `stream` the record stream printed (it comes through the driver: never Spark);
    every other view replays per partition. On 2 cores --out pays off from ~1.1 GB, the
    replayed views from ~2.2 GB."""
    if size_bytes < SPARK_AUTO_BYTES or cores < 1 or view == "stream":
        return False
    kind = "records" if view == "records" else "replay"
    megabytes = size_bytes / 1e6
    local_s = megabytes / LOCAL_MB_PER_S[kind]
    spark_s = SPARK_STARTUP_S + megabytes / (SPARK_MB_PER_S_PER_CORE[kind] * cores)
    return spark_s < local_s


@dataclass(frozen=True)
class LiveSpec:
    """A topic to read live: plain librdkafka properties, so executors can use them too."""

    props: dict[str, str]
    topic: str
    partitions: tuple[int, ...] | None
    timeout_s: float


class Scan(Protocol):
    """What `kgroup decode` asks of an engine."""

    stats: ScanStats

    def records(self) -> Iterable[DecodedRecord]: ...

    def latest(self) -> list[DecodedRecord]: ...

    def as_of(self, when: int) -> list[DecodedRecord]: ...

    def summary(self) -> list[dict[str, Any]]: ...


def summarise(
    recs: Iterable[DecodedRecord], order: Callable[[tuple[int, int | str]], int]
) -> list[dict[str, Any]]:
    """The summary rows of a record stream: one fold per scope, merged in scope order."""
    folds: dict[tuple[int, int | str], sm.PartitionFold] = {}
    last_scope: tuple[int, int | str] | None = None
    fold: sm.PartitionFold | None = None
    for rec in recs:
        part = rec.partition
        scope = (0, part) if part is not None else (1, rec.source)
        if scope != last_scope:
            fold = folds.get(scope)
            if fold is None:
                fold = folds[scope] = sm.PartitionFold()
            last_scope = scope
        fold.add(rec)  # type: ignore[union-attr]
    partials = [p for s in sorted(folds, key=order) for p in folds[s].partials()]
    return sm.merge_partials(partials)


def segment_scope_order(inputs: list[SegmentInput]) -> Callable[[tuple[int, int | str]], int]:
    """Scope -> index of its first file, the order the Spark engine merges scopes in."""
    first: dict[tuple[int, int | str], int] = {}
    for index, item in enumerate(inputs):
        key = (0, item.partition) if item.partition is not None else (1, item.source)
        first.setdefault(key, index)
    return lambda scope: first.get(scope, len(first))


def live_scope_order(scope: tuple[int, int | str]) -> int:
    return scope[1] if isinstance(scope[1], int) else 0


class LocalScan:
    """The local engine behind the `Scan` interface; `source()` yields raw decoded records."""

    def __init__(
        self,
        engine: LocalEngine,
        source: Callable[[], Iterator[DecodedRecord]],
        order: Callable[[tuple[int, int | str]], int],
    ) -> None:
        self.engine = engine
        self.source = source
        self.order = order
        self.stats = engine.stats

    def records(self) -> Iterator[DecodedRecord]:
        return self.engine.plain(self.source())

    def latest(self) -> list[DecodedRecord]:
        return self.engine.latest(self.source())

    def as_of(self, when: int) -> list[DecodedRecord]:
        return self.engine.as_of(self.source(), when)

    def summary(self) -> list[dict[str, Any]]:
        rows = summarise(self.source(), self.order)
        self.stats.emitted += len(rows)
        return rows
