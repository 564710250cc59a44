"""The Spark scan engine: `kgroup decode` on PySpark, `local[*]` or a cluster.

Source of truth: PySpark's Python Data Source API (`pyspark.sql.datasource`, Spark 4.0+) for the
sources, the kgroup.offsets codec (OFFSETS_FORMAT.md) for the decoding, and CLI.md
`kgroup decode` for the views. This is the only module that imports pyspark; the CLI imports it
only when the Spark engine runs.

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
driver (`spark_errors`).

On a cluster master (`spark://...`), `start_session` makes sure the executors import this
kgroup with its compiled codec (`kgroup.scan.spark_ship`: nothing shipped when their Python
has it, else the package as a `spark.archives` zip), and says on stderr which path it took.
The record stream's task size follows `spark.sql.files.maxPartitionBytes` when it is set.

`SparkScan` (the engine behind `kgroup decode --engine spark`) plans the same input partitions
on the driver and runs the readers' `read()` through `range(n).mapInArrow(...)`, one input
partition per task: the rows of the data sources without their per-query planning round
trips. With `--out`, the record stream's tasks write Parquet part files themselves
(`kgroup.scan.parquet_out`) instead of sending rows to Spark's JVM writer.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import chain, islice
from typing import Any

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from kgroup.core import errors as kerrors
from kgroup.core.errors import CorruptInputError, KgroupError, UsageError
from kgroup.offsets import replay as rp
from kgroup.offsets import segments as seg
from kgroup.offsets.decode import DecodedRecord
from kgroup.render.notes import note
from kgroup.scan import rows as rw
from kgroup.scan import spark_ship
from kgroup.scan import summary as sm
from kgroup.scan.api import LiveSpec
from kgroup.scan.local import DecodeFilter, LocalEngine, ScanStats, SegmentInput
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


class SegmentReader(DataSourceReader):
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

    def read(self, partition: SegmentPartition) -> Iterator[Any]:  # type: ignore[override]
        problems: list[seg.Problem] = []
        eng = LocalEngine(
            self.opts.flt, skip_corrupt=self.opts.skip_corrupt, on_problem=problems.append
        )
        recs = partition_records(eng, partition, None)
        yield from view_batches(eng, recs, self.opts, partition.order, problems)


class SegmentSource(DataSource):
    """`__consumer_offsets` segment files as decoded records (see the module docstring)."""

    def __init__(self, options: Any) -> None:
        super().__init__(options)
        self.opts = ViewOptions.parse(options)
        try:
            raw = json.loads(options["inputs"])
            self.inputs = [SegmentInput(str(p), str(s), part, int(n)) for p, s, part, n in raw]
        except (KeyError, ValueError, TypeError) as exc:
            raise UsageError(
                "option inputs: a JSON list of [path, source, partition, size]"
            ) from exc
        self.split_bytes = int(options.get("split_bytes", SPLIT_BYTES))

    @classmethod
    def name(cls) -> str:
        return SEGMENTS_FORMAT

    def schema(self) -> str:
        return self.opts.schema

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


class TopicReader(DataSourceReader):
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

    def read(self, partition: TopicPartitionRange) -> Iterator[Any]:  # type: ignore[override]
        problems: list[seg.Problem] = []
        eng = LocalEngine(self.opts.flt, on_problem=problems.append)
        recs = partition_records(eng, partition, self.live)
        yield from view_batches(eng, recs, self.opts, partition.partition, problems)


class TopicSource(DataSource):
    """A live `__consumer_offsets` (or a copy) as decoded records (see the module docstring)."""

    def __init__(self, options: Any) -> None:
        super().__init__(options)
        self.opts = ViewOptions.parse(options)
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

    @classmethod
    def name(cls) -> str:
        return TOPIC_FORMAT

    def schema(self) -> str:
        return self.opts.schema

    def reader(self, schema: Any) -> TopicReader:
        return TopicReader(self.live, self.opts, self.split_records)


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


def _settle_worker() -> None:
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
        _settle_worker()
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


PART_STATS_DDL = "`index` int, `path` string, `rows` bigint, `problems` string"


def parquet_part_task(
    parts: list[SegmentPartition] | list[TopicPartitionRange],
    opts: ViewOptions,
    live: LiveSpec | None,
    stage: str,
) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """The mapInArrow function of `SparkScan.write` for the record stream: for each input
    partition index it gets, decode that partition and write its rows as one staged Parquet
    file (kgroup.scan.parquet_out); yields (index, staged path | None, rows, problems JSON).
    A fatal problem without --skip-corrupt raises, which fails the job."""

    def run(ids: Iterator[Any]) -> Iterator[Any]:
        import uuid

        import pyarrow as pa

        from kgroup.scan import parquet_out as po

        _settle_worker()
        fs, stage_path = po.resolve(stage)
        schema = rw.arrow_schema()
        for batch in ids:
            for index in batch.column(0).to_pylist():
                problems: list[seg.Problem] = []
                eng = LocalEngine(
                    opts.flt, skip_corrupt=opts.skip_corrupt, on_problem=problems.append
                )
                part = parts[index]
                path = f"{stage_path}/part-{index:05d}-{uuid.uuid4().hex[:12]}.parquet"
                batches = rw.chunk_batches(
                    partition_chunks(eng, part, live),
                    file_index=part.order if isinstance(part, SegmentPartition) else part.partition,
                    skip_control=not opts.flt.wants_control,
                    rows=BATCH_ROWS,
                )
                rows = po.write_part(batches, fs, path, schema)
                doc = json.dumps([[p.source, p.position, p.kind, p.message] for p in problems])
                yield pa.RecordBatch.from_pylist(
                    [
                        {
                            "index": index,
                            "path": path if rows else None,
                            "rows": rows,
                            "problems": doc,
                        }
                    ],
                    schema=pa.schema(
                        [
                            pa.field("index", pa.int32()),
                            pa.field("path", pa.string()),
                            pa.field("rows", pa.int64()),
                            pa.field("problems", pa.string()),
                        ]
                    ),
                )

    return run


# ---------------------------------------------------------------- session


LOG4J = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""

QUIET_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
}


def _kgroup_root() -> str:
    import kgroup

    return os.path.dirname(os.path.dirname(os.path.abspath(kgroup.__file__)))


@contextlib.contextmanager
def _jvm_output_to(path: str) -> Iterator[None]:
    """The JVM inherits fds 1 and 2 at launch: point them at a log file meanwhile.

    Spark's banner, JVM warnings and Python worker output then never reach the user's stdout
    (nor stderr); the log file is named when something fails.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for f in (*saved, fd):
            os.close(f)


