"""`kgroup sandbox start|stop|status|seed`: the embedded local broker for demos and tests."""

from __future__ import annotations

import typer

from kgroup.cli.context import note, options
from kgroup.cli.options import choice_option

SANDBOX_ENGINES = ("tansu", "docker", "kafka")

sandbox_app = typer.Typer(
    help="Run a local broker (tansu, or your own Apache Kafka) for demos and tests.",
    no_args_is_help=True,
)


def _render_state(ctx: typer.Context, fields: dict[str, object]) -> None:
    from kgroup.render import Column, Output

    opts = options(ctx)
    rows = [{"field": k, "value": v} for k, v in fields.items()]
    opts.show(
        Output(
            columns=[Column("field"), Column("value")],
            rows=rows,
            document=fields,
            jsonl_items=[fields],
        )
    )


@sandbox_app.command("start")
def start(
    ctx: typer.Context,
    engine: str | None = choice_option(
        None,
        "--engine",
        values=SANDBOX_ENGINES,
        help_text="tansu (embedded, default), kafka (your Apache Kafka 3.7+ distribution, "
        "KRaft) or docker (Apache Kafka through testcontainers). Without it: the running "
        "sandbox, else tansu.",
    ),
    kafka_home: str | None = typer.Option(
        None,
        "--kafka-home",
        metavar="DIR",
        help="Apache Kafka distribution for --engine kafka (default $KAFKA_HOME).",
    ),
) -> None:
    """Start the sandbox broker on a free loopback port (no-op when it already runs)."""
    from kgroup.core.errors import UsageError
    from kgroup.sandbox.broker import start as start_broker
    from kgroup.sandbox.state import state_file

    if engine is not None and engine not in SANDBOX_ENGINES:
        raise UsageError(f"unknown sandbox engine {engine!r}", hint="use tansu, kafka or docker")
    if kafka_home is not None and engine != "kafka":
        raise UsageError("--kafka-home goes with --engine kafka", hint="add --engine kafka")
    state, started = start_broker(engine, kafka_home)
    note(
        ("started" if started else "already running:")
        + f" {state.engine} sandbox at {state.bootstrap}; later commands use it when no -b is given"
    )
    _render_state(
        ctx,
        {
            "engine": state.engine,
            "bootstrap": state.bootstrap,
            "pid": state.pid,
            "started_now": started,
            "state_file": str(state_file()),
        },
    )


@sandbox_app.command("stop")
def stop(ctx: typer.Context) -> None:
    """Stop exactly the broker (and demo members) this sandbox started."""
    from kgroup.sandbox.broker import stop as stop_broker

    state = stop_broker()
    if state is None:
        note("no sandbox is recorded; nothing to stop")
        _render_state(ctx, {"stopped": False})
        return
    note(f"stopped {state.engine} sandbox at {state.bootstrap}")
    _render_state(
        ctx,
        {"stopped": True, "engine": state.engine, "bootstrap": state.bootstrap, "pid": state.pid},
    )


@sandbox_app.command("status")
def status(ctx: typer.Context) -> None:
    """Say whether the sandbox runs and answers Kafka requests: exit 3 when none runs, 6 when it
    runs but does not answer."""
    # CLI.md's exit codes: 3 is "does not exist", 6 "cluster unreachable or timed out". With no
    # sandbox process there is no cluster to reach (as for `seed`, and as later commands see it:
    # no sandbox to fall back on); 6 is kept for a live sandbox that does not answer.
    from kgroup.core.admin import GroupAdmin
    from kgroup.core.config import ClusterConfig
    from kgroup.core.errors import NotFoundError
    from kgroup.sandbox.broker import is_running
    from kgroup.sandbox.state import load_state

    state = load_state()
    if state is None:
        raise NotFoundError("no sandbox is running", hint="start one with `kgroup sandbox start`")
    fields: dict[str, object] = {
        "engine": state.engine,
        "bootstrap": state.bootstrap,
        "pid": state.pid,
        "process_running": is_running(state),
    }
    if not fields["process_running"]:
        _render_state(ctx, {**fields, "answers": False})
        process = f"process {state.pid}" if state.pid else f"at {state.bootstrap}"
        raise NotFoundError(
            f"no sandbox is running: the {state.engine} sandbox {process} is not running",
            hint="start it again with `kgroup sandbox start`",
        )
    admin = GroupAdmin(
        ClusterConfig(
            bootstrap_servers=state.bootstrap, timeout_s=min(options(ctx).timeout or 5.0, 5.0)
        )
    )
    brokers = admin.ping()
    topics = admin.topics()
    _render_state(ctx, {**fields, "answers": True, "brokers": len(brokers), "topics": len(topics)})


@sandbox_app.command("seed")
def seed(ctx: typer.Context) -> None:
    """Create demo topics, records with known timestamps, and groups with lag (classic ones, and
    a KIP-848 one when the broker supports it)."""
    from kgroup.core.admin import GroupAdmin
    from kgroup.core.config import ClusterConfig
    from kgroup.core.errors import NotFoundError
    from kgroup.sandbox import seed as demo
    from kgroup.sandbox.broker import is_running
    from kgroup.sandbox.state import load_state

    state = load_state()
    if state is None or not is_running(state):
        raise NotFoundError("no sandbox is running", hint="start one with `kgroup sandbox start`")
    admin = GroupAdmin(
        ClusterConfig(bootstrap_servers=state.bootstrap, timeout_s=options(ctx).timeout or 15.0)
    )
    summary = demo.seed(admin, state.engine)
    kip848, why_not = demo.kip848_support(admin)
    members = {group: pid for pid in state.member_pids if (group := _member_group(pid))}
    if demo.ACTIVE_GROUP not in members:
        members[demo.ACTIVE_GROUP] = demo.start_active_member(state.bootstrap, state.engine)
        state.member_pids = list(members.values())
        state.save()  # recorded at once, so `stop` ends it even if the next member fails
    if kip848 and demo.KIP848_GROUP not in members:
        members[demo.KIP848_GROUP] = demo.start_kip848_member(state.bootstrap, state.engine)
    state.member_pids = list(members.values())
    state.save()
    groups = [demo.EMPTY_GROUP, demo.ACTIVE_GROUP]
    text = (
        f"seeded: topics orders, payments; groups {demo.EMPTY_GROUP} (empty), "
        f"{demo.ACTIVE_GROUP} (active, member pid {members[demo.ACTIVE_GROUP]})"
    )
    if kip848:
        groups.append(demo.KIP848_GROUP)
        text += (
            f", {demo.KIP848_GROUP} (KIP-848 consumer protocol, member pid "
            f"{members[demo.KIP848_GROUP]})"
        )
    note(text)
    if not kip848:
        note(f"KIP-848 group {demo.KIP848_GROUP} skipped: {why_not}")
    _render_state(
        ctx,
        {
            "bootstrap": state.bootstrap,
            **summary,
            "groups": groups,
            "kip848_group": demo.KIP848_GROUP if kip848 else None,
            "kip848_skipped": None if kip848 else why_not,
        },
    )


def _member_group(pid: int) -> str | None:
    """The group a live seeded member process (kgroup.sandbox.member) holds, or None."""
    from pathlib import Path

    from kgroup.sandbox.state import process_alive

    if not process_alive(pid, "kgroup.sandbox.member"):
        return None
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return None
    return argv[argv.index("--group") + 1] if "--group" in argv[:-1] else None
