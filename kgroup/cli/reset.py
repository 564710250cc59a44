"""`kgroup reset-offsets` and `kgroup undo`: a plan first, then an all-or-nothing commit."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from kgroup.cli.context import GlobalOptions, note, options
from kgroup.cli.options import (
    all_groups_option,
    backup_option,
    choice_option,
    dry_run_option,
    duration_option,
    execute_option,
    force_option,
    groups_argument,
    more_groups_option,
    time_option,
    topic_option,
)
from kgroup.cli.validate import check_group_names, groups_given

if TYPE_CHECKING:
    from kgroup.reset.run import ResetView

# `--to` values (kgroup.reset.strategy.parse_to accepts them in any case).
TO_VALUES = ("earliest", "latest", "none", "current")
# The `--to VALUE`s kafka-consumer-groups.sh also spells `--to-VALUE`, counted as strategy options.
ALIASED_TO_VALUES = ("earliest", "latest", "current")
TO_ALIASES = tuple(f"--to-{value}" for value in ALIASED_TO_VALUES)


def _to_alias_option(value: str) -> Any:
    """`--to-VALUE`, Kafka's spelling of `--to VALUE`, counted so that a repeat is refused."""
    return typer.Option(
        0, f"--to-{value}", count=True, help=f"Same as --to {value} (Kafka's spelling)."
    )


def _strategy_option(name: str, metavar: str, help_text: str) -> Any:
    """A reset strategy given with a value (its parameter is a list: run_reset refuses a repeat)."""
    return typer.Option(None, name, metavar=metavar, help=help_text)


def _move_limit_option(name: str, how_far: str) -> Any:
    """A limit on how far a plan may move a partition: a message count or a DURATION."""
    return typer.Option(
        None, name, metavar="N|DURATION", help=f"Refuse a plan moving any partition {how_far}"
    )


def reset_offsets(
    ctx: typer.Context,
    groups: list[str] | None = groups_argument("Groups to reset."),
    group_option: list[str] | None = more_groups_option("reset"),
    all_groups: bool = all_groups_option("reset"),
    topic: list[str] | None = topic_option(
        "Partitions in scope: every partition of TOPIC, or the listed ones and ranges "
        "such as orders:0-2,5 (repeatable)."
    ),
    all_topics: bool = typer.Option(
        False, "--all-topics", help="Every partition the group has committed offsets for."
    ),
    to: list[str] | None = choice_option(
        None,
        "--to",
        values=TO_VALUES,
        help_text="Reset to the log start, log end, keep (checked), or current offsets.",
    ),
    to_earliest: int = _to_alias_option("earliest"),
    to_latest: int = _to_alias_option("latest"),
    to_current: int = _to_alias_option("current"),
    to_datetime: list[str] | None = time_option(
        "--to-datetime", "First offset at or after TIME (RFC 3339 with a zone, or epoch s/ms)."
    ),
    to_timestamp: list[str] | None = _strategy_option(
        "--to-timestamp", "MS", "First offset at or after epoch MS."
    ),
    by_duration: list[str] | None = duration_option(
        "--by-duration", "First offset at or after now minus DURATION (PT30M, 2h, 1d)."
    ),
    to_offset: list[str] | None = _strategy_option(
        "--to-offset", "N", "Offset N, clamped into the log."
    ),
    shift_by: list[str] | None = _strategy_option(
        "--shift-by", "N", "Committed offset plus N (may be negative)."
    ),
    from_file: list[str] | None = _strategy_option(
        "--from-file", "FILE", "Offsets from a plan: Kafka CSV or kgroup JSON plan/backup."
    ),
    to_group: list[str] | None = _strategy_option(
        "--to-group", "GROUP", "GROUP's committed offsets (GROUP is only read)."
    ),
    to_committed_at: list[str] | None = time_option(
        "--to-committed-at",
        "What the group had committed as of TIME (RFC 3339, epoch s/ms, or DURATION ago), "
        "from its __consumer_offsets history.",
    ),
    segments: list[str] | None = typer.Option(
        None,
        "--segments",
        metavar="PATH",
        help="--to-committed-at: read the history from segments (repeatable); a dry run "
        "then needs no cluster.",
    ),
    engine: str = choice_option(
        "auto",
        "--engine",
        values=("auto", "local", "spark"),
        help_text="--to-committed-at --segments: scan with local, spark or auto (as decode).",
    ),
    offsets_topic: str = typer.Option(
        "__consumer_offsets",
        "--offsets-topic",
        metavar="NAME",
        help="--to-committed-at, live: read the history from a copy under another name.",
    ),
    dry_run: bool = dry_run_option(),
    execute: bool = execute_option("Commit the plan."),
    export: str | None = typer.Option(
        None, "--export", metavar="FILE", help="Write the plan to FILE (.csv or .json)."
    ),
    backup: str | None = backup_option(
        "Where --execute writes the backup (.json file, or a directory)."
    ),
    allow_new_group: bool = typer.Option(
        False,
        "--allow-new-group",
        help="Let --execute create a group that does not exist (no member, no offsets).",
    ),
    wait_empty: str | None = typer.Option(
        None,
        "--wait-empty",
        metavar="TIMEOUT",
        help="Wait up to TIMEOUT (90s, 5m, PT2M) for the groups to have no member, then plan.",
    ),
    max_rewind: str | None = _move_limit_option(
        "--max-rewind",
        "back more than N messages or DURATION of records (default: reset.properties max.rewind).",
    ),
    max_skip: str | None = _move_limit_option(
        "--max-skip",
        "forward more than N messages or DURATION (default: reset.properties max.skip).",
    ),
    force: bool = force_option(
        "Execute despite --max-rewind/--max-skip and the protected-groups list."
    ),
    delete_all_internal_topics: bool = typer.Option(
        False,
        "--delete-all-internal-topics",
        help="Streams groups: --execute then deletes the topology's repartition and changelog "
        "topics (as kafka-streams-groups).",
    ),
    delete_internal_topic: list[str] | None = typer.Option(
        None,
        "--delete-internal-topic",
        metavar="TOPIC",
        help="Streams groups: --execute then deletes this internal topic (repeatable).",
    ),
) -> None:
    """Plan (and with --execute, commit) new committed offsets for groups."""
    from kgroup.reset.backups import check_output_paths, check_path_given
    from kgroup.reset.run import ResetOptions, run_reset

    groups = groups_given(groups, group_option)
    for path in from_file or []:
        check_path_given(path, "--from-file")
    check_output_paths(export, backup)  # before the cluster is asked
    counts = zip(TO_ALIASES, (to_earliest, to_latest, to_current), strict=True)
    gopts = options(ctx)
    run_reset(
        gopts.admin,
        ResetOptions(
            groups=groups,
            all_groups=all_groups,
            topics=topic or [],
            all_topics=all_topics,
            to=to,
            to_datetime=to_datetime,
            to_timestamp=to_timestamp,
            by_duration=by_duration,
            to_offset=to_offset,
            shift_by=shift_by,
            from_file=from_file,
            to_group=to_group,
            to_committed_at=to_committed_at,
            segments=segments or [],
            engine=engine,
            offsets_topic=offsets_topic,
            to_aliases=[flag for flag, count in counts for _ in range(count)],
            dry_run=dry_run,
            execute=execute,
            export=export,
            backup=backup,
            allow_new_group=allow_new_group,
            force=force,
            wait_empty=wait_empty,
            max_rewind=max_rewind,
            max_skip=max_skip,
            delete_all_internal_topics=delete_all_internal_topics,
            delete_internal_topics=delete_internal_topic or [],
        ),
        note,
        _view(gopts),
    )