def start_session(
    master: str | None = None, conf: Iterable[tuple[str, str]] = (), app_name: str = "kgroup"
) -> Any:
    """A quiet SparkSession with kgroup's data sources registered.

    `master` defaults to `local[*]`; `conf` pairs are applied last (so they override kgroup's
    defaults). Java is checked first. A local or loopback master gets SPARK_LOCAL_IP=127.0.0.1
    and this Python for its executors (unless PYSPARK_PYTHON or spark.pyspark.python say
    otherwise); on a cluster master kgroup is then made importable on the executors
    (`spark_ship.ship`, one line on stderr).
    """
    problem = java_problem()
    if problem:
        raise UsageError(problem)
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    master = master or "local[*]"
    local = master.startswith("local")
    executors_python = dict(conf).get("spark.pyspark.python")
    if executors_python:  # PySpark takes the executors' Python from the driver's environment
        os.environ["PYSPARK_PYTHON"] = executors_python
    elif (local or spark_ship.loopback(master)) and not os.environ.get("PYSPARK_PYTHON"):
        os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if local or spark_ship.loopback(master):  # executors here reach the driver on loopback
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    if local:
        root = _kgroup_root()
        path = os.environ.get("PYTHONPATH", "")
        if root not in path.split(os.pathsep):
            os.environ["PYTHONPATH"] = root + (os.pathsep + path if path else "")
    logdir = tempfile.mkdtemp(prefix="kgroup-spark-")
    log4j = os.path.join(logdir, "log4j2.properties")
    with open(log4j, "w", encoding="utf-8") as fh:
        fh.write(LOG4J)
    settings = dict(QUIET_CONF)
    settings.update(conf)
    java_opts = "spark.driver.extraJavaOptions"
    archive = None
    if java_opts not in dict(conf):  # the user's own JVM options are taken as they are
        archive = cds_archive_path()
    record_archive = archive is not None and not os.path.exists(archive)
    if archive is not None:
        settings[java_opts] += (
            " -XX:+RecordDynamicDumpInfo"
            if record_archive
            else f" -XX:SharedArchiveFile={archive} -Xshare:auto"
        )
    settings[java_opts] = f"{settings[java_opts]} -Dlog4j2.configurationFile=file:{log4j}".strip()

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName(app_name)
    for k, v in settings.items():
        builder = builder.config(k, v)
    log = os.path.join(logdir, "spark.log")
    try:
        with _jvm_output_to(log):
            spark = builder.getOrCreate()
    except Exception as exc:
        raise UsageError(
            f"Spark did not start ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})",
            hint=f"Spark's log: {log}",
        ) from exc
    spark.sparkContext.setLogLevel("ERROR")
    atexit.register(shutil.rmtree, logdir, True)  # the log matters only when start-up fails
    if record_archive and archive is not None:
        atexit.register(_dump_cds_archive, spark, archive)
    if not local:
        try:
            with spark_errors():
                spark_ship.ship(spark, logdir, note)
        except BaseException:
            spark.stop()
            raise
    spark.dataSource.register(SegmentSource)
    spark.dataSource.register(TopicSource)
    return spark


