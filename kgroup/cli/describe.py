"""`kgroup describe`: offsets and lag (messages and time), members, or state of groups."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from kgroup.cli.context import GlobalOptions, note, options
from kgroup.cli.options import (
    all_groups_option,
    groups_argument,
    match_option,
    more_groups_option,
    topic_option,
)
from kgroup.cli.validate import groups_given

if TYPE_CHECKING:
    from kgroup.describe.run import DescribeOptions, DescribeRun
    from kgroup.render.stream import Stream


def describe(
    ctx: typer.Context,
    groups: list[str] | None = groups_argument("Groups to describe."),
    group_option: list[str] | None = more_groups_option("describe"),
    all_groups: bool = all_groups_option("describe"),
    match: str | None = match_option("describe"),
    offsets_view: bool = typer.Option(
        False, "--offsets", help="One row per partition with lag (the default view)."
    ),
    members_view: bool = typer.Option(
        False, "--members", help="One row per member (--assignments adds their partitions)."
    ),
    assignments: bool = typer.Option(
        False,
        "--assignments",
        help="Members view with each member's assigned partitions (topic:0,1;topic2:3); implies "
        "--members. (-v still adds them too, with debug logging.)",
    ),
    state_view: bool = typer.Option(
        False, "--state", help="Coordinator, assignor, state, member count, type."
    ),
    topic: list[str] | None = topic_option(
        "Only rows of this topic, or of its listed partitions and ranges (repeatable)."
    ),
    lag_time: bool = typer.Option(
        False, "--lag-time", help="Add lag_ms: age of the first unconsumed record."
    ),
    read_committed: bool = typer.Option(
        False, "--read-committed", help="Lag against the last stable offset."
    ),
    fail_on_lag: int | None = typer.Option(
        None, "--fail-on-lag", metavar="N", min=0, help="Exit 5 when any partition's lag exceeds N."
    ),
    watch: float | None = typer.Option(
        None, "--watch", metavar="SECONDS", help="Refresh every SECONDS until interrupted."
    ),
) -> None:
    """Describe groups: committed offsets, log offsets and lag per partition; members; state."""
    from kgroup.core.errors import UsageError
    from kgroup.describe.run import DescribeOptions

    groups = groups_given(groups, group_option)
    opts = options(ctx)
    views = [
        name
        for name, on in (
            ("offsets", offsets_view),
            ("members", members_view),
            ("state", state_view),
        )
        if on
    ]
    if len(views) > 1:
        raise UsageError(
            f"choose one view, not {' and '.join('--' + v for v in views)}",
            hint="use --offsets (default), --members or --state",
        )
    if assignments and views and views[0] != "members":
        raise UsageError(
            f"--assignments belongs to the members view, not --{views[0]}",
            hint="use --members --assignments",
        )
    if assignments:
        views = ["members"]
    if watch is not None:
        from kgroup.core.config import checked_seconds

        checked_seconds(watch, "--watch")
        if opts.output != "table":
            raise UsageError("--watch refreshes a table", hint="drop -o, or drop --watch")
    request = DescribeOptions(
        groups=groups or [],
        all_groups=all_groups,
        match=match,
        view=views[0] if views else "offsets",
        assignments=assignments,
        topics=topic_filter(topic or []),
        lag_time=lag_time,
        read_committed=read_committed,
        fail_on_lag=fail_on_lag,
        watch=watch,
    )
    if watch:
        _watch(opts, request)
    else:
        _describe_once(opts, request)


def _stream(opts: GlobalOptions, request: DescribeOptions, run: DescribeRun) -> Stream:
    from kgroup.render.describe import describe_stream

    return describe_stream(
        run,
        view=request.view,
        lag_time=request.lag_time,
        assignments=request.assignments or opts.verbose,
    )


def _describe_once(opts: GlobalOptions, request: DescribeOptions) -> None:
    """Describe once: the groups printed as they are described, then the exit code."""
    from kgroup.describe.run import describe

    run = describe(opts.admin(), request)
    skipped = run.selection.skipped_note("describe")
    if skipped:
        note(skipped)
    opts.show(_stream(opts, request, run))
    run.raise_outcome()


def _watch(opts: GlobalOptions, request: DescribeOptions) -> None:
    """Describe every --watch seconds, the screen cleared on a terminal, until interrupted."""
    import sys
    import time

    from kgroup.core.timefmt import format_utc_s
    from kgroup.describe.run import describe

    clear = sys.stdout.isatty()
    admin = opts.admin()
    while True:
        run = describe(admin, request)
        if clear:
            sys.stdout.write("\x1b[2J\x1b[H")
        stamp = format_utc_s(int(time.time() * 1000))
        sys.stdout.write(f"every {request.watch:g} s, {stamp} (Ctrl-C to stop)\n")
        opts.show(_stream(opts, request, run), mode="table")
        sys.stdout.flush()
        time.sleep(request.watch or 1)


def topic_filter(values: list[str]) -> dict[str, Any]:
    """`--topic` values -> topic -> PartitionSet (None: every partition), repeats merged."""
    if not values:  # the parser (reset's planner, ~40 ms to import) only when needed
        return {}
    from kgroup.core.partition_list import PartitionSet
    from kgroup.reset.planner import parse_topic_option

    merged: dict[str, Any] = {}
    for value in values:
        sel = parse_topic_option(value)
        if sel.topic in merged and (merged[sel.topic] is None or sel.partitions is None):
            merged[sel.topic] = None
        elif sel.topic in merged:
            both = merged[sel.topic].ranges + sel.partitions.ranges
            merged[sel.topic] = PartitionSet.of_ranges(both)
        else:
            merged[sel.topic] = sel.partitions
    return merged
