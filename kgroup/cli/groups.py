"""`kgroup list`: the groups of a cluster with state, type, protocol type and member count."""

from __future__ import annotations

import typer

from kgroup.cli.app import options


def register(app: typer.Typer) -> None:
    app.command("list")(list_groups)


def list_groups(
    ctx: typer.Context,
    state: list[str] | None = typer.Option(
        None,
        "--state",
        help="Only groups in this state (repeatable): Stable, Empty, "
        "PreparingRebalance, CompletingRebalance, Dead, Assigning, Reconciling.",
        metavar="STATE",
    ),
    group_type: str | None = typer.Option(
        None,
        "--type",
        help="Only groups of this type: classic, consumer, share, streams.",
        metavar="TYPE",
    ),
) -> None:
    """List consumer groups with state, type, protocol type and member count."""
    from kgroup.core.groups import list_groups_with_state, parse_state_filter, parse_type_filter
    from kgroup.render import Column, Output, render

    opts = options(ctx)
    states = parse_state_filter(state or [])
    types = parse_type_filter(group_type)
    rows = list_groups_with_state(opts.admin(), states=states, types=types)
    output = Output(
        columns=[
            Column("group"),
            Column("state"),
            Column("type"),
            Column("protocol_type"),
            Column("members", justify="right"),
        ],
        rows=rows,
        document={"groups": rows},
        empty_message="No groups.",
    )
    render(output, opts.output, no_color=opts.no_color)