CDS_ENV = "KGROUP_SPARK_CDS"


def cds_archive_path() -> str | None:
    """Where the class-data-sharing archive of this JDK + pyspark lives, or None (switched
    off with KGROUP_SPARK_CDS=0, or no jcmd to make one).

    The JVM maps the classes of Spark's ~400 jars from this archive instead of loading and
    verifying them one by one: the session starts 3-5 s sooner on 2 cores. JDK 17 cannot make
    the archive itself at exit for an application like Spark, so the first Spark run records
    what it loads and `jcmd VM.cds dynamic_dump` writes the archive (~110 MB, once per JDK and
    pyspark install, ~7 s at the end of that run). A stale or foreign archive is ignored by
    the JVM (-Xshare:auto).
    """
    if os.environ.get(CDS_ENV, "1") == "0" or _jdk_tool("jcmd") is None:
        return None
    import hashlib

    import pyspark

    java = _jdk_tool("java")
    jars = os.path.join(os.path.dirname(pyspark.__file__), "jars")
    try:
        ident = f"{java}:{os.path.getmtime(java or '')}:{pyspark.__version__}:" + ",".join(
            sorted(os.listdir(jars))
        )
    except OSError:
        return None
    key = hashlib.sha256(ident.encode()).hexdigest()[:16]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kgroup", "spark-cds", f"spark-{key}.jsa")


def _jdk_tool(name: str) -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home:
        tool = os.path.join(home, "bin", name)
        return tool if os.access(tool, os.X_OK) else None
    found = shutil.which(name)
    return os.path.realpath(found) if found else None


def _dump_cds_archive(spark: Any, archive: str) -> None:
    """Write the archive of the classes this session's JVM loaded (best effort, at exit)."""
    import subprocess

    jcmd = _jdk_tool("jcmd")
    folder = os.path.dirname(archive)
    tmp = f"{archive}.{os.getpid()}.tmp"
    try:
        pid = spark._jvm.java.lang.ProcessHandle.current().pid()
        os.makedirs(folder, exist_ok=True)
        done = subprocess.run(
            [jcmd or "jcmd", str(pid), "VM.cds", "dynamic_dump", tmp],
            capture_output=True,
            timeout=120,
            check=False,
        )
        if done.returncode == 0 and os.path.exists(tmp):
            for old in os.listdir(folder):  # archives of earlier JDK / pyspark installs
                if old.endswith(".jsa"):
                    os.unlink(os.path.join(folder, old))
            os.replace(tmp, archive)
    except Exception:  # an archive is an optimisation, never a failure
        pass
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def java_problem() -> str | None:
    """Why Spark cannot start for lack of Java, or None."""
    home = os.environ.get("JAVA_HOME")
    if home:
        if os.access(os.path.join(home, "bin", "java"), os.X_OK):
            return None
        return f"JAVA_HOME={home} has no bin/java: the Spark engine needs Java 17"
    if shutil.which("java"):
        return None
    return "the Spark engine needs Java 17: install it and set JAVA_HOME (or put java on PATH)"


# ---------------------------------------------------------------- errors and progress

_ERROR = re.compile(r"kgroup\.(?:core\.errors|offsets\.records)\.(\w+): ([^\n]+)")


def translate(exc: BaseException) -> KgroupError | None:
    """The kgroup error an executor raised, from the text Spark brings back (None if none)."""
    matches = list(_ERROR.finditer(str(exc)))
    if not matches:
        return None
    match = matches[-1]  # the last one is the outermost raise
    if match is None:
        return None
    name, message = match.group(1), match.group(2).strip()
    if name == "BatchError" or name == "CorruptInputError":
        return CorruptInputError(
            message, hint="pass --skip-corrupt to report bad batches and continue"
        )
    cls = getattr(kerrors, name, None)
    if isinstance(cls, type) and issubclass(cls, KgroupError):
        return cls(message)
    return None


