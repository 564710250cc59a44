"""`kgroup reset-offsets` and `kgroup undo`: a plan first, then an all-or-nothing commit."""

from __future__ import annotations

import typer

from kgroup.cli.app import note, options


def register(app: typer.Typer) -> None:
    app.command("reset-offsets")(reset_offsets)
    app.command("undo")(undo)


def reset_offsets(
    ctx: typer.Context,
    groups: list[str] | None = typer.Argument(None, metavar="GROUP...", help="Groups to reset."),
    all_groups: bool = typer.Option(False, "--all-groups", help="Reset every group."),
    topic: list[str] | None = typer.Option(
        None,
        "--topic",
        metavar="TOPIC[:P,P..]",
        help="Partitions in scope: every partition of TOPIC, or the listed ones (repeatable).",
    ),
    all_topics: bool = typer.Option(
        False, "--all-topics", help="Every partition the group has committed offsets for."
    ),
    to: str | None = typer.Option(
        None,
        "--to",
        metavar="earliest|latest|none|current",
        help="Reset to the log start, log end, keep (checked), or current offsets.",
    ),
    to_datetime: str | None = typer.Option(
        None,
        "--to-datetime",
        metavar="TIME",
        help="First offset at or after TIME (RFC 3339 with a zone, or epoch s/ms).",
    ),
    to_timestamp: str | None = typer.Option(
        None, "--to-timestamp", metavar="MS", help="First offset at or after epoch MS."
    ),
    by_duration: str | None = typer.Option(
        None,
        "--by-duration",
        metavar="DURATION",
        help="First offset at or after now minus DURATION (PT30M, 2h, 1d).",
    ),
    to_offset: str | None = typer.Option(
        None, "--to-offset", metavar="N", help="Offset N, clamped into the log."
    ),
    shift_by: str | None = typer.Option(
        None, "--shift-by", metavar="N", help="Committed offset plus N (may be negative)."
    ),
    from_file: str | None = typer.Option(
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
) -> None:
    """Plan (and with --execute, commit) new committed offsets for groups."""
    from kgroup.reset.run import ResetOptions, run_reset

    run_reset(
        options(ctx),
        ResetOptions(
            groups=groups or [],
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
            dry_run=dry_run,
            execute=execute,
            export=export,
            backup=backup,
        ),
        note,
    )


def undo(
    ctx: typer.Context,
    group: str = typer.Argument(..., metavar="GROUP", help="The group to restore."),
    backup: str | None = typer.Option(
        None,
        "--backup",
        metavar="FILE",
        help="Backup to restore (default: the group's latest backup).",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan only (the default)."),
    execute: bool = typer.Option(False, "--execute", help="Restore the offsets."),
) -> None:
    """Restore a group's offsets from a backup written by reset-offsets --execute."""
    from kgroup.reset.run import run_undo

    run_undo(options(ctx), group, backup, dry_run=dry_run, execute=execute, note=note)
