"""`kgroup decode`: read `__consumer_offsets` from log segments or live, every type and version.

Contract: CLI.md `kgroup decode` and "decode output records"; format: OFFSETS_FORMAT.md.
The command parses options, picks the input, hands records to the local scan engine and the
results to the renderer. Heavy modules are imported inside the command.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import typer

from kgroup.cli.app import note, options
from kgroup.cli.complete import choices, cluster_names
from kgroup.core.errors import UsageError

if TYPE_CHECKING:
    from kgroup.offsets.decode import DecodedRecord
    from kgroup.scan.api import Scan
    from kgroup.scan.local import LocalEngine

DEFAULT_OFFSETS_TOPIC = "__consumer_offsets"
PROGRESS_MIN_BYTES = 32 * 1024 * 1024  # show a progress bar for inputs at least this big


ENGINES = ("auto", "local", "spark")


def _record_type_choices() -> list[str]:
    """`--type` values: offset, group, all and every record type name (for completion)."""
    from kgroup.offsets.schema import RECORD_TYPE_NAMES

    return ["offset", "group", "all", *sorted(RECORD_TYPE_NAMES)]


def register(app: typer.Typer) -> None:
    app.command("decode")(decode)


def decode(
    ctx: typer.Context,
    paths: list[str] | None = typer.Argument(
        None,
        metavar="PATH...",
        help="Segment files, partition directories or log directories.",
        show_default=False,
    ),
    live: bool = typer.Option(False, "--live", help="Read the topic from the cluster."),
    segments: bool = typer.Option(
        False, "--segments", help="Read the PATHs (.log files or directories) from disk."
    ),
    group: list[str] | None = typer.Option(
        None,
        "--group",
        metavar="GROUP",
        help="Only records of this group (repeatable).",
        autocompletion=cluster_names("groups"),
    ),
    topic: list[str] | None = typer.Option(
        None,
        "--topic",
        metavar="TOPIC",
        help="Only offset commits of this topic (repeatable).",
        autocompletion=cluster_names("topics"),
    ),
    record_type: str = typer.Option(
        "all",
        "--type",
        metavar="TYPE",
        help="offset, group, all, or one record type (e.g. consumer_group_member_metadata).",
        autocompletion=choices(_record_type_choices),
    ),
    latest: bool = typer.Option(
        False, "--latest", help="The compacted view: last value per key, transactions replayed."
    ),
    as_of: str | None = typer.Option(
        None, "--as-of", metavar="TIME", help="Committed offsets as they were at TIME."
    ),
    since: str | None = typer.Option(
        None, "--since", metavar="TIME", help="Only records written at or after TIME."
    ),
    until: str | None = typer.Option(
        None, "--until", metavar="TIME", help="Only records written at or before TIME."
    ),
    summary: bool = typer.Option(
        False, "--summary", help="One row per group: type, protocol, commits, members, deleted."
    ),
    engine: str = typer.Option(
        "auto",
        "--engine",
        metavar="|".join(ENGINES),
        autocompletion=choices(ENGINES),
        help="local: in process; spark: PySpark (pip install 'kgroup[spark]'); auto: Spark for "
        "1 GiB+ of segments where Spark should finish sooner on this machine's cores.",
    ),
    spark_master: str | None = typer.Option(
        None, "--spark-master", metavar="URL", help="Run on this Spark master (default local[*])."
    ),
    spark_conf: list[str] | None = typer.Option(
        None, "--spark-conf", metavar="KEY=VALUE", help="A Spark setting (repeatable)."
    ),
    out: str | None = typer.Option(
        None,
        "--out",
        metavar="DIR",
        help="Write the results into DIR: Parquet with the Spark engine, JSONL locally.",
    ),
    skip_corrupt: bool = typer.Option(
        False, "--skip-corrupt", help="Report corrupt batches on stderr and continue."
    ),
    offsets_topic: str = typer.Option(
        DEFAULT_OFFSETS_TOPIC,
        "--offsets-topic",
        metavar="NAME",
        help="With --live: read a copy of the offsets topic under another name.",
    ),
) -> None:
    """Decode __consumer_offsets records: offset commits, group metadata, KIP-848/share/streams
    records, tombstones and transaction markers, from segment files or live."""
    opts = options(ctx)
    if segments and live:
        raise UsageError("choose --live or --segments, not both")
    if live and paths:
        raise UsageError("--live reads the cluster; it takes no PATH", hint="drop the PATHs")
    if not live and not paths:
        raise UsageError(
            "--segments needs at least one PATH" if segments else "say where to read from",
            hint="kgroup decode --segments DIR... or kgroup decode --live",
        )
    if engine not in ("auto", "local", "spark"):
        raise UsageError(f"unknown engine {engine!r}", hint="use auto, local or spark")
    if sum((latest, as_of is not None, summary)) > 1:
        raise UsageError("choose one of --latest, --as-of and --summary")
    confs = [_spark_conf_pair(c) for c in spark_conf or []]
    if engine == "local" and (spark_master or confs):
        raise UsageError(
            "--spark-master and --spark-conf need the Spark engine", hint="--engine spark"
        )

    from kgroup.scan.local import DecodeFilter, LocalEngine, type_ids_for

    type_ids = type_ids_for(record_type)
    when = parse_time(as_of, "--as-of") if as_of is not None else None
    if when is not None:
        type_ids = type_ids_for("offset")
    flt = DecodeFilter(
        groups=frozenset(group) if group else None,
        topics=frozenset(topic) if topic else None,
        type_ids=type_ids,
        since=parse_time(since, "--since") if since is not None else None,
        until=parse_time(until, "--until") if until is not None else None,
    )
    view = (
        "summary" if summary else "latest" if latest else "as_of" if when is not None else "records"
    )

    def on_problem(problem: Any) -> None:
        note(f"{'corrupt input, skipped' if problem.fatal else 'note'}: {problem.describe()}")

    inputs = None
    if not live:
        from kgroup.scan.local import find_segments

        inputs = find_segments(paths or [])
    # the record stream printed here comes through the driver row by row: only --out lets the
    # tasks write it in parallel, so only then can Spark pay off for it
    cost_view = "stream" if view == "records" and out is None else view
    use_spark = _choose_engine(engine, inputs, bool(spark_master or confs), view=cost_view)

    with _Progress(opts.no_color) as progress:
        if use_spark:
            scan: Scan = _spark_scan(
                opts,
                flt,
                inputs,
                offsets_topic,
                group,
                spark_master,
                confs,
                skip_corrupt,
                on_problem,
                progress,
            )
        else:
            from kgroup.scan.api import LocalScan, live_scope_order, segment_scope_order

            eng = LocalEngine(flt, skip_corrupt=skip_corrupt, on_problem=on_problem)
            if inputs is None:
                recs = _live_records(opts, eng, offsets_topic, group, progress)
                scan = LocalScan(eng, lambda: recs, live_scope_order)
            else:
                progress.start_bytes(sum(i.size for i in inputs), "decoding")
                eng.on_progress = progress.advance
                items = inputs
                scan = LocalScan(
                    eng, lambda: eng.segment_records(items), segment_scope_order(items)
                )

        if out is not None and use_spark:
            path = scan.write(out, view, when)  # type: ignore[attr-defined]
            progress.stop()
            _print_out_summary(opts, scan, path)
        elif view == "summary":
            groups = scan.summary()
            progress.stop()
            if out is not None:
                path = _write_jsonl_dir(out, (json.dumps(r) for r in groups))
                _print_out_summary(opts, scan, path)
            else:
                _render_summary(opts, groups, scan)
        else:
            if view == "latest":
                selected: Iterable[DecodedRecord] = scan.latest()
            elif view == "as_of":
                selected = scan.as_of(when)  # type: ignore[arg-type]
            else:
                selected = scan.records()
            if out is not None:
                path = _write_jsonl_dir(out, (r.to_json() for r in selected))
                progress.stop()
                _print_out_summary(opts, scan, path)
            elif opts.output == "jsonl":
                _stream_jsonl(selected)
            else:
                rows = list(selected)
                progress.stop()
                _render(opts, rows, scan)
    for scope, producer_id, held in scan.stats.open_transactions:
        note(
            f"transaction of producer {producer_id} in {scope} has no COMMIT/ABORT marker yet "
            f"({held} records held back as open/unknown)"
        )


# ---------------------------------------------------------------- engines


def _spark_conf_pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise UsageError(
            f"--spark-conf {text!r}: expected KEY=VALUE",
            hint="--spark-conf spark.executor.memory=4g",
        )
    return key.strip(), value


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


def _choose_engine(
    engine: str,
    inputs: list[Any] | None,
    spark_named: bool,
    *,
    view: str = "records",
    cores: int | None = None,
) -> bool:
    """True for Spark; auto: Spark when the measured cost model says it finishes sooner for
    this input size, view and number of cores (said on stderr)."""
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
        return True
    if inputs is None:
        return False
    size = sum(i.size for i in inputs)
    cores = cores or os.cpu_count() or 1
    if not spark_pays_off(size, cores, view):
        return False
    mib = size / 2**20
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
    opts: Any,
    flt: Any,
    inputs: list[Any] | None,
    topic: str,
    groups: list[str] | None,
    master: str | None,
    confs: list[tuple[str, str]],
    skip_corrupt: bool,
    on_problem: Callable[[Any], None],
    progress: _Progress,
) -> Scan:
    from kgroup.scan.api import LiveSpec
    from kgroup.scan.spark import SparkScan, start_session

    live = None
    if inputs is None:
        from kgroup.core.topic_reader import TopicReader
        from kgroup.offsets.replay import partition_for

        cluster = opts.cluster()
        partitions = None
        if groups:
            count = TopicReader(opts.admin(), topic).partition_count()
            partitions = tuple(sorted({partition_for(g, count) for g in groups}))
        live = LiveSpec(dict(cluster.client_properties()), topic, partitions, cluster.timeout_s)
    spark = start_session(master, confs, app_name="kgroup decode")
    console = None
    if progress.enabled:
        from kgroup.render import stderr_console

        console = stderr_console(opts.no_color)
    return SparkScan(
        spark,
        flt,
        inputs=inputs,
        live=live,
        skip_corrupt=skip_corrupt,
        on_problem=on_problem,
        console=console,
    )


# ---------------------------------------------------------------- inputs


def _live_records(
    opts: Any,
    eng: LocalEngine,
    topic: str,
    groups: list[str] | None,
    progress: _Progress,
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


# ---------------------------------------------------------------- outputs


def _stream_jsonl(recs: Iterable[DecodedRecord]) -> None:
    write = sys.stdout.write
    for rec in recs:
        write(rec.to_json())
        write("\n")


def _write_jsonl_dir(directory: str, lines: Iterable[str]) -> str:
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "part-00000.jsonl")
    with open(path, "w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(line)
            fh.write("\n")
    return path


def _summary_document(scan: Scan) -> dict[str, Any]:
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


def _print_out_summary(opts: Any, scan: Scan, path: str) -> None:
    from kgroup.render import Column, Output, render

    doc = _summary_document(scan)
    row = {"path": path, "records": doc["records"], "records_read": doc["records_read"]}
    row["problems"] = len(doc["problems"])
    output = Output(
        columns=[
            Column("path"),
            Column("records", justify="right"),
            Column("records_read", justify="right"),
            Column("problems", justify="right"),
        ],
        rows=[row],
        document={"out": path, "summary": doc},
    )
    render(output, opts.output, no_color=opts.no_color)


SUMMARY_COLUMNS = (
    ("group", "GROUP", "left"),
    ("type", "TYPE", "left"),
    ("protocol", "PROTOCOL", "left"),
    ("last_commit", "LAST COMMIT", "left"),
    ("commits", "COMMITS", "right"),
    ("topics", "TOPICS", "left", "text"),
    ("partitions", "PARTITIONS", "right"),
    ("generation", "GENERATION", "right"),
    ("members", "MEMBERS", "right"),
    ("deleted", "DELETED", "left"),
)


def _render_summary(opts: Any, groups: list[dict[str, Any]], scan: Scan) -> None:
    """`--summary`: one row per group; JSON keeps epoch ms and topic lists."""
    from kgroup.render import Column, Output, render

    rows = [
        {
            **g,
            "last_commit": format_ms(g["last_commit"]),
            "topics": ",".join(g["topics"]) or None,
            "deleted": "yes" if g["deleted"] else "no",
        }
        for g in groups
    ]
    output = Output(
        columns=[Column(*spec) for spec in SUMMARY_COLUMNS],
        rows=rows,
        document={"groups": groups, "summary": _summary_document(scan)},
        jsonl_items=groups,
        footer=[f"{len(groups)} groups"],
        empty_message="no groups",
    )
    render(output, opts.output, no_color=opts.no_color)


# (key, header, justify, kind): on a narrow terminal only the "text" columns wrap
# (kgroup/render/table.py); offsets, times, types, groups and keys are never cut.
COLUMNS = (
    ("source", "SOURCE", "left", "text"),
    ("offset", "OFFSET", "right", "number"),
    ("time", "TIME", "left", "key"),
    ("record_type", "TYPE", "left", "key"),
    ("group", "GROUP", "left", "key"),
    ("key", "KEY", "left", "key"),  # topic-partition of a commit, member id, ...
    ("value", "VALUE", "left", "text"),
)


def _render(opts: Any, recs: list[DecodedRecord], scan: Scan) -> None:
    from kgroup.render import Column, Output, render

    rows = [_row(r) for r in recs]
    items = [r.to_dict() for r in recs] if opts.output == "json" else []
    doc = {"records": items, "summary": _summary_document(scan)}
    footer = [f"{len(rows)} records"]
    if scan.stats.problems:
        footer.append(f"{len(scan.stats.problems)} problems reported on stderr")
    output = Output(
        columns=[Column(k, h, j, kind) for k, h, j, kind in COLUMNS],
        rows=rows,
        document=doc,
        footer=footer,
        empty_message="no records",
    )
    render(output, opts.output, no_color=opts.no_color)


def _row(rec: DecodedRecord) -> dict[str, Any]:
    return {
        "source": rec.source,
        "offset": rec.offset,
        "time": format_ms(rec.timestamp),
        "record_type": rec.record_type,
        "group": rec.group,
        "key": _key_text(rec),
        "value": _value_text(rec),
    }


def _key_text(rec: DecodedRecord) -> str | None:
    key = rec.key
    if key is None:
        return None
    if rec.control:
        return None
    if rec.key_type in (0, 1):
        return f"{key.get('topic')}-{key.get('partition')}"
    rest = {k: v for k, v in key.items() if k not in ("group", "group_id")}
    return " ".join(str(v) for v in rest.values()) or None


def _value_text(rec: DecodedRecord) -> str:
    if rec.record_type == "unknown" or rec.error:
        return rec.error or "unknown"
    if rec.tombstone:
        return "<DELETE>"
    v = rec.value or {}
    if rec.record_type == "txn_marker":
        epoch = v.get("coordinator_epoch")
        return f"{v.get('marker')} coordinator_epoch={epoch}"
    if rec.record_type == "offset_commit":
        parts = [f"offset={v.get('offset')}"]
        if v.get("leader_epoch", -1) != -1:
            parts.append(f"leader_epoch={v['leader_epoch']}")
        if v.get("metadata"):
            parts.append(f"metadata={v['metadata']!r}")
        parts.append(f"commit={format_ms(v.get('commit_timestamp', -1))}")
        if v.get("expire_timestamp", -1) != -1:
            parts.append(f"expire={format_ms(v['expire_timestamp'])}")
        if v.get("topic_id"):
            parts.append(f"topic_id={v['topic_id']}")
        return " ".join(parts)
    if rec.record_type == "group_metadata":
        members = v.get("members") or []
        state = "Stable" if members else "Empty"
        proto = f"{v.get('protocol_type') or '-'}/{v.get('protocol') or '-'}"
        return f"{state} {proto} generation={v.get('generation')} members={len(members)}"
    from kgroup.offsets.decode import jsonable

    text = json.dumps(jsonable(v), separators=(",", ":"), ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


# ---------------------------------------------------------------- time


def parse_time(text: str, option: str) -> int:
    """RFC 3339 with a zone, or epoch seconds/milliseconds -> epoch ms (the reset rules)."""
    from kgroup.reset.timespec import parse_datetime_ms

    try:
        return parse_datetime_ms(text)
    except UsageError as exc:
        raise UsageError(f"{option}: {exc.message}", hint=exc.hint) from None


def format_ms(ms: int | None) -> str | None:
    """Epoch ms as an RFC 3339 UTC time with milliseconds; None/negative as None."""
    if ms is None or ms < 0:
        return None
    from kgroup.reset.timespec import format_utc_ms

    try:
        return format_utc_ms(ms)
    except (OverflowError, ValueError):
        return str(ms)


# ---------------------------------------------------------------- progress


class _Progress:
    """A rich progress bar on stderr for long reads; silent when stderr is not a terminal."""

    def __init__(self, no_color: bool) -> None:
        self.no_color = no_color
        self.bar: Any = None
        self.task: Any = None
        self.enabled = sys.stderr.isatty() and os.environ.get("KGROUP_NO_PROGRESS", "") == ""

    def __enter__(self) -> _Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _start(self, total: int | None, label: str, columns: Callable[[Any], list[Any]]) -> None:
        if not self.enabled:
            return
        import rich.progress as rp

        from kgroup.render import stderr_console

        self.bar = rp.Progress(*columns(rp), console=stderr_console(self.no_color), transient=True)
        self.bar.start()
        self.task = self.bar.add_task(label, total=total)

    def start_bytes(self, total: int, label: str) -> None:
        if total < PROGRESS_MIN_BYTES:
            return
        self._start(
            total,
            label,
            lambda rp: [
                rp.TextColumn("{task.description}"),
                rp.BarColumn(),
                rp.DownloadColumn(),
                rp.TransferSpeedColumn(),
                rp.TimeRemainingColumn(),
            ],
        )

    def start_records(self, label: str) -> None:
        self._start(
            None,
            label,
            lambda rp: [
                rp.TextColumn("{task.description}"),
                rp.BarColumn(),
                rp.MofNCompleteColumn(),
                rp.TimeElapsedColumn(),
            ],
        )

    def advance(self, n: int) -> None:
        if self.bar is not None:
            self.bar.advance(self.task, n)

    def records(self, done: int, total: int) -> None:
        if self.bar is not None and (done % 1000 == 0 or done == total):
            self.bar.update(self.task, completed=done, total=total)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
