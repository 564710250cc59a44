"""The Typer root: global options, command registration and the one error path.

Every KgroupError becomes one line on stderr and its exit code (CLI.md, "Exit codes"); usage
errors exit 2; Ctrl-C exits 130; tracebacks only with --verbose.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

import typer

from kgroup import __version__
from kgroup.cli.complete import choices, completing, quiet_stderr, to_devnull
from kgroup.cli.context import GlobalOptions, note, options
from kgroup.core.errors import (
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    EXIT_USAGE,
    KgroupError,
    Terminated,
    UsageError,
)

OUTPUT_MODES = ("table", "json", "jsonl", "csv")

app = typer.Typer(
    name="kgroup",
    help="Operations toolkit for Apache Kafka consumer groups: list, describe, reset offsets, "
    "simulate assignments, decode __consumer_offsets.",
    no_args_is_help=True,
    add_completion=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"kgroup {__version__}")
        raise typer.Exit()


def _check_output(value: str) -> str:
    if value not in OUTPUT_MODES:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(OUTPUT_MODES)}")
    return value


@app.callback()
def root(
    ctx: typer.Context,
    bootstrap_server: str | None = typer.Option(
        None,
        "--bootstrap-server",
        "-b",
        envvar="KGROUP_BOOTSTRAP_SERVERS",
        help="Cluster to talk to, HOST:PORT[,HOST:PORT...].",
        metavar="HOST:PORT",
    ),
    command_config: str | None = typer.Option(
        None,
        "--command-config",
        "-c",
        envvar="KGROUP_COMMAND_CONFIG",
        help="Client properties file (Java client or librdkafka names).",
        metavar="FILE",
    ),
    x: list[str] = typer.Option(
        [],
        "-X",
        help="librdkafka property key=value; wins over the file. Repeatable.",
        metavar="KEY=VALUE",
    ),
    timeout: str | None = typer.Option(
        None,
        "--timeout",
        envvar="KGROUP_TIMEOUT",
        help="Per-operation timeout in seconds (default 30).",
        metavar="SECONDS",
    ),
    output: str = typer.Option(
        "table",
        "--output",
        "-o",
        envvar="KGROUP_OUTPUT",
        callback=_check_output,
        autocompletion=choices(OUTPUT_MODES),
        help="Output format: table, json, jsonl or csv.",
        metavar="FORMAT",
    ),
    no_color: bool = typer.Option(False, "--no-color", help="Plain output (also NO_COLOR)."),
    verbose: bool = typer.Option(
        False, "--verbose", "-v", help="Debug logging to stderr and tracebacks; secrets redacted."
    ),
    version: bool = typer.Option(
        False,
        "--version",
        callback=_version_callback,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    """Global options (accepted before or after the command)."""
    from kgroup.core.config import parse_timeout

    ctx.obj = GlobalOptions(
        bootstrap=bootstrap_server,
        command_config=command_config,
        overrides=list(x),
        timeout=parse_timeout(timeout, _given_as(ctx, "timeout", "--timeout", "KGROUP_TIMEOUT")),
        output=output,
        no_color=no_color or os.environ.get("NO_COLOR", "") != "",
        verbose=verbose,
    )
    _configure_logging(verbose)
    if verbose:
        ctx.call_on_close(ctx.obj.log_request_counts)


def _given_as(ctx: typer.Context, param: str, option: str, variable: str) -> str:
    """How the user gave `param`, for an error about its value: the option, or the
    environment variable when the value came from there."""
    source = ctx.get_parameter_source(param)
    return variable if getattr(source, "name", None) == "ENVIRONMENT" else option


def _configure_logging(verbose: bool) -> None:
    root_logger = logging.getLogger("kgroup")
    root_logger.handlers.clear()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("kgroup: %(levelname)s %(name)s: %(message)s"))
    root_logger.addHandler(handler)
    root_logger.setLevel(logging.DEBUG if verbose else logging.WARNING)
    root_logger.propagate = False
    # librdkafka's own log lines (connection refused, retries) are debug detail: the error
    # kgroup reports says what failed.
    logging.getLogger("kgroup.rdkafka").setLevel(logging.DEBUG if verbose else logging.CRITICAL)


def _register_commands() -> None:
    """Every command under its name, in the order `kgroup --help` lists them."""
    from kgroup.cli import assign, check, complete, decode, describe, groups, reset, sandbox

    for name, command in (
        ("list", groups.list_groups),
        ("delete", groups.delete_groups),
        ("delete-offsets", groups.delete_offsets),
        ("describe", describe.describe),
        ("check", check.check),
        ("reset-offsets", reset.reset_offsets),
        ("undo", reset.undo),
        ("simulate-assign", assign.simulate_assign),
        ("decode", decode.decode),
    ):
        app.command(name)(command)
    app.add_typer(sandbox.sandbox_app, name="sandbox")
    app.command("__complete", hidden=True)(complete.complete_command)
    _hide_counted_defaults(app)


def _hide_counted_defaults(typer_app: typer.Typer) -> None:
    """A counted flag (`--to-earliest`, counted so a repeat is refused) is a flag to a user:
    its help never shows the count's `[default: 0]`."""
    import inspect

    for info in typer_app.registered_commands:
        for param in inspect.signature(info.callback).parameters.values():  # type: ignore[arg-type]
            default = param.default
            if getattr(default, "count", False):
                default.show_default = False
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _hide_counted_defaults(group.typer_instance)


_register_commands()


# --- global options after the command ---------------------------------------------------------

