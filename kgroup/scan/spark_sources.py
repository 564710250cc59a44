"""Spark scan planning and the readers its tasks run: the `kgroup_segments` and `kgroup_topic`
Python data sources.

Source of truth: PySpark's Python Data Source API (`pyspark.sql.datasource`, Spark 4.0+) for the
sources, the kgroup.offsets codec (OFFSETS_FORMAT.md) for the decoding, and CLI.md
`kgroup decode` for the views.

Two Python data sources yield Arrow record batches in the schema of `kgroup.scan.rows`:

- `kgroup_segments` reads segment files.
  Options: `inputs` (JSON list of [path, source, partition, size], in read order), `view`
  (records | latest | as_of | summary), `filter` (JSON), `as_of` (ms), `skip_corrupt`,
  `split_bytes`.
  Partitioning: the record stream gets one input partition per segment file, or per byte range
  (cut at batch boundaries found by walking batch headers) for files above `split_bytes`; the
  latest/as-of/summary views get one input partition per `__consumer_offsets` partition, whose
  files one task replays in log order exactly as the local engine does (a group's records all
  live in one partition), so transactional commits stay pending per producer until their
  COMMIT/ABORT marker.
- `kgroup_topic` reads a live topic with confluent-kafka inside the executors.
  Options: `props` (JSON librdkafka properties), `topic`, `partitions` (JSON list or empty),
  `timeout_s`, `view`, `filter`, `as_of`, `split_records`.
  Partitioning: one input partition per Kafka partition and offset range (ranges of at most
  `split_records` offsets for the record stream).

Examples:
    spark.dataSource.register(SegmentSource)
    df = (spark.read.format("kgroup_segments")
          .option("inputs", json.dumps([[path, "__consumer_offsets-7/000.log", 7, size]]))
          .load())
    df.where("record_type = 'offset_commit'").select("group", "topic", "committed_offset")

Partition descriptors are small picklable objects; files and Kafka connections are opened
inside `read()`. Exceptions raised in executors are translated back into kgroup errors on the
driver (`kgroup.scan.spark_jobs.spark_errors`). `read_task` runs the same `read()` inside
`mapInArrow` tasks (`kgroup.scan.spark.SparkScan.frame`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import chain, islice
from typing import Any

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from kgroup.core.errors import UsageError
from kgroup.offsets import segments as seg
from kgroup.offsets.decode import DecodedRecord
from kgroup.scan import rows as rw
from kgroup.scan import summary as sm
from kgroup.scan.api import LiveSpec
from kgroup.scan.local import DecodeFilter, LocalEngine, SegmentInput
from kgroup.scan.ranges import SPLIT_BYTES, Split, plan_scopes, plan_splits

SEGMENTS_FORMAT = "kgroup_segments"
TOPIC_FORMAT = "kgroup_topic"
VIEWS = ("records", "latest", "as_of", "summary")
SUMMARY_DDL = "`scope_order` int, `group` string, `partial_json` string, `problem_json` string"
BATCH_ROWS = 8192
SPLIT_RECORDS = 1_000_000

# ---------------------------------------------------------------- options


def filter_to_json(flt: DecodeFilter) -> str:
    def srt(values: frozenset[Any] | None) -> list[Any] | None:
        return None if values is None else sorted(values)

    return json.dumps(
        {
            "groups": srt(flt.groups),
            "topics": srt(flt.topics),
            "type_ids": srt(flt.type_ids),
            "since": flt.since,
            "until": flt.until,
        }
    )


def filter_from_json(text: str | None) -> DecodeFilter:
    if not text:
        return DecodeFilter()
    doc = json.loads(text)

    def fs(values: list[Any] | None) -> frozenset[Any] | None:
        return None if values is None else frozenset(values)

    return DecodeFilter(
        groups=fs(doc.get("groups")),
        topics=fs(doc.get("topics")),
        type_ids=fs(doc.get("type_ids")),
        since=doc.get("since"),
        until=doc.get("until"),
    )


@dataclass(frozen=True)
class ViewOptions:
    """What every reader needs besides its input: the view, the filter, the as-of time."""

    view: str
    flt: DecodeFilter
    as_of: int | None
    skip_corrupt: bool

    @classmethod
    def parse(cls, options: Any) -> ViewOptions:
        view = options.get("view", "records")
        if view not in VIEWS:
            raise UsageError(f"unknown view {view!r}; use one of {', '.join(VIEWS)}")
        as_of = options.get("as_of")
        if view == "as_of" and not as_of:
            raise UsageError("view as_of needs the as_of option (epoch ms)")
        return cls(
            view,
            filter_from_json(options.get("filter")),
            int(as_of) if as_of else None,
            str(options.get("skip_corrupt", "false")).lower() == "true",
        )

    @property
    def schema(self) -> str:
        return SUMMARY_DDL if self.view == "summary" else rw.DDL


# ---------------------------------------------------------------- decoding into Arrow


def view_batches(
    eng: LocalEngine,
    recs: Iterable[DecodedRecord],
    opts: ViewOptions,
    order: int,
    problems: list[seg.Problem],
) -> Iterator[Any]:
    """Decoded records of one input partition -> Arrow record batches of the chosen view.

    A pure function of its inputs (the engine only filters and replays): tested on hand-built
    records without Spark. `problems` is the list the engine's `on_problem` appends to.
    """
    if opts.view == "summary":
        fold = sm.PartitionFold().add_all(recs)
        yield summary_batch(order, fold.partials(), problems)
        return
    builder = rw.RowBuilder(order)
    if opts.view == "records":
        skip_control = not opts.flt.wants_control
        it = iter(recs)
        while chunk := list(islice(it, BATCH_ROWS - len(builder))):
            builder.add_many(chunk, skip_control=skip_control)
            if len(builder) >= BATCH_ROWS:
                _problem_rows(builder, problems)
                yield builder.batch()
    else:
        selected = eng.latest(recs) if opts.view == "latest" else eng.as_of(recs, opts.as_of or 0)
        for rec in selected:
            builder.add(rec)
        for scope, producer_id, held in eng.stats.open_transactions:
            builder.add_note(
                rw.OPEN_TRANSACTION,
                str(scope),
                None,
                "no COMMIT/ABORT marker yet",
                log_partition=scope if isinstance(scope, int) else None,
                producer_id=producer_id,
                count=held,
            )
    _problem_rows(builder, problems)
    if len(builder):
        yield builder.batch()


def _problem_rows(builder: rw.RowBuilder, problems: list[seg.Problem]) -> None:
    for p in problems:
        builder.add_note(
            rw.PROBLEM, p.source, p.position, json.dumps({"kind": p.kind, "message": p.message})
        )
    problems.clear()


def summary_batch(order: int, partials: list[sm.Partial], problems: list[seg.Problem]) -> Any:
    import pyarrow as pa

    orders, groups, docs, probs = [], [], [], []
    for p in partials:
        orders.append(order)
        groups.append(p.group)
        docs.append(json.dumps(p.to_json()))
        probs.append(None)
    for p in problems:
        orders.append(order)
        groups.append(None)
        docs.append(None)
        probs.append(json.dumps([p.source, p.position, p.kind, p.message]))
    problems.clear()
    return pa.RecordBatch.from_arrays(
        [
            pa.array(orders, pa.int32()),
            pa.array(groups, pa.string()),
            pa.array(docs, pa.string()),
            pa.array(probs, pa.string()),
        ],
        names=["scope_order", "group", "partial_json", "problem_json"],
    )


# ---------------------------------------------------------------- segment files


@dataclass
class SegmentPartition(InputPartition):
    """Byte ranges of segment files read by one task, in order; `order` is the input order."""

    splits: tuple[Split, ...]
    order: int


class ViewReader(DataSourceReader):
    """What both readers share: an input partition's records, as Arrow batches of the view."""

    opts: ViewOptions
    live: LiveSpec | None = None

    def read(  # type: ignore[override]
        self, partition: SegmentPartition | TopicPartitionRange
    ) -> Iterator[Any]:
        problems: list[seg.Problem] = []
        eng = task_engine(self.opts, problems)
        recs = partition_records(eng, partition, self.live)
        yield from view_batches(eng, recs, self.opts, partition.order, problems)


