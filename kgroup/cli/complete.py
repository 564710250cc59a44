"""Shell completion: the values options and arguments take, and the hidden `kgroup __complete`.

Options declare their values here (`choices`, `cluster_names`) as Typer `autocompletion`
callbacks, so Typer's own completion and the scripts scripts/gen_docs.py writes into
completions/ read them from the same click parameters. The scripts ask the cluster for group
and topic names through `kgroup [-b ...] __complete groups|topics`, which answers within
CLUSTER_TIMEOUT_S (nothing at all when the cluster is unknown, unreachable or slow) so a
<TAB> never hangs the shell.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from kgroup.cli.context import GlobalOptions

CLUSTER_TIMEOUT_S = 1.0
KINDS = ("groups", "topics")
# Completing this text asks a `cluster_names` callback which kind it offers, without a cluster.
PROBE = "\x00kgroup-completes:"


def choices(values: Iterable[str] | Callable[[], Iterable[str]]) -> Callable[[str], list[str]]:
    """An `autocompletion` callback offering fixed values (a callable is only called then)."""

    def complete(incomplete: str) -> list[str]:
        found = values() if callable(values) else values
        return [v for v in found if v.startswith(incomplete)]

    return complete


def cluster_names(kind: str) -> Callable[..., list[str]]:
    """An `autocompletion` callback offering the cluster's group or topic names.

    Asked to complete PROBE it answers PROBE + kind (see `completion_source`), so the static
    scripts gen_docs.py writes call `kgroup __complete KIND` instead of embedding values.
    """

    def complete(ctx: typer.Context, incomplete: str) -> list[str]:
        from kgroup.cli.context import GlobalOptions

        if incomplete == PROBE:
            return [PROBE + kind]
        params = ctx.find_root().params
        opts = GlobalOptions(
            bootstrap=params.get("bootstrap_server"),
            command_config=params.get("command_config"),
            overrides=list(params.get("x") or []),
        )
        return [n for n in fetch_names(opts, kind) if n.startswith(incomplete)]

    return complete


def completion_source(param: Any, ctx: Any) -> tuple[str | None, list[str]]:
    """What a click parameter completes to: (`groups`/`topics`, []) for cluster names, or
    (None, its fixed values); (None, []) for free text and files."""
    probed = [item.value for item in param.shell_complete(ctx, PROBE)]
    for value in probed:
        if isinstance(value, str) and value.startswith(PROBE) and value != PROBE:
            return value[len(PROBE) :], []
    items = param.shell_complete(ctx, "")
    return None, [item.value for item in items if item.type == "plain" and item.value]


def fetch_names(opts: GlobalOptions, kind: str, timeout_s: float = CLUSTER_TIMEOUT_S) -> list[str]:
    """Group or topic names, sorted; [] on any error or when the cluster takes > timeout_s.

    The request runs in a daemon thread so a client stuck in a connect cannot outlive the
    deadline; names a shell cannot take as one word (whitespace, control characters) are left
    out.
    """
    found: list[str] = []

    def work() -> None:
        try:
            opts.timeout = timeout_s
            admin = opts.admin()
            if kind == "groups":
                names: Iterable[str] = (g.group_id for g in admin.list_groups())
            else:
                names = admin.topics()
            found.extend(sorted(n for n in names if n.isprintable() and not _has_space(n)))
        except BaseException:  # completion stays silent: no names is the answer
            found.clear()

    worker = threading.Thread(target=work, name=f"kgroup-complete-{kind}", daemon=True)
    worker.start()
    worker.join(timeout_s)
    return [] if worker.is_alive() else list(found)


COMPLETE_VAR = "_KGROUP_COMPLETE"  # set by the script `kgroup --install-completion` installs


def completing() -> bool:
    """True when this process answers a shell's TAB (Typer's script sets COMPLETE_VAR)."""
    return bool(os.environ.get(COMPLETE_VAR))


def to_devnull(fd: int) -> None:
    """Point file descriptor `fd` at /dev/null (best effort: a failure leaves it as it was)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except OSError:
        pass


def quiet_stderr() -> None:
    """Send this process's stderr, Python's and the C libraries' (librdkafka), to /dev/null:
    a completing process writes only its answer, never a note or an error into the prompt."""
    to_devnull(2)
    sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (for the process' life)


def _has_space(name: str) -> bool:
    return any(c.isspace() for c in name)


def complete_command(
    ctx: typer.Context,
    kind: str = typer.Argument(..., metavar="groups|topics"),
    prefix: str = typer.Argument("", metavar="PREFIX"),
) -> Any:
    """For completion scripts: the cluster's group or topic names, one a line, within 1 s."""
    from kgroup.cli.context import options
    from kgroup.core.errors import UsageError

    if kind not in KINDS:
        raise UsageError(f"__complete takes groups or topics, not {kind!r}")
    quiet_stderr()  # the static scripts drop stderr too; a hand-made one may not
    opts = options(ctx)
    names = fetch_names(opts, kind)
    sys.stdout.write("".join(f"{n}\n" for n in names if n.startswith(prefix)))
    sys.stdout.flush()
    if any(t.name.startswith("kgroup-complete-") for t in threading.enumerate()):
        os._exit(0)  # a client thread still connecting must not keep the shell waiting
    return 0
