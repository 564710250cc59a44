"""Options and arguments that several commands take, each declared once.

Typer reads a command's options from its parameters' defaults, so every family here is a
factory returning the `typer.Option` (or `typer.Argument`) a command puts in its signature.
The spelling users see (flag names, metavars, help wording, completion) is fixed here, so the
same option reads the same in every command. Nothing heavy is imported: `kgroup --help` builds
them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import typer

from kgroup.cli.complete import choices, cluster_names

# The `--topic` spelling kgroup.reset.planner.parse_topic_option reads: a topic, or some of
# its partitions and ranges.
TOPIC_PARTITIONS = "TOPIC[:P,P-P..]"


# --- which groups ------------------------------------------------------------------------------


def groups_argument(help_text: str, *, many: bool = True) -> Any:
    """The positional GROUP... (or GROUP) of a command, completed from the cluster."""
    return typer.Argument(
        None,
        metavar="GROUP..." if many else "GROUP",
        help=help_text,
        autocompletion=cluster_names("groups"),
        show_default=False,
    )


def group_option(help_text: str, *, name: str = "--group") -> Any:
    """An option naming a group, completed from the cluster: by default `--group G` as Kafka's
    tool spells it, beside the positional groups."""
    return typer.Option(
        None,
        name,
        metavar="GROUP",
        help=help_text,
        autocompletion=cluster_names("groups"),
    )


def more_groups_option(verb: str) -> Any:
    """`--group G` of a command that `verb`s any number of groups, adding to GROUP...."""
    return group_option(
        f"A group to {verb}, as Kafka's tool takes it (repeatable; adds to GROUP...)."
    )


def all_groups_option(verb: str) -> Any:
    """`--all-groups`: the command `verb`s every group of the cluster."""
    return typer.Option(False, "--all-groups", help=f"{verb.capitalize()} every group.")


def match_option(verb: str) -> Any:
    """`--match REGEX`: the command `verb`s the groups whose id matches."""
    return typer.Option(
        None,
        "--match",
        metavar="REGEX",
        help=f"{verb.capitalize()} the groups whose id matches REGEX.",
    )


# --- which topics ------------------------------------------------------------------------------


def topic_option(help_text: str, *, partitions: bool = True, required: bool = False) -> Any:
    """`--topic` (repeatable), completed from the cluster; with `partitions`, TOPIC[:P,P-P..]."""
    return typer.Option(
        ... if required else None,
        "--topic",
        metavar=TOPIC_PARTITIONS if partitions else "TOPIC",
        help=help_text,
        autocompletion=cluster_names("topics"),
    )


# --- values of a kind --------------------------------------------------------------------------


def choice_option(
    default: Any,
    *names: str,
    values: Iterable[str] | Callable[[], Iterable[str]],
    help_text: str,
    metavar: str | None = None,
) -> Any:
    """An option taking one of fixed `values`, completed from them.

    The metavar lists the values (`auto|local|spark`) unless given; `values` may be a callable
    (called only when a shell completes) if `metavar` is. The command checks the value itself,
    with its own message.
    """
    if metavar is None:
        if callable(values):
            raise TypeError("a choice option with computed values needs a metavar")
        metavar = "|".join(values)
    return typer.Option(
        default, *names, metavar=metavar, autocompletion=choices(values), help=help_text
    )


def duration_option(name: str, help_text: str, *, default: str | None = None) -> Any:
    """A DURATION (1m, 30s, PT5M), parsed by the command with the reset rules."""
    return typer.Option(default, name, metavar="DURATION", help=help_text)


def time_option(name: str, help_text: str) -> Any:
    """A point in time: RFC 3339 with a zone, or epoch seconds/milliseconds."""
    return typer.Option(None, name, metavar="TIME", help=help_text)


# --- plan, then commit (reset-offsets, undo) ---------------------------------------------------


def dry_run_option() -> Any:
    """`--dry-run`: print the plan only, which is also what happens without `--execute`."""
    return typer.Option(False, "--dry-run", help="Print the plan only (the default).")


def execute_option(help_text: str) -> Any:
    """`--execute`: carry the plan out."""
    return typer.Option(False, "--execute", help=help_text)


def force_option(help_text: str) -> Any:
    """`--force`: go on despite a refusal the help names."""
    return typer.Option(False, "--force", help=help_text)


def backup_option(help_text: str) -> Any:
    """`--backup FILE`: the backup an offset change writes, or restores."""
    return typer.Option(None, "--backup", metavar="FILE", help=help_text)
