"""`kgroup simulate-assign`: preview what Kafka's assignors do, across a rebalance sequence."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from kgroup.cli.context import options
from kgroup.cli.options import choice_option, group_option
from kgroup.cli.validate import check_group_names

ALL_STRATEGIES = ("range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range")


def _spec_option(name: str, help_text: str) -> Any:
    """A SPEC in simulate-assign's short flag language (kgroup.assign.scenario.parse_*_flag)."""
    return typer.Option(None, name, metavar="SPEC", help=help_text)


def simulate_assign(
    ctx: typer.Context,
    strategy: list[str] | None = choice_option(
        None,
        "--strategy",
        "-s",
        values=ALL_STRATEGIES,
        metavar="NAME",
        help_text="range, roundrobin, sticky, cooperative-sticky (client side), uniform, "
        "server-range (KIP-848). Repeatable; several compare side by side. Default: the "
        "group's own assignor with --from-group, else range.",
    ),
    compare: bool = typer.Option(
        False, "--compare", help="Side by side: the given strategies, or all six."
    ),
    scenario: Path | None = typer.Option(
        None, "--scenario", metavar="FILE", help="YAML or JSON scenario (topics, members, events)."
    ),
    members: str | None = _spec_option(
        "--members", "c1,c2,c3 (every topic) or c1=t1+t2@rackA,c2=t1."
    ),
    topics: str | None = _spec_option(
        "--topics", "orders:12,payments:6 (optional @r1+r2 replica racks)."
    ),
    from_group: str | None = group_option(
        "Start from a live group: its members, subscriptions, racks and current "
        "assignment, with its topics' partitions, replica racks and ids.",
        name="--from-group",
    ),
    events: str | None = _spec_option(
        "--events",
        "Rebalance sequence: +c4[=t1+t2][@rack], -c1, topic:orders=24, sub:c2=t1, rack:c2=r3.",
    ),
    rack_aware: bool = typer.Option(
        False,
        "--rack-aware",
        help="Give members without a rack one, round-robin over the topics' replica racks.",
    ),
) -> None:
    """Simulate Kafka's partition assignors on a group and a sequence of rebalances."""
    from kgroup.assign.scenario import (
        Scenario,
        check_limits,
        parse_events_flag,
        parse_members_flag,
        parse_scenario_text,
        parse_topics_flag,
    )
    from kgroup.assign.simulate import simulate
    from kgroup.core.errors import UsageError
    from kgroup.render.assign import data_output, table_outputs, write_json_document

    opts = options(ctx)
    _strategies(strategy, compare)  # refuse a bad name before asking the cluster
    sources = sum(x is not None for x in (scenario, from_group)) + (
        1 if members is not None or topics is not None else 0
    )
    if sources != 1:
        raise UsageError(
            "give exactly one of --scenario FILE, --members SPEC --topics SPEC, --from-group GROUP"
        )
    default_strategy = "range"
    if from_group is not None:
        check_group_names(from_group, option="--from-group")
        model, default_strategy = _from_group(opts, from_group, given=bool(strategy) or compare)
    elif scenario is not None:
        from kgroup.core.files import SCENARIO, read_text

        text = read_text(scenario, SCENARIO, hint="save the scenario as UTF-8 YAML or JSON")
        model = parse_scenario_text(text, str(scenario))
    else:
        if members is None or topics is None:
            raise UsageError("--members and --topics go together")
        topic_map = parse_topics_flag(topics)
        model = Scenario(topic_map, parse_members_flag(members, topic_map))
        model.validate()
    if events:
        model.events.extend(parse_events_flag(events))
    if rack_aware:
        model = _with_racks(model)
    names = _strategies(strategy, compare, default_strategy)
    check_limits(model, len(names))  # before any assignor allocates (README: Limits)
    from kgroup.cli.simulate_progress import SimulationProgress

    with SimulationProgress(opts.no_color) as progress:
        sims = [simulate(model, name, on_progress=progress) for name in names]
    if opts.output == "table":
        for index, output in enumerate(table_outputs(sims)):
            if index:
                typer.echo("")
            opts.show(output)
    elif opts.output == "json":
        write_json_document(data_output(sims, "json").document, sys.stdout)
    else:
        opts.show(data_output(sims, opts.output))


def _strategies(given: list[str] | None, compare: bool, default: str = "range") -> list[str]:
    from kgroup.core.errors import UsageError

    names = list(dict.fromkeys(given or []))
    for name in names:
        if name not in ALL_STRATEGIES:
            raise UsageError(
                f"unknown strategy {name!r}", hint=f"choose from {', '.join(ALL_STRATEGIES)}"
            )
    if not names:
        return list(ALL_STRATEGIES) if compare else [default]
    return names


def _from_group(opts, group_id: str, *, given: bool):  # -> tuple[Scenario, str]
    """The live group as a scenario, and the strategy to run when none is given."""
    from kgroup.assign.from_group import scenario_from_group
    from kgroup.cli.context import note
    from kgroup.core.errors import UsageError
    from kgroup.core.group_snapshot import snapshot_group

    admin = opts.admin()
    try:
        snapshot = snapshot_group(admin, group_id)
    finally:
        admin.close()
    built = scenario_from_group(snapshot)
    for text in built.notes:
        note(text)
    if built.strategy is None and not given:
        assignor = f"assignor {built.protocol!r}" if built.protocol else "no assignor name"
        raise UsageError(
            f"group {group_id} reports {assignor}, which kgroup cannot simulate as is",
            hint="pick one with --strategy (or --compare)",
        )
    return built.scenario, built.strategy or "range"


def _with_racks(model):  # Scenario -> Scenario
    from dataclasses import replace

    from kgroup.core.errors import UsageError

    racks = sorted({r for t in model.topics.values() if t.racks for rs in t.racks for r in rs})
    if not racks:
        raise UsageError(
            "--rack-aware needs replica racks on the topics",
            hint="add @r1+r2 to --topics or racks: to the scenario's topics",
        )
    members = []
    for index, m in enumerate(model.members):
        members.append(m if m.rack else replace(m, rack=racks[index % len(racks)]))
    model.members = members
    return model