@contextlib.contextmanager
def spark_errors() -> Iterator[None]:
    """Spark job failures -> the kgroup error behind them (chained), else a KgroupError."""
    try:
        yield
    except KgroupError:
        raise
    except Exception as exc:
        if type(exc).__module__.startswith(("pyspark", "py4j")):
            mapped = translate(exc)
            if mapped is not None:
                raise mapped from exc
            first = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
            raise KgroupError(f"the Spark job failed: {type(exc).__name__}: {first}") from exc
        raise


class TaskProgress:
    """A rich progress bar of finished Spark tasks on stderr, fed by the status tracker."""

    def __init__(self, spark: Any, console: Any, label: str = "spark") -> None:
        self.tracker = spark.sparkContext.statusTracker()
        self.console = console
        self.label = label
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> TaskProgress:
        if self.console is not None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _run(self) -> None:
        import rich.progress as rpg

        bar = rpg.Progress(
            rpg.TextColumn("{task.description}"),
            rpg.BarColumn(),
            rpg.MofNCompleteColumn(),
            rpg.TimeElapsedColumn(),
            console=self.console,
            transient=True,
        )
        task = bar.add_task(self.label, total=None)
        with bar:
            while not self._stop.wait(0.3):
                try:
                    stages = [
                        self.tracker.getStageInfo(s) for s in self.tracker.getActiveStageIds()
                    ]
                except Exception:
                    continue
                stages = [s for s in stages if s is not None]
                if stages:
                    total = sum(s.numTasks for s in stages)
                    done = sum(s.numCompletedTasks for s in stages)
                    bar.update(task, total=total, completed=done)


# ---------------------------------------------------------------- the engine


MAX_PARTITION_BYTES = "spark.sql.files.maxPartitionBytes"


def session_split_bytes(spark: Any) -> int:
    """Segment bytes per record-stream task: the session's spark.sql.files.maxPartitionBytes
    when set (`--spark-conf spark.sql.files.maxPartitionBytes=64m`), else SPLIT_BYTES (Spark's
    default of that setting)."""
    try:
        text = spark.conf.get(MAX_PARTITION_BYTES, None)
        if text is None:
            return SPLIT_BYTES
        utils = spark.sparkContext._jvm.org.apache.spark.network.util.JavaUtils
        return max(int(utils.byteStringAsBytes(str(text))), 1)
    except Exception as exc:
        raise UsageError(
            f"{MAX_PARTITION_BYTES}: not a size ({exc.__class__.__name__})",
            hint=f"--spark-conf {MAX_PARTITION_BYTES}=64m",
        ) from exc


