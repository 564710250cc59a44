"""`kgroup check`: a health verdict per group with Burrow's rules, thresholds, drain ETA and
retention headroom; exit codes a script can act on."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from kgroup.cli.context import GlobalOptions, note, options
from kgroup.cli.options import (
    all_groups_option,
    choice_option,
    duration_option,
    groups_argument,
    match_option,
    more_groups_option,
)
from kgroup.cli.validate import groups_given, positive_duration_ms

if TYPE_CHECKING:
    from kgroup.check.run import CheckOptions

FAIL_ON = ("warn", "err")
SOURCES = ("auto", "history", "sampling")
MAX_SAMPLES = 1000
MAX_WINDOW_MS = 86_400_000  # a day


def check(
    ctx: typer.Context,
    groups: list[str] | None = groups_argument("Groups to check."),
    group_opt: list[str] | None = more_groups_option("check"),
    all_groups: bool = all_groups_option("check"),
    match: str | None = match_option("check"),
    window: str = duration_option(
        "--window",
        "Time the rules look back over (1m, 30s, PT5M); sampling takes this long.",
        default="5m",
    ),
    samples: int = typer.Option(
        10,
        "--samples",
        metavar="N",
        help="Observations per window (Burrow's intervals); sampling asks N times.",
    ),
    max_lag: int | None = typer.Option(
        None, "--max-lag", metavar="N", help="ERR when a partition's lag exceeds N records."
    ),
    max_lag_time: str | None = duration_option(
        "--max-lag-time", "ERR when the first unconsumed record is older than DURATION."
    ),
    min_headroom: str | None = duration_option(
        "--min-headroom",
        "ERR when retention (retention.ms, or retention.bytes at the current production "
        "rate) would delete unconsumed records within DURATION.",
    ),
    fail_on: str = choice_option(
        "err",
        "--fail-on",
        values=FAIL_ON,
        metavar="LEVEL",
        help_text="Exit 5 when a group is at this level or worse: warn or err.",
    ),
    source: str = choice_option(
        "auto",
        "--source",
        values=SOURCES,
        metavar="SOURCE",
        help_text="Where windows come from: auto (history, else sampling), history or sampling.",
    ),
    lag_time: bool = typer.Option(
        True,
        "--lag-time/--no-lag-time",
        help="Read the first unconsumed record of each lagging partition for the lag time and "
        "retention headroom (one bounded fetch each); --no-lag-time skips both.",
    ),
    watch: bool = typer.Option(
        False, "--watch", help="Re-evaluate every window; print status changes only."
    ),
) -> None:
    """Health of consumer groups: OK, WARN, ERR, STOP, STALL, REWIND or NOTFOUND per partition
    and group (Burrow's rules), with lag time, drain ETA and retention headroom."""
    from kgroup.check.model import Thresholds
    from kgroup.check.run import CheckOptions
    from kgroup.core.errors import UsageError

    names = groups_given(groups, group_opt)
    opts = options(ctx)
    given = [bool(names), all_groups, match is not None]
    if sum(given) != 1:
        raise UsageError(
            "name the groups to check in exactly one way",
            hint="give GROUP..., or --all-groups, or --match REGEX",
        )
    window_ms = _duration(window, "--window")
    if window_ms > MAX_WINDOW_MS:
        raise UsageError(
            f"--window {window} is longer than a day", hint="use a window of a day or less"
        )
    if not 2 <= samples <= MAX_SAMPLES:
        raise UsageError(
            f"--samples must be between 2 and {MAX_SAMPLES}, got {samples}",
            hint="a window needs two observations to compare, e.g. --samples 10",
        )
    if max_lag is not None and max_lag < 0:
        raise UsageError(f"--max-lag must be 0 or more, got {max_lag}", hint="e.g. --max-lag 1000")
    if fail_on not in FAIL_ON:
        raise UsageError(f"--fail-on {fail_on!r} is not warn or err", hint="e.g. --fail-on warn")
    if source not in SOURCES:
        raise UsageError(
            f"--source {source!r} is not one of {', '.join(SOURCES)}", hint="e.g. --source auto"
        )
    if not lag_time and (max_lag_time is not None or min_headroom is not None):
        used = "--max-lag-time" if max_lag_time is not None else "--min-headroom"
        raise UsageError(
            f"{used} needs the lag time, which --no-lag-time skips",
            hint=f"drop --no-lag-time, or drop {used}",
        )
    if watch and opts.output != "table":
        raise UsageError("--watch prints status changes as lines", hint="drop -o, or drop --watch")
    request = CheckOptions(
        groups=names,
        all_groups=all_groups,
        match=match,
        window_ms=window_ms,
        samples=samples,
        thresholds=Thresholds(
            max_lag=max_lag,
            max_lag_ms=_optional_duration(max_lag_time, "--max-lag-time"),
            min_headroom_ms=_optional_duration(min_headroom, "--min-headroom"),
        ),
        fail_on=fail_on,
        source=source,
        watch=watch,
        lag_time=lag_time,
    )
    if watch:
        _watch(opts, request)
    else:
        _check_once(opts, request)


def _check_once(opts: GlobalOptions, request: CheckOptions) -> None:
    """One evaluation: notes on stderr, the verdicts printed as they are made, the exit code."""
    from kgroup.check.run import check
    from kgroup.core.collector import fewer_collections
    from kgroup.render.check import check_stream
    from kgroup.render.progress import SamplingProgress

    admin = opts.admin()
    with fewer_collections():
        with SamplingProgress(opts.no_color) as bar:
            run = check(admin, request, note=note, progress=bar.update)
        skipped = run.selection.skipped_note("check")
        if skipped:
            note(skipped)
        for text in run.notes:
            note(text)
        opts.show(check_stream(run, request, run.now_ms, opts.output))
    run.raise_outcome()


def _watch(opts: GlobalOptions, request: CheckOptions) -> None:
    """Evaluate every window; print each group's and partition's status when it changes
    (each line terminal-safe, as every other output path)."""
    import sys
    import time

    from kgroup.check.run import check
    from kgroup.render.check import status_changes

    admin = opts.admin()
    previous: dict[tuple[str, str], str] = {}
    first = True
    while True:
        started = time.monotonic()
        run = check(admin, request, note=note if first else None)
        if first:
            skipped = run.selection.skipped_note("check")
            for text in ([skipped] if skipped else []) + list(run.notes):
                note(text)
        for line in status_changes(previous, run.groups, run.now_ms):
            sys.stdout.write(line + "\n")
        sys.stdout.flush()
        first = False
        # history (or no live group) needs no waiting to collect: wait out the window
        time.sleep(max(0.0, request.window_ms / 1000 - (time.monotonic() - started)))


def _optional_duration(text: str | None, option: str) -> int | None:
    return None if text is None else _duration(text, option)


def _duration(text: str, option: str) -> int:
    """A positive duration in ms; the option named in the error."""
    return positive_duration_ms(text, option)
