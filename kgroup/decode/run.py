"""Run `kgroup decode` for the CLI: pick the engine, open the input, write the view.

Contract: CLI.md `kgroup decode` and "decode output records"; README.md "decode". The record
views stream to stdout through the `DecodeView` cli/ passes in (kgroup.cli.decode_view, on
kgroup/render/records_stream.py): nothing holds every record (`--latest`, `--as-of` and
`--summary` hold one entry per key or group, by their nature). This layer renders nothing.

Engines: the local engine in process, or Spark (kgroup.scan.spark) where the measured cost
model of kgroup.scan.api says it finishes sooner. The record stream printed to stdout always
stays local (through Spark's driver it would come row by row): asking Spark for it is said on
stderr; `--out DIR` lets Spark's tasks write it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from kgroup.core.errors import KgroupError, UsageError
from kgroup.core.notes import note

if TYPE_CHECKING:
    from kgroup.core.admin import GroupAdmin
    from kgroup.offsets.decode import DecodedRecord
    from kgroup.offsets.segments import Problem
    from kgroup.scan.api import Scan
    from kgroup.scan.local import DecodeFilter, LocalEngine, SegmentInput
    from kgroup.scan.spark_jobs import TaskReport

ENGINES = ("auto", "local", "spark")


class DecodeProgress(Protocol):
    """The progress bar of a decode on stderr (cli/ gives kgroup.render.progress.Progress)."""

    enabled: bool  # False: nothing is drawn (stderr is no terminal)

    def start_bytes(self, total: int, label: str) -> None:
        """A bar of `total` bytes of segments."""

    def advance(self, n: int) -> None:
        """`n` more bytes read."""

    def start_records(self, label: str) -> None:
        """A bar of records read live, its total told by `records`."""

    def records(self, done: int, total: int) -> None:
        """`done` of `total` records read."""

    def stop(self) -> None:
        """Take the bar down (again: nothing)."""


class DecodeView(Protocol):
    """How cli/ shows `kgroup decode`: its progress bar and the views written to stdout."""

    def progress(self) -> AbstractContextManager[DecodeProgress]:
        """The progress bar, taken down when the context ends."""

    def task_bar(self) -> TaskReport:
        """Where Spark's finished tasks are shown (a bar on stderr)."""

    def records(self, recs: Iterable[DecodedRecord], scan: Scan) -> None:
        """The record stream on stdout in the output mode."""

    def out_summary(self, scan: Scan, path: str) -> None:
        """What `--out DIR` wrote."""

    def summary(self, groups: list[dict[str, Any]], scan: Scan) -> None:
        """`--summary`: one row per group."""

    def share_summary(self, rows: list[dict[str, Any]], scan: Scan) -> None:
        """`--summary` of `__share_group_state`: one row per share-partition."""

    def summary_cut_short(self, scan: Scan, exc: BaseException) -> None:
        """`--summary -o json` when reading failed."""


@dataclass(frozen=True)
class DecodeOptions:
    """What decode's run layer takes of the global options: the cluster `--live` reads (and
    Spark's live source connects to), built only when it is read, so decoding segments needs
    no bootstrap server. cli/ builds it from its GlobalOptions."""

    admin: Callable[[], GroupAdmin]


@dataclass
class DecodeRequest:
    """What the command line asked for, checked."""

    flt: DecodeFilter
    view: str  # records, latest, as_of or summary
    paths: list[str] | None  # None: --live
    when: int | None = None  # --as-of, epoch ms
    engine: str = "auto"
    spark_master: str | None = None
    spark_conf: tuple[tuple[str, str], ...] = ()
    out: str | None = None
    skip_corrupt: bool = False
    offsets_topic: str = "__consumer_offsets"
    groups: list[str] | None = None


def run_decode(opts: DecodeOptions, req: DecodeRequest, view: DecodeView) -> None:
    """Read, then write the view to stdout (or `--out`), then note open transactions."""
    from kgroup.scan.local import LocalEngine

    def on_problem(problem: Problem) -> None:
        note(f"{'corrupt input, skipped' if problem.fatal else 'note'}: {problem.describe()}")

    inputs = None
    if req.paths is not None:
        from kgroup.scan.local import find_segments

        inputs = find_segments(req.paths)
    share = _share_inputs(req, inputs)
    printed_stream = req.view == "records" and req.out is None
    spark_named = bool(req.spark_master or req.spark_conf)
    # auto's cost model is measured on __consumer_offsets: share state goes to Spark when asked
    use_spark = (not share or req.engine == "spark" or spark_named) and choose_engine(
        req.engine, inputs, spark_named, view="stream" if printed_stream else req.view
    )

    with view.progress() as progress:
        if use_spark:
            scan: Scan = _spark_scan(opts, req, inputs, on_problem, progress, view, share=share)
        else:
            from kgroup.scan.api import LocalScan, live_scope_order, segment_scope_order

            eng = LocalEngine(req.flt, skip_corrupt=req.skip_corrupt, on_problem=on_problem)
            if share:
                from kgroup.scan.share_scan import ShareScan

                progress.start_bytes(sum(i.size for i in inputs or ()), "decoding")
                eng.on_progress = progress.advance
                share_items = inputs or []
                scan = ShareScan(
                    eng, lambda: eng.segment_records(share_items), segment_scope_order(share_items)
                )
            elif inputs is None:
                recs = _live_records(opts, eng, req.offsets_topic, req.groups, progress)
                scan = LocalScan(eng, lambda: recs, live_scope_order)
            else:
                progress.start_bytes(sum(i.size for i in inputs), "decoding")
                eng.on_progress = progress.advance
                items = inputs
                scan = LocalScan(
                    eng, lambda: eng.segment_records(items), segment_scope_order(items)
                )
        _write_view(view, req, scan, use_spark, progress)
    for scope, producer_id, held in scan.stats.open_transactions:
        note(
            f"transaction of producer {producer_id} in {scope} has no COMMIT/ABORT marker yet "
            f"({held} records held back as open/unknown)"
        )