class SegmentReader(ViewReader):
    def __init__(self, inputs: list[SegmentInput], opts: ViewOptions, split_bytes: int) -> None:
        self.inputs = inputs
        self.opts = opts
        self.split_bytes = split_bytes

    def partitions(self) -> list[SegmentPartition]:
        if self.opts.view == "records":
            return [
                SegmentPartition((s,), s.file_index)
                for s in plan_splits(self.inputs, self.split_bytes)
            ]
        return [
            SegmentPartition(
                tuple(
                    Split(i.path, i.source, i.partition, scope.order, 0, i.size)
                    for i in scope.items
                ),
                scope.order,
            )
            for scope in plan_scopes(self.inputs)
        ]


class ViewSource(DataSource):
    """What both sources share: the view options, the schema of the view, the format name."""

    FORMAT: str

    def __init__(self, options: Any) -> None:
        super().__init__(options)
        self.opts = ViewOptions.parse(options)

    @classmethod
    def name(cls) -> str:
        return cls.FORMAT

    def schema(self) -> str:
        return self.opts.schema


class SegmentSource(ViewSource):
    """`__consumer_offsets` segment files as decoded records (see the module docstring)."""

    FORMAT = SEGMENTS_FORMAT

    def __init__(self, options: Any) -> None:
        super().__init__(options)
        try:
            raw = json.loads(options["inputs"])
            self.inputs = [SegmentInput(str(p), str(s), part, int(n)) for p, s, part, n in raw]
        except (KeyError, ValueError, TypeError) as exc:
            raise UsageError(
                "option inputs: a JSON list of [path, source, partition, size]"
            ) from exc
        self.split_bytes = int(options.get("split_bytes", SPLIT_BYTES))

    def reader(self, schema: Any) -> SegmentReader:
        return SegmentReader(self.inputs, self.opts, self.split_bytes)


