"""`kgroup reset-offsets` and `kgroup undo`: a plan first, then an all-or-nothing commit."""

from __future__ import annotations

import typer

from kgroup.cli.complete import choices, cluster_names, group_option, groups_argument
from kgroup.cli.context import note, options
from kgroup.cli.validate import check_group_names, groups_given

# `--to` values (kgroup.reset.strategy.parse_to accepts them in any case).
TO_VALUES = ("earliest", "latest", "none", "current")
# kafka-consumer-groups.sh's spellings of `--to VALUE`, counted as strategy options.
TO_ALIASES = ("--to-earliest", "--to-latest", "--to-current")


def register(app: typer.Typer) -> None:
    app.command("reset-offsets")(reset_offsets)
    app.command("undo")(undo)


def reset_offsets(
    ctx: typer.Context,
    groups: list[str] | None = groups_argument("Groups to reset."),
    group_option: list[str] | None = group_option(
        "A group to reset, as Kafka's tool takes it (repeatable; adds to GROUP...)."
    ),
    all_groups: bool = typer.Option(False, "--all-groups", help="Reset every group."),
    topic: list[str] | None = typer.Option(
        None,
        "--topic",
        metavar="TOPIC[:P,P-P..]",
        help="Partitions in scope: every partition of TOPIC, or the listed ones and ranges "
        "such as orders:0-2,5 (repeatable).",
        autocompletion=cluster_names("topics"),
    ),
    all_topics: bool = typer.Option(
        False, "--all-topics", help="Every partition the group has committed offsets for."
    ),
    to: list[str] | None = typer.Option(
        None,
        "--to",
        metavar="|".join(TO_VALUES),
        help="Reset to the log start, log end, keep (checked), or current offsets.",
        autocompletion=choices(TO_VALUES),
    ),
    to_earliest: int = typer.Option(
        0, "--to-earliest", count=True, help="Same as --to earliest (Kafka's spelling)."
    ),
    to_latest: int = typer.Option(
        0, "--to-latest", count=True, help="Same as --to latest (Kafka's spelling)."
    ),
    to_current: int = typer.Option(
        0, "--to-current", count=True, help="Same as --to current (Kafka's spelling)."
    ),
    to_datetime: list[str] | None = typer.Option(
        None,
        "--to-datetime",
        metavar="TIME",
        help="First offset at or after TIME (RFC 3339 with a zone, or epoch s/ms).",
    ),
    to_timestamp: list[str] | None = typer.Option(
        None, "--to-timestamp", metavar="MS", help="First offset at or after epoch MS."
    ),
    by_duration: list[str] | None = typer.Option(
        None,
        "--by-duration",
        metavar="DURATION",
        help="First offset at or after now minus DURATION (PT30M, 2h, 1d).",
    ),
    to_offset: list[str] | None = typer.Option(
        None, "--to-offset", metavar="N", help="Offset N, clamped into the log."
    ),
    shift_by: list[str] | None = typer.Option(
        None, "--shift-by", metavar="N", help="Committed offset plus N (may be negative)."
    ),
    from_file: list[str] | None = typer.Option(
        None,
        "--from-file",
        metavar="FILE",
        help="Offsets from a plan: Kafka CSV or kgroup JSON plan/backup.",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan only (the default)."),
    execute: bool = typer.Option(False, "--execute", help="Commit the plan."),
    export: str | None = typer.Option(
        None, "--export", metavar="FILE", help="Write the plan to FILE (.csv or .json)."
    ),
    backup: str | None = typer.Option(
        None,
        "--backup",
        metavar="FILE",
        help="Where --execute writes the backup (.json file, or a directory).",
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
    max_rewind: str | None = typer.Option(
        None,
        "--max-rewind",
        metavar="N|DURATION",
        help="Refuse a plan moving any partition back more than N messages or DURATION of "
        "records (default: reset.properties max.rewind).",
    ),
    max_skip: str | None = typer.Option(
        None,
        "--max-skip",
        metavar="N|DURATION",
        help="Refuse a plan moving any partition forward more than N messages or DURATION "
        "(default: reset.properties max.skip).",
    ),
    force: bool = typer.Option(
        False,
        "--force",
        help="Execute despite --max-rewind/--max-skip and the protected-groups list.",
    ),
) -> None:
    """Plan (and with --execute, commit) new committed offsets for groups."""
    from kgroup.reset.run import ResetOptions, run_reset

    groups = groups_given(groups, group_option)
    counts = zip(TO_ALIASES, (to_earliest, to_latest, to_current), strict=True)
    run_reset(
        options(ctx),
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
        ),
        note,
    )


def undo(
    ctx: typer.Context,
    group: str | None = typer.Argument(
        None,
        metavar="GROUP",
        help="The group to restore; required unless --list (then: only its backups).",
        show_default=False,
        autocompletion=cluster_names("groups"),
    ),
    backup: str | None = typer.Option(
        None,
        "--backup",
        metavar="FILE",
        help="Backup to restore (default: the group's latest backup).",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan only (the default)."),
    execute: bool = typer.Option(False, "--execute", help="Restore the offsets."),
    force: bool = typer.Option(
        False, "--force", help="Restore a protected group's offsets (see reset-offsets --force)."
    ),
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

    run_undo(options(ctx), group, backup, dry_run=dry_run, execute=execute, note=note, force=force)


def _list_backups(ctx: typer.Context, group: str | None) -> None:
    """`undo --list`: the backups of the default directory, from the files alone."""
    from kgroup.render import Column, Output, render
    from kgroup.reset.backups import backup_dir, list_backups

    opts = options(ctx)
    directory = backup_dir()
    rows = list_backups(directory, group)
    whose = f" of group {group}" if group is not None else ""
    render(
        Output(
            columns=[
                Column("created"),
                Column("group"),
                Column("partitions", justify="right"),
                Column("strategy"),
                Column("file"),
                Column("error"),
            ],
            rows=rows,
            document={"directory": str(directory), "backups": rows},
            empty_message=f"No backups{whose} in {directory}.",
        ),
        opts.output,
        no_color=opts.no_color,
    )
