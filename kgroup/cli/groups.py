"""`kgroup list`: the groups of a cluster with state, type, protocol type and member count."""

from __future__ import annotations

import typer

from kgroup.cli.app import options
from kgroup.cli.validate import check_group_names


def register(app: typer.Typer) -> None:
    app.command("list")(list_groups)
    register_delete(app)


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


FORCE_HELP = (
    "Override the protected-groups list "
    "(KGROUP_PROTECTED_GROUPS, $XDG_CONFIG_HOME/kgroup/protected-groups)."
)


def register_delete(app: typer.Typer) -> None:
    app.command("delete")(delete_groups)
    app.command("delete-offsets")(delete_offsets)


def delete_groups(
    ctx: typer.Context,
    groups: list[str] = typer.Argument(..., metavar="GROUP...", help="Groups to delete."),
    force: bool = typer.Option(False, "--force", help=FORCE_HELP),
) -> None:
    """Delete groups (their committed offsets too); refused for active or protected groups."""
    from kgroup.core.groups import delete_inactive_groups
    from kgroup.render import Column, Output, render

    check_group_names(groups)
    opts = options(ctx)
    rows = delete_inactive_groups(opts.admin(), groups, force=force)
    render(
        Output(
            columns=[Column("group"), Column("status"), Column("message")],
            rows=rows,
            document={"groups": rows},
        ),
        opts.output,
        no_color=opts.no_color,
    )
    from kgroup.core.groups import raise_for_failures

    raise_for_failures(rows, "deleted")


def delete_offsets(
    ctx: typer.Context,
    group: str = typer.Argument(..., metavar="GROUP", help="The group."),
    topic: list[str] = typer.Option(
        ...,
        "--topic",
        metavar="TOPIC[:P,P..]",
        help="Offsets to delete: a topic or some of its partitions.",
    ),
    force: bool = typer.Option(False, "--force", help=FORCE_HELP),
) -> None:
    """Delete a group's committed offsets for topics or partitions; refused if active/protected."""
    from kgroup.core.groups import delete_group_offsets
    from kgroup.render import Column, Output, render

    check_group_names(group)
    opts = options(ctx)
    rows = delete_group_offsets(opts.admin(), group, topic, force=force)
    render(
        Output(
            columns=[
                Column("group"),
                Column("topic"),
                Column("partition", justify="right"),
                Column("status"),
            ],
            rows=rows,
            document={"group": group, "partitions": rows},
        ),
        opts.output,
        no_color=opts.no_color,
    )