# ---------------------------------------------------------------- live topic


@dataclass
class TopicPartitionRange(InputPartition):
    """Offsets [start, end) of one Kafka partition, read by one task."""

    topic: str
    partition: int
    start: int
    end: int

    @property
    def order(self) -> int:
        """Where its rows go in the input order: the Kafka partition."""
        return self.partition


class TopicReader(ViewReader):
    def __init__(self, live: LiveSpec, opts: ViewOptions, split_records: int) -> None:
        self.live = live
        self.opts = opts
        self.split_records = split_records

    def partitions(self) -> list[TopicPartitionRange]:
        from kgroup.core.topic_reader import partition_ranges

        live = self.live
        ranges = partition_ranges(live.props, live.topic, live.partitions, live.timeout_s)
        out = []
        for p, low, high in ranges:
            step = self.split_records if self.opts.view == "records" else high - low
            for start in range(low, high, max(step, 1)):
                out.append(TopicPartitionRange(live.topic, p, start, min(start + step, high)))
        return out


class TopicSource(ViewSource):
    """A live `__consumer_offsets` (or a copy) as decoded records (see the module docstring)."""

    FORMAT = TOPIC_FORMAT

    def __init__(self, options: Any) -> None:
        super().__init__(options)
        try:
            parts = json.loads(options.get("partitions") or "null")
            self.live = LiveSpec(
                json.loads(options["props"]),
                options["topic"],
                None if parts is None else tuple(int(p) for p in parts),
                float(options.get("timeout_s", 15)),
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise UsageError("options props (JSON) and topic are required") from exc
        self.split_records = int(options.get("split_records", SPLIT_RECORDS))

    def reader(self, schema: Any) -> TopicReader:
        return TopicReader(self.live, self.opts, self.split_records)


def task_engine(opts: ViewOptions, problems: list[seg.Problem]) -> LocalEngine:
    """The engine a task decodes one input partition with; its problems go to `problems`."""
    return LocalEngine(opts.flt, skip_corrupt=opts.skip_corrupt, on_problem=problems.append)


def partition_records(
    eng: LocalEngine, part: SegmentPartition | TopicPartitionRange, live: LiveSpec | None
) -> Iterator[DecodedRecord]:
    """The decoded records of one input partition (segment byte ranges, or a topic range)."""
    if isinstance(part, SegmentPartition):
        return chain.from_iterable(
            eng.segment_range_records(s.item, s.start, s.end) for s in part.splits
        )
    from kgroup.core.topic_reader import read_range

    assert live is not None
    raw = read_range(
        live.props, part.topic, part.partition, part.start, part.end, timeout_s=live.timeout_s
    )
    return eng.live_records(raw)


def settle_worker() -> None:
    """Keep the garbage collector off what a Python worker has loaded (pyspark, pyarrow,
    pandas: ~50 k objects it would otherwise walk at every full collection while records are
    decoded); objects made later are collected as usual."""
    import gc

    gc.freeze()


def read_task(
    reader: SegmentReader | TopicReader, parts: list[Any]
) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """The mapInArrow function of `SparkScan.frame`: the reader's batches of each input
    partition whose index it gets."""

    def run(ids: Iterator[Any]) -> Iterator[Any]:
        settle_worker()
        for batch in ids:
            for index in batch.column(0).to_pylist():
                yield from reader.read(parts[index])

    return run


def partition_chunks(
    eng: LocalEngine, part: SegmentPartition | TopicPartitionRange, live: LiveSpec | None
) -> Iterator[list[DecodedRecord]]:
    """`partition_records` as lists of records (for the bulk row builder)."""
    if isinstance(part, SegmentPartition):
        for s in part.splits:
            yield from eng.segment_range_chunks(s.item, s.start, s.end)
        return
    it = partition_records(eng, part, live)
    while chunk := list(islice(it, BATCH_ROWS)):
        yield chunk