def undo(
    ctx: typer.Context,
    group: str | None = groups_argument(
        "The group to restore; required unless --list (then: only its backups).", many=False
    ),
    backup: str | None = backup_option("Backup to restore (default: the group's latest backup)."),
    dry_run: bool = dry_run_option(),
    execute: bool = execute_option("Restore the offsets."),
    force: bool = force_option("Restore a protected group's offsets (see reset-offsets --force)."),
    list_only: bool = typer.Option(
        False,
        "--list",
        help="List the backups in the default backup directory (GROUP's only, if given), "
        "oldest first; needs no cluster.",
    ),
) -> None:
    """Restore a group's offsets from a backup written by reset-offsets --execute."""
    from kgroup.core.errors import UsageError

    check_group_names(group)
    if list_only:
        for given, name in (
            (execute, "--execute"),
            (backup is not None, "--backup"),
            (force, "--force"),
        ):
            if given:
                raise UsageError(
                    f"--list and {name} exclude each other",
                    hint="--list shows the backups in the default directory; restore one with "
                    "`kgroup undo GROUP [--backup FILE] --execute`",
                )
        _list_backups(ctx, group)
        return
    if group is None:
        raise UsageError(
            "undo needs GROUP (or --list)",
            hint="`kgroup undo GROUP` plans the restore of GROUP's latest backup; "
            "`kgroup undo --list` shows the backups",
        )
    from kgroup.reset.run import run_undo

    gopts = options(ctx)
    run_undo(
        gopts.admin,
        group,
        backup,
        dry_run=dry_run,
        execute=execute,
        note=note,
        view=_view(gopts),
        force=force,
    )


def _view(gopts: GlobalOptions) -> ResetView:
    """The reset run layer's results rendered: the plan table, then the execution report."""
    from kgroup.render.reset import execution_output, plan_output
    from kgroup.reset.run import ResetView

    return ResetView(
        plans=lambda plans: gopts.show(plan_output(plans, executing=False)),
        executed=lambda plans, report: gopts.show(execution_output(plans, report)),
    )


def _list_backups(ctx: typer.Context, group: str | None) -> None:
    """`undo --list`: the backups of the default directory, from the files alone."""
    from kgroup.render import Column, Output
    from kgroup.render.model import TEXT
    from kgroup.reset.backups import backup_dir, list_backups

    opts = options(ctx)
    directory = backup_dir()
    rows = list_backups(directory, group)
    whose = f" of group {group}" if group is not None else ""
    opts.show(
        Output(
            columns=[
                Column("created"),
                Column("group"),
                Column("partitions", justify="right"),
                # free text and paths wrap on a narrow terminal (whole when piped)
                Column("strategy", kind=TEXT),
                Column("history", kind=TEXT),
                Column("file", kind=TEXT),
                Column("error", kind=TEXT),
            ],
            rows=rows,
            document={"directory": str(directory), "backups": rows},
            empty_message=f"No backups{whose} in {directory}.",
        )
    )