class SparkScan:
    """The Spark engine behind the `Scan` interface (kgroup.scan.api)."""

    def __init__(
        self,
        spark: Any,
        flt: DecodeFilter,
        *,
        inputs: list[SegmentInput] | None = None,
        live: LiveSpec | None = None,
        skip_corrupt: bool = False,
        on_problem: Callable[[seg.Problem], None] | None = None,
        console: Any = None,
        split_bytes: int | None = None,
    ) -> None:
        if (inputs is None) == (live is None):
            raise UsageError("give segment inputs or a live topic")
        self.spark = spark
        self.flt = flt
        self.inputs = inputs
        self.live = live
        self.skip_corrupt = skip_corrupt
        self.on_problem = on_problem
        self.console = console
        self.split_bytes = split_bytes if split_bytes is not None else session_split_bytes(spark)
        self.stats = ScanStats()
        if inputs is not None:
            self.stats.files = len(inputs)
            self.stats.bytes = sum(i.size for i in inputs)

    # ------------------------------------------------------------ frames

    def frame(self, view: str = "records", as_of: int | None = None) -> Any:
        """The DataFrame of a view (lazy), in the schema of the data sources.

        Built as `range(n).mapInArrow(...)` over the input partitions the readers plan here
        on the driver, each task calling the reader's `read()`: the same rows as
        `spark.read.format(SEGMENTS_FORMAT | TOPIC_FORMAT)`, without the round trips to
        Python planning workers a Python data source costs every query (~5 s of start-up
        on 2 cores, benchmarks/bench_spark.py).
        """
        opts = ViewOptions(view, self.flt, as_of, self.skip_corrupt)
        reader = self._reader(opts)
        parts = reader.partitions()
        ids = self.spark.range(0, len(parts), 1, max(len(parts), 1))
        return ids.mapInArrow(read_task(reader, parts), opts.schema)

    def source_frame(self, view: str = "records", as_of: int | None = None) -> Any:
        """The same DataFrame read through the registered Python data source."""
        opts: dict[str, str] = {
            "view": view,
            "filter": filter_to_json(self.flt),
            "skip_corrupt": str(self.skip_corrupt).lower(),
        }
        if as_of is not None:
            opts["as_of"] = str(as_of)
        if self.live is not None:
            live = self.live
            opts.update(
                props=json.dumps(live.props),
                topic=live.topic,
                partitions=json.dumps(list(live.partitions)) if live.partitions else "",
                timeout_s=str(live.timeout_s),
            )
            return self.spark.read.format(TOPIC_FORMAT).options(**opts).load()
        opts["inputs"] = json.dumps(
            [[i.path, i.source, i.partition, i.size] for i in self.inputs or []]
        )
        opts["split_bytes"] = str(self.split_bytes)
        return self.spark.read.format(SEGMENTS_FORMAT).options(**opts).load()

    def _reader(self, opts: ViewOptions) -> SegmentReader | TopicReader:
        if self.live is not None:
            return TopicReader(self.live, opts, SPLIT_RECORDS)
        return SegmentReader(self.inputs or [], opts, self.split_bytes)

    def _report(self, problem_rows: Iterable[dict[str, Any]]) -> None:
        for row in problem_rows:
            doc = json.loads(row["error"])
            problem = seg.Problem(row["source"], row["position"], doc["kind"], doc["message"])
            self.stats.problems.append(problem)
            if self.on_problem is not None:
                self.on_problem(problem)

    def _collect(self, df: Any) -> list[dict[str, Any]]:
        with spark_errors(), TaskProgress(self.spark, self.console):
            return df.toArrow().to_pylist()

    # ------------------------------------------------------------ views

    def records(self) -> Iterator[DecodedRecord]:
        """The record stream in input order (streamed to the driver partition by partition)."""
        df = self.frame("records")
        with spark_errors(), TaskProgress(self.spark, self.console):
            for row in df.toLocalIterator(prefetchPartitions=True):
                d = row.asDict()
                if d["record_type"] == rw.PROBLEM and d["key_json"] is None:
                    self._report([d])
                    continue
                self.stats.emitted += 1
                yield rw.row_to_record(d)

    def _replayed(self, view: str, as_of: int | None) -> list[dict[str, Any]]:
        rows, problems, open_txns = rw.split_notes(self._collect(self.frame(view, as_of)))
        self._report(problems)
        self.stats.open_transactions = [
            (
                r["log_partition"] if r["log_partition"] is not None else r["source"],
                r["producer_id"],
                r["offset"],
            )
            for r in open_txns
        ]
        # one scope per task; a key found in several scopes (inputs of several clusters
        # mixed) keeps the value of the scope read last, as the local replay mostly does
        rows.sort(key=lambda r: r["file_index"])
        chosen: dict[Any, tuple[dict[str, Any], DecodedRecord]] = {}
        for row in rows:
            rec = rw.row_to_record(row)
            chosen[rp.record_identity(rec)] = (row, rec)
        ordered = sorted(chosen.values(), key=lambda pair: rp._sort_key(pair[1]))
        self.stats.emitted += len(ordered)
        self._rows = [row for row, _rec in ordered]
        return [rec for _row, rec in ordered]

    def latest(self) -> list[DecodedRecord]:
        return self._replayed("latest", None)

    def as_of(self, when: int) -> list[DecodedRecord]:
        return self._replayed("as_of", when)

    def summary(self) -> list[dict[str, Any]]:
        rows = self._collect(self.frame("summary"))
        for row in rows:
            if row["problem_json"] is not None:
                source, position, kind, message = json.loads(row["problem_json"])
                self._report(
                    [
                        {
                            "source": source,
                            "position": position,
                            "error": json.dumps({"kind": kind, "message": message}),
                        }
                    ]
                )
        parts = [
            (row["scope_order"], sm.Partial.from_json(json.loads(row["partial_json"])))
            for row in rows
            if row["partial_json"] is not None
        ]
        parts.sort(key=lambda pair: pair[0])
        out = sm.merge_partials(p for _o, p in parts)
        self.stats.emitted += len(out)
        return out

    # ------------------------------------------------------------ --out

    def write(self, out: str, view: str, as_of: int | None = None) -> str:
        """Write a view as Parquet into the directory `out` (new, or empty).

        The record stream is written by the scan tasks themselves (`parquet_out`); the
        replayed views (latest, as-of, summary) come to the driver first, as for printing.
        """
        if view == "records":
            return self._write_records(out)
        clear_interrupted(out)
        if os.path.isdir(out):
            if os.listdir(out):
                raise UsageError(f"--out {out} is not empty", hint="name a new or empty directory")
            os.rmdir(out)
        elif os.path.exists(out):
            raise UsageError(f"--out {out} is a file", hint="name a new or empty directory")
        import pyarrow as pa

        if view == "summary":
            table = summary_table(self.summary())
        else:
            self._replayed(view, as_of)
            table = pa.Table.from_pylist(self._rows, schema=rw.arrow_schema())
        with spark_errors():
            self.spark.createDataFrame(table).coalesce(1).write.parquet(out)
        return out

    def _write_records(self, out: str) -> str:
        import uuid

        from kgroup.scan import parquet_out as po

        opts = ViewOptions("records", self.flt, None, self.skip_corrupt)
        parts: list[Any] = self._reader(opts).partitions()
        job = uuid.uuid4().hex
        clear_interrupted(out)
        fs, root, created = po.prepare(out)
        try:
            # the driver makes the stage; tasks only write files into it, so a task still
            # running after a failed job cannot make it again once it is removed
            fs.create_dir(po.stage_dir(root, job), recursive=True)
            task = parquet_part_task(parts, opts, self.live, po.stage_uri(out, job))
            ids = self.spark.range(0, len(parts), 1, max(len(parts), 1))
            with spark_errors(), TaskProgress(self.spark, self.console):
                results = ids.mapInArrow(task, PART_STATS_DDL).collect() if parts else []
            staged = [(r["index"], r["path"]) for r in results if r["path"] is not None]
            po.commit(fs, root, job, staged, rw.arrow_schema())
        except BaseException:
            po.abort(fs, root, job, remove_root=created)
            raise
        for r in sorted(results, key=lambda r: r["index"]):
            for source, position, kind, message in json.loads(r["problems"]):
                problem = seg.Problem(source, position, kind, message)
                self.stats.problems.append(problem)
                if self.on_problem is not None:
                    self.on_problem(problem)
            self.stats.emitted += r["rows"]
        return out