def _share_inputs(req: DecodeRequest, inputs: list[SegmentInput] | None) -> bool:
    """True when the segments are `__share_group_state`'s (told by their partition directory
    names); refuses a mix of topics and the options that only apply to `__consumer_offsets`."""
    from kgroup.offsets.share_state import TOPIC

    if inputs is None and req.offsets_topic == TOPIC:
        raise UsageError(
            f"--live reads __consumer_offsets records; {TOPIC} is decoded from its segments only",
            hint=f"give its {TOPIC}-N directories with --segments",
        )
    if not inputs or not any(i.topic == TOPIC for i in inputs):
        return False
    if not all(i.topic == TOPIC for i in inputs):
        raise UsageError(
            f"the segments mix {TOPIC} and __consumer_offsets partitions",
            hint="decode one topic at a time",
        )
    if req.view == "as_of":
        raise UsageError(
            f"--as-of replays offset commits; {TOPIC} holds none",
            hint="use --latest or --summary for share-group state",
        )
    if req.flt.type_ids is not None or req.flt.topics is not None:
        raise UsageError(
            f"--type and --topic select __consumer_offsets records; {TOPIC} records have "
            "neither (their keys hold topic ids)",
            hint="select share-group state with --group",
        )
    return True


def _write_view(
    out: DecodeView, req: DecodeRequest, scan: Scan, spark: bool, progress: DecodeProgress
) -> None:
    if req.out is not None and spark:
        path = scan.write(req.out, req.view, req.when)  # type: ignore[attr-defined]
        progress.stop()
        out.out_summary(scan, path)
        return
    if req.view == "summary":
        try:
            groups = scan.summary()
        except (KgroupError, KeyboardInterrupt) as exc:
            progress.stop()
            if req.out is None:
                out.summary_cut_short(scan, exc)
            raise
        progress.stop()
        if req.out is not None:
            path = write_jsonl_dir(req.out, (json.dumps(r) for r in groups))
            out.out_summary(scan, path)
        elif getattr(scan, "share", False):
            out.share_summary(groups, scan)
        else:
            out.summary(groups, scan)
        return
    selected: Iterable[DecodedRecord]
    if req.view in ("latest", "as_of"):

        def view() -> Iterable[DecodedRecord]:
            return scan.latest() if req.view == "latest" else scan.as_of(req.when)  # type: ignore[arg-type]

        # --out: read all before the file is made; stdout: inside the writer (see below)
        selected = view() if req.out is not None else _read_while_written(view)
    else:
        selected = scan.records()
    if req.out is not None:
        path = write_jsonl_dir(req.out, (r.to_json() for r in selected))
        progress.stop()
        out.out_summary(scan, path)
        return
    out.records(_stopping(selected, progress), scan)


def _read_while_written(make: Callable[[], Iterable[DecodedRecord]]) -> Iterator[DecodedRecord]:
    """The records of `make()`, computed once the writer asks for the first: a view that reads
    everything first (--latest, --as-of) then fails inside the writer, which closes a JSON
    document with the `error` before the failure goes on."""
    yield from make()


def _stopping(recs: Iterable[DecodedRecord], progress: DecodeProgress) -> Iterator[DecodedRecord]:
    """The records; when stdout is the terminal the progress bar is taken down before the
    first is printed (a bar and rows on one screen do not mix), else it runs to the end."""
    it = iter(recs)
    if sys.stdout.isatty():
        for rec in it:
            progress.stop()
            yield rec
            break
    yield from it
    progress.stop()


# ---------------------------------------------------------------- engines


def spark_missing() -> str | None:
    """Why the Spark engine cannot run here (pyspark or Java missing), or None."""
    import importlib.util
    import shutil

    if importlib.util.find_spec("pyspark") is None or importlib.util.find_spec("pyarrow") is None:
        return "pyspark"
    home = os.environ.get("JAVA_HOME")
    if home:
        return None if os.access(os.path.join(home, "bin", "java"), os.X_OK) else "java"
    return None if shutil.which("java") else "java"


