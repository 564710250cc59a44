"""Run `kgroup describe` for the CLI: collect, render, then exit as CLI.md says.

Exit codes after the output is printed: 3 when a named group does not exist (and nothing else
failed), 1 when any group failed otherwise (with --all-groups / --match also when a listed group
turned out missing: the others were described), 5 when --fail-on-lag finds a partition over the
limit.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any

from kgroup.core.errors import CheckFailed
from kgroup.describe.engine import GroupLag, partitions_over_lag


@dataclass
class DescribeOptions:
    groups: list[str]
    all_groups: bool = False
    match: str | None = None
    view: str = "offsets"
    # members view: add each member's assignment (--assignments; the global -v does it too)
    assignments: bool = False
    # --topic filter: topic -> its partitions (None: every partition); empty: no filter.
    topics: dict[str, Any] = field(default_factory=dict)
    lag_time: bool = False
    read_committed: bool = False
    fail_on_lag: int | None = None
    watch: float | None = None


def describe_once(opts: Any, request: DescribeOptions) -> list[GroupLag]:
    from kgroup.describe.collect import collect, resolve_group_ids

    admin = opts.admin()
    ids = resolve_group_ids(admin, request.groups, request.all_groups, request.match)
    return collect(
        admin,
        ids,
        topics=request.topics or None,
        read_committed=request.read_committed,
        lag_time=request.lag_time and request.view == "offsets",
        now_ms=int(time.time() * 1000),
    )


def output_for(groups: list[GroupLag], request: DescribeOptions, verbose: bool) -> Any:
    from kgroup.render.describe import members_output, offsets_output, state_output

    if request.view == "members":
        return members_output(groups, verbose=request.assignments or verbose)
    if request.view == "state":
        return state_output(groups)
    return offsets_output(groups, lag_time=request.lag_time)


def run_describe(opts: Any, request: DescribeOptions) -> None:
    if request.watch:
        _watch(opts, request)
        return
    groups = describe_once(opts, request)
    opts.show(output_for(groups, request, opts.verbose))
    check_outcome(groups, request)


def check_outcome(groups: list[GroupLag], request: DescribeOptions) -> None:
    """Raise the error whose exit code the run ends with (none: exit 0)."""
    from kgroup.describe.collect import raise_for_failed_groups

    raise_for_failed_groups(
        groups, all_groups=request.all_groups, match=request.match, verb="described"
    )
    if request.fail_on_lag is not None:
        over = partitions_over_lag(groups, request.fail_on_lag)
        if over:
            shown = ", ".join(f"{r.group} {r.topic}:{r.partition} lag {r.lag}" for r in over[:5])
            more = f" and {len(over) - 5} more" if len(over) > 5 else ""
            raise CheckFailed(
                f"{len(over)} partition(s) lag more than {request.fail_on_lag}: {shown}{more}"
            )


def _watch(opts: Any, request: DescribeOptions) -> None:
    from kgroup.render import render

    clear = sys.stdout.isatty()
    while True:
        groups = describe_once(opts, request)
        if clear:
            sys.stdout.write("\x1b[2J\x1b[H")
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        sys.stdout.write(f"every {request.watch:g} s, {stamp} (Ctrl-C to stop)\n")
        render(output_for(groups, request, opts.verbose), "table", no_color=opts.no_color)
        sys.stdout.flush()
        time.sleep(request.watch or 1)
