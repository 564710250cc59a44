"""`kgroup decode`: read `__consumer_offsets` from log segments or live, every type and version.

Contract: CLI.md `kgroup decode` and "decode output records"; format: OFFSETS_FORMAT.md.
The command only parses and checks options; kgroup/decode/run.py picks the engine and reads;
kgroup/cli/decode_view.py streams the view (kgroup/render/records_stream.py). Heavy modules are
imported inside.
"""

from __future__ import annotations

import typer

from kgroup.cli.context import options
from kgroup.cli.options import choice_option, group_option, time_option, topic_option
from kgroup.cli.validate import option_value
from kgroup.core.errors import UsageError

DEFAULT_OFFSETS_TOPIC = "__consumer_offsets"
ENGINES = ("auto", "local", "spark")


def _record_type_choices() -> list[str]:
    """`--type` values: offset, group, all and every record type name (for completion)."""
    from kgroup.offsets.schema import RECORD_TYPE_NAMES

    return ["offset", "group", "all", *sorted(RECORD_TYPE_NAMES)]


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
    group: list[str] | None = group_option("Only records of this group (repeatable)."),
    topic: list[str] | None = topic_option(
        "Only offset commits of this topic (repeatable).", partitions=False
    ),
    record_type: str = choice_option(
        "all",
        "--type",
        values=_record_type_choices,
        metavar="TYPE",
        help_text="offset, group, all, or one record type (e.g. consumer_group_member_metadata).",
    ),
    latest: bool = typer.Option(
        False, "--latest", help="The compacted view: last value per key, transactions replayed."
    ),
    as_of: str | None = time_option("--as-of", "Committed offsets as they were at TIME."),
    since: str | None = time_option("--since", "Only records written at or after TIME."),
    until: str | None = time_option("--until", "Only records written at or before TIME."),
    summary: bool = typer.Option(
        False, "--summary", help="One row per group: type, protocol, commits, members, deleted."
    ),
    engine: str = choice_option(
        "auto",
        "--engine",
        values=ENGINES,
        help_text="local: in process; spark: PySpark (pip install 'kgroup[spark]'); auto: Spark "
        "for 1 GiB+ of segments where Spark should finish sooner on this machine's cores.",
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
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r}", hint="use auto, local or spark")
    if sum((latest, as_of is not None, summary)) > 1:
        raise UsageError("choose one of --latest, --as-of and --summary")
    confs = [_spark_conf_pair(c) for c in spark_conf or []]
    if engine == "local" and (spark_master or confs):
        raise UsageError(
            "--spark-master and --spark-conf need the Spark engine", hint="--engine spark"
        )

    from kgroup.decode.run import DecodeOptions, DecodeRequest, run_decode
    from kgroup.scan.local import DecodeFilter, type_ids_for

    if out is not None:  # only new backups go to the backup directory (issue 24 item 1)
        from kgroup.reset.backups import refuse_inside_backups

        refuse_inside_backups(out, "--out")

    type_ids = type_ids_for(record_type)
    when = parse_time(as_of, "--as-of")
    if when is not None:
        type_ids = type_ids_for("offset")
    flt = DecodeFilter(
        groups=frozenset(group) if group else None,
        topics=frozenset(topic) if topic else None,
        type_ids=type_ids,
        since=parse_time(since, "--since"),
        until=parse_time(until, "--until"),
    )
    view = (
        "summary" if summary else "latest" if latest else "as_of" if when is not None else "records"
    )
    request = DecodeRequest(
        flt=flt,
        view=view,
        paths=None if live else list(paths or []),
        when=when,
        engine=engine,
        spark_master=spark_master,
        spark_conf=tuple(confs),
        out=out,
        skip_corrupt=skip_corrupt,
        offsets_topic=offsets_topic,
        groups=group,
    )
    from kgroup.cli.decode_view import CliDecodeView

    run_decode(DecodeOptions(admin=opts.admin), request, CliDecodeView(opts))


# ---------------------------------------------------------------- parsing


def _spark_conf_pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise UsageError(
            f"--spark-conf {text!r}: expected KEY=VALUE",
            hint="--spark-conf spark.executor.memory=4g",
        )
    return key.strip(), value


# ---------------------------------------------------------------- time


def parse_time(text: str | None, option: str) -> int | None:
    """RFC 3339 with a zone, or epoch seconds/milliseconds -> epoch ms (the reset rules);
    None (the option not given) stays None, without importing the reset rules."""
    if text is None:
        return None
    from kgroup.reset.timespec import parse_datetime_ms

    return option_value(parse_datetime_ms, text, option)