def choose_engine(
    engine: str,
    inputs: Sequence[SegmentInput] | None,
    spark_named: bool,
    *,
    view: str = "records",
    cores: int | None = None,
) -> bool:
    """True for Spark; auto: Spark when the measured cost model says it finishes sooner for
    this input size, view and number of cores (said on stderr). The printed record stream
    (`view="stream"`) never goes to Spark; when Spark was asked for, or would have paid off
    with --out, stderr says so."""
    from kgroup.scan.api import spark_pays_off

    if engine == "local":
        return False
    if engine == "spark" or spark_named:
        missing = spark_missing()
        if missing == "pyspark":
            raise UsageError(
                "the Spark engine needs pyspark and pyarrow, which are not installed",
                hint="pip install 'kgroup[spark]'",
            )
        if missing == "java":
            raise UsageError(
                "the Spark engine needs Java 17: set JAVA_HOME to a JDK 17 (or put java on PATH)"
            )
        if view == "stream":
            note(
                "engine spark: the record stream printed to stdout is read by the local engine "
                "(through Spark's driver it would come row by row, slower); --out DIR has "
                "Spark's tasks write it"
            )
            return False
        return True
    if inputs is None:
        return False
    size = sum(i.size for i in inputs)
    cores = cores or os.cpu_count() or 1
    mib = size / 2**20
    if view == "stream":
        if spark_pays_off(size, cores, "records"):
            note(
                f"engine auto: {mib:,.0f} MiB of segments: the record stream printed to stdout "
                "stays local; with --out DIR Spark would write it sooner"
            )
        return False
    if not spark_pays_off(size, cores, view):
        return False
    missing = spark_missing()
    if missing is not None:
        note(
            f"engine auto: {mib:,.0f} MiB of segments; Spark would be faster but "
            + (
                "pyspark is not installed (pip install 'kgroup[spark]')"
                if missing == "pyspark"
                else "Java 17 is missing (JAVA_HOME)"
            )
            + "; using the local engine"
        )
        return False
    note(f"engine auto: {mib:,.0f} MiB of segments on {cores} cores: using Spark (faster here)")
    return True


def _spark_scan(
    opts: DecodeOptions,
    req: DecodeRequest,
    inputs: list[SegmentInput] | None,
    on_problem: Callable[[Problem], None],
    progress: DecodeProgress,
    view: DecodeView,
    share: bool = False,
) -> Scan:
    from kgroup.scan.api import LiveSpec
    from kgroup.scan.spark import SparkScan, start_session

    live = None
    if inputs is None:
        from kgroup.core.topic_reader import TopicReader
        from kgroup.offsets.replay import partition_for

        admin = opts.admin()
        cluster = admin.config
        partitions = None
        if req.groups:
            count = TopicReader(admin, req.offsets_topic).partition_count()
            partitions = tuple(sorted({partition_for(g, count) for g in req.groups}))
        live = LiveSpec(
            dict(cluster.client_properties()), req.offsets_topic, partitions, cluster.timeout_s
        )
    spark = start_session(req.spark_master, list(req.spark_conf), app_name="kgroup decode")
    tasks = view.task_bar() if progress.enabled else None
    if share:  # __share_group_state: a task per partition (kgroup.scan.share_spark)
        from kgroup.scan.share_spark import ShareSparkScan

        return ShareSparkScan(
            spark,
            req.flt,
            inputs=inputs or [],
            skip_corrupt=req.skip_corrupt,
            on_problem=on_problem,
            tasks=tasks,
        )
    return SparkScan(
        spark,
        req.flt,
        inputs=inputs,
        live=live,
        skip_corrupt=req.skip_corrupt,
        on_problem=on_problem,
        tasks=tasks,
    )


# ---------------------------------------------------------------- inputs


def _live_records(
    opts: DecodeOptions,
    eng: LocalEngine,
    topic: str,
    groups: list[str] | None,
    progress: DecodeProgress,
) -> Iterator[DecodedRecord]:
    from kgroup.core.topic_reader import TopicReader
    from kgroup.offsets.replay import partition_for

    reader = TopicReader(opts.admin(), topic)
    partitions = None
    if groups:
        count = reader.partition_count()
        partitions = sorted({partition_for(g, count) for g in groups})
    progress.start_records("reading " + topic)

    return eng.live_records(reader.read(partitions, on_progress=progress.records))


# ---------------------------------------------------------------- other outputs


def write_jsonl_dir(directory: str, lines: Iterable[str]) -> str:
    """`--out DIR` of the local engine: DIR/part-00000.jsonl, written line by line."""
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "part-00000.jsonl")
    with open(path, "w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(line)
            fh.write("\n")
    return path


def summary_document(scan: Scan) -> dict[str, Any]:
    """The `summary` of the JSON documents: what was read and what went wrong."""
    stats = scan.stats
    return {
        "files": stats.files,
        "bytes": stats.bytes,
        "batches": stats.batches,
        "records_read": stats.records,
        "records": stats.emitted,
        "problems": [
            {"source": p.source, "position": p.position, "kind": p.kind, "message": p.message}
            for p in stats.problems
        ],
        "open_transactions": [
            {"partition": scope, "producer_id": pid, "records": held}
            for scope, pid, held in stats.open_transactions
        ],
    }