_GLOBAL_WITH_VALUE = {
    "-b",
    "--bootstrap-server",
    "-c",
    "--command-config",
    "-X",
    "--timeout",
    "-o",
    "--output",
}
_GLOBAL_FLAGS = {"--no-color", "-v", "--verbose"}
# Short ones also take their value glued on: -Xkey=value, -ojson.
_GLOBAL_SHORT_WITH_VALUE = tuple(sorted(n for n in _GLOBAL_WITH_VALUE if not n.startswith("--")))


def hoist_global_options(args: list[str], command: Any = None) -> list[str]:
    """Move global options given after the command to the front, so both places work.

    With the click `command` tree, the value of a command's own option stays with it even when
    it looks like a global option (`simulate-assign --events -c1` leaves member c1).
    """
    front: list[str] = []
    rest: list[str] = []
    current = command  # the (sub)command the arguments so far belong to
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest.extend(args[i:])
            break
        name = arg.split("=", 1)[0] if arg.startswith("--") else arg
        if name in _GLOBAL_FLAGS:
            front.append(arg)
        elif name in _GLOBAL_WITH_VALUE:
            if "=" in arg and arg.startswith("--"):
                front.append(arg)
            else:
                front.extend(args[i : i + 2])
                i += 1
        elif len(arg) > 2 and arg[:2] in _GLOBAL_SHORT_WITH_VALUE and not arg.startswith("--"):
            front.append(arg)
        elif arg in _value_options(current):
            rest.extend(args[i : i + 2])  # the option and its value, whatever it looks like
            i += 1
        else:
            rest.append(arg)
            current = getattr(current, "commands", {}).get(arg, current)
        i += 1
    return front + rest


def _value_options(command: Any) -> set[str]:
    """Names of `command`'s own options that take a value (none without a command)."""
    return {
        name
        for param in getattr(command, "params", ())
        if getattr(param, "param_type_name", "") == "option"
        and not getattr(param, "is_flag", False)
        and not getattr(param, "count", False)
        for name in param.opts
    }


def _usage_error_line(exc: Exception) -> str:
    message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    message = " ".join(message.split())
    ctx = getattr(exc, "ctx", None)
    command = ctx.command_path if ctx is not None else "kgroup"
    return f"kgroup: error: {sentence(message)} Hint: see `{command} --help`"


def sentence(text: str) -> str:
    """`text` ended by one stop: click's messages end with `.` or `?` already, kgroup's not."""
    text = text.rstrip()
    if text.endswith(("?", "!")):
        return text
    return text.rstrip(".") + "."


def _stdout_closed() -> int:
    """`kgroup ... | head`: the reader went away; stop quietly with exit 0.

    What is still buffered for the closed pipe would fail again when the interpreter flushes
    stdout at exit: the descriptor is pointed at /dev/null first.
    """
    to_devnull(1)
    return 0


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    sys.exit(run(sys.argv[1:] if argv is None else argv))


def run(args: list[str]) -> int:
    """Run kgroup with `args`; returns the exit code."""
    try:
        from typer._click import exceptions as click_exceptions
    except ImportError:  # typer versions that depend on click instead of vendoring it
        from click import exceptions as click_exceptions  # type: ignore[no-redef]

    verbose = any(a in ("-v", "--verbose") for a in args)
    if completing():
        quiet_stderr()  # TAB: the answer on stdout, nothing in the user's prompt
    command = typer.main.get_command(app)
    try:
        result = command.main(
            args=hoist_global_options(list(args), command),
            prog_name="kgroup",
            standalone_mode=False,
        )
        return result if isinstance(result, int) else 0
    except KgroupError as exc:
        _write_error(f"kgroup: error: {exc.one_line()}", verbose=verbose)
        return exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        sys.stderr.write("kgroup: interrupted\n")
        return EXIT_INTERRUPTED
    except Terminated:  # a SIGTERM in the instant a run's handler is being given back
        sys.stderr.write("kgroup: interrupted (SIGTERM)\n")
        return EXIT_TERMINATED
    except getattr(click_exceptions, "NoArgsIsHelpError", ()) as exc:
        # `kgroup` or `kgroup sandbox` alone: the help as click prints it (stderr), not one line
        exc.show()
        return EXIT_USAGE
    except click_exceptions.ClickException as exc:
        _write_error(_usage_error_line(exc), verbose=verbose)
        return EXIT_USAGE if isinstance(exc, click_exceptions.UsageError) else exc.exit_code
    except BrokenPipeError:
        return _stdout_closed()
    except SystemExit as exc:
        # Typer turns EPIPE into exit 1 after wrapping stdout in a PacifyFlushWrapper
        if exc.code == 1 and type(sys.stdout).__name__ == "PacifyFlushWrapper":
            return _stdout_closed()
        raise
    except MemoryError:
        # Anywhere in kgroup (an input far beyond the documented limits, a small memory cap):
        # one plain line, no imports (there may be no memory for them).
        if verbose:
            import traceback

            traceback.print_exc()
        sys.stderr.write(
            "kgroup: error: out of memory. Hint: give kgroup a smaller input (see the limits in "
            "README.md) or more memory\n"
        )
        return 1
    except Exception as exc:  # a bug: say so in one line, the traceback with --verbose
        if verbose:
            raise
        _write_error(
            f"kgroup: error: unexpected {type(exc).__name__}: {exc}. Hint: rerun with --verbose "
            "for the traceback and report it",
            verbose=False,
        )
        return 1


def _write_error(line: str, *, verbose: bool) -> None:
    """`line` on stderr, control characters escaped; with --verbose the traceback first."""
    if verbose:
        import traceback

        traceback.print_exc()
    from kgroup.render.safe import terminal_safe

    sys.stderr.write(terminal_safe(line) + "\n")


__all__ = ["GlobalOptions", "UsageError", "app", "main", "note", "options", "run"]
