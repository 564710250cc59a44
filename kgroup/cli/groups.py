"""`kgroup list`: the groups of a cluster with state, type, protocol type and member count."""

from __future__ import annotations

import typer

from kgroup.cli.context import note, options
from kgroup.cli.options import (
    choice_option,
    force_option,
    group_option,
    groups_argument,
    more_groups_option,
    topic_option,
)
from kgroup.cli.validate import check_group_names, groups_given


def _group_types() -> tuple[str, ...]:
    """`list --type` values (imported only when a shell completes them)."""
    from kgroup.core.admin import GROUP_TYPES

    return GROUP_TYPES


def _group_states() -> tuple[str, ...]:
    """`list --state` values (imported only when a shell completes them)."""
    from kgroup.core.admin import GROUP_STATES

    return tuple(GROUP_STATES)


def list_groups(
    ctx: typer.Context,
    state: list[str] | None = choice_option(
        None,
        "--state",
        values=_group_states,
        metavar="STATE",
        help_text="Only groups in this state (repeatable): Stable, Empty, "
        "PreparingRebalance, CompletingRebalance, Dead, Assigning, Reconciling.",
    ),
    group_type: str | None = choice_option(
        None,
        "--type",
        values=_group_types,
        metavar="TYPE",
        help_text="Only groups of this type: classic, consumer, share, streams.",
    ),
) -> None:
    """List groups (classic, consumer, share, streams) with state, type, protocol type and
    member count."""
    from kgroup.core.groups import list_groups_with_state, parse_state_filter, parse_type_filter
    from kgroup.render.groups import list_stream

    opts = options(ctx)
    states = parse_state_filter(state or [])
    types = parse_type_filter(group_type)
    opts.show(list_stream(list_groups_with_state(opts.admin(), states=states, types=types)))


FORCE_HELP = (
    "Override the protected-groups list "
    "(KGROUP_PROTECTED_GROUPS, $XDG_CONFIG_HOME/kgroup/protected-groups)."
)


def delete_groups(
    ctx: typer.Context,
    groups: list[str] | None = groups_argument("Groups to delete (or give them with --group)."),
    group_option: list[str] | None = more_groups_option("delete"),
    force: bool = force_option(FORCE_HELP),
    delete_all_internal_topics: bool = typer.Option(
        False,
        "--delete-all-internal-topics",
        help="Streams groups: then delete their repartition and changelog topics (as "
        "kafka-streams-groups).",
    ),
) -> None:
    """Delete groups of any type with their offsets (a share group's start offsets too);
    refused for active or protected groups."""
    from kgroup.core.errors import UsageError
    from kgroup.delete.groups import delete_inactive_groups
    from kgroup.render import Column, Output

    groups = groups_given(groups, group_option)
    if not groups:
        raise UsageError("delete needs GROUP... or --group GROUP", hint="kgroup delete GROUP")
    opts = options(ctx)
    from kgroup.delete.groups import raise_for_failures, raise_for_interruption, row_lines
    from kgroup.reset.interrupts import Interrupts

    with Interrupts(note) as interrupts:  # SIGTERM as Ctrl-C, from here to the last row
        not_deleted: list[str] = []
        interrupted: str | None = None
        if delete_all_internal_topics:  # streams groups (kgroup.reset.streams)
            from kgroup.reset.streams import delete_with_internal_topics

            rows, not_deleted, interrupted = delete_with_internal_topics(
                opts.admin(), groups, force=force
            )
        else:
            rows = delete_inactive_groups(opts.admin(), groups, force=force)
        interrupts.reporting(lambda: row_lines(rows))
        opts.show(
            Output(
                columns=[Column("group"), Column("status"), Column("message")],
                rows=rows,
                document={"groups": rows},
            )
        )
        raise_for_interruption(rows.interrupted)  # during DeleteGroups: no topic was deleted
        raise_for_interruption(interrupted, topics=True)
        raise_for_failures(rows, "deleted")
        if not_deleted:
            from kgroup.core.errors import PartialFailure

            raise PartialFailure("; ".join(not_deleted))  # exit 1: the groups are deleted


def delete_offsets(
    ctx: typer.Context,
    group: str | None = groups_argument("The group (or give it with --group).", many=False),
    group_option: list[str] | None = group_option(
        "The group, as Kafka's tool takes it (instead of GROUP)."
    ),
    topic: list[str] = topic_option(
        "Offsets to delete: a topic, or some of its partitions and ranges (orders:0-2,5).",
        required=True,
    ),
    force: bool = force_option(FORCE_HELP),
) -> None:
    """Delete a group's committed offsets for topics or partitions (Kafka refuses topics an
    active group consumes; a share group's start offsets go by whole topic, only while it is
    empty; protected groups are refused)."""
    from kgroup.core.errors import UsageError
    from kgroup.delete.groups import delete_group_offsets
    from kgroup.render import Column, Output
    from kgroup.reset.planner import parse_topic_option

    given = [*([group] if group is not None else []), *(group_option or [])]
    check_group_names(group)
    check_group_names(group_option, option="--group")
    if len(given) != 1:
        raise UsageError(
            "delete-offsets takes one group: "
            + ("none given" if not given else "got " + ", ".join(repr(g) for g in given)),
            hint="kgroup delete-offsets GROUP --topic T, or --group GROUP --topic T",
        )
    group = given[0]
    for value in topic:  # a bad --topic is a usage error before the cluster is asked
        parse_topic_option(value)
    opts = options(ctx)
    from kgroup.delete.groups import (
        raise_for_offset_failures,
        raise_for_offsets_interruption,
        row_lines,
    )
    from kgroup.reset.interrupts import Interrupts

    with Interrupts(note) as interrupts:  # SIGTERM as Ctrl-C, from here to the last row
        rows = delete_group_offsets(opts.admin(), group, topic, force=force)
        interrupts.reporting(lambda: row_lines(rows))
        opts.show(
            Output(
                columns=[
                    Column("group"),
                    Column("topic"),
                    Column("partition", justify="right"),
                    Column("status"),
                ],
                rows=rows,
                document={"group": group, "partitions": rows},
            )
        )
        raise_for_offsets_interruption(rows.interrupted, group)  # during OffsetDelete
        raise_for_offset_failures(rows)