def clear_interrupted(out: str) -> bool:
    """Remove what a killed run left in `--out` (a directory holding only `_temporary/`: staged
    part files never committed, no `_SUCCESS`), saying so on stderr; True if it did.

    A run killed before its commit (driver killed, machine lost) cannot clean up after itself;
    as with Hadoop's committer, the stage is not output, and the next run into the same
    directory removes it. Two runs writing one directory at the same time are not supported
    (as with Spark's writer).
    """
    import pyarrow.fs as pafs

    from kgroup.scan import parquet_out as po

    fs, root = po.resolve(out)
    if fs.get_file_info(root).type != pafs.FileType.Directory:
        return False
    entries = fs.get_file_info(pafs.FileSelector(root, recursive=False))
    names = [e.base_name for e in entries]
    if names != [po.TEMPORARY] or entries[0].type != pafs.FileType.Directory:
        return False
    fs.delete_dir(f"{root}/{po.TEMPORARY}")
    note(
        f"--out {out}: removed {po.TEMPORARY}/ left by an interrupted run (never committed)"
    )
    return True


SUMMARY_COLUMNS = (
    ("group", "string"),
    ("type", "string"),
    ("protocol", "string"),
    ("last_commit", "int64"),
    ("commits", "int64"),
    ("topics", "list<string>"),
    ("partitions", "int64"),
    ("generation", "int64"),
    ("members", "int64"),
    ("deleted", "bool_"),
)


def summary_table(rows: list[dict[str, Any]]) -> Any:
    """Summary rows as an Arrow table (`--summary --out` with Spark)."""
    import pyarrow as pa

    types = {"string": pa.string(), "int64": pa.int64(), "bool_": pa.bool_()}
    fields = [
        pa.field(n, pa.list_(pa.string()) if t == "list<string>" else types[t])
        for n, t in SUMMARY_COLUMNS
    ]
    return pa.Table.from_pylist(rows, schema=pa.schema(fields))
