"""The views of `kgroup simulate-assign` as Output objects.

Table: one block per rebalance step — a line per member with its partition count and its
partitions (`topic:0-3,7;other:1`), then the step's metrics; with several strategies the
members are lines and the strategies columns. JSON, one shape for one strategy or several:
`{"schema_version": 1, "strategies": [{"strategy", "steps": [{"event", "assignment": {member:
[[topic, p], ...]}, "metrics", "rounds"}]}]}` (`rounds`: rebalance rounds the step took, more than
one when cooperative members revoked partitions and rejoined). JSON Lines: one object per
strategy and step, the step of the JSON document with its `strategy` and `step` (index). CSV:
one row per strategy, step and member.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, TextIO

from kgroup.assign.simulate import Simulation, Step, compact_partitions
from kgroup.render.model import KEY, NUMBER, SCHEMA_VERSION, TEXT, Column, Output

ROW_COLUMNS = [
    Column("strategy", kind=KEY),
    Column("step", justify="right", kind=NUMBER),
    Column("event", kind=TEXT),
    Column("member", kind=KEY),
    Column("count", justify="right", kind=NUMBER),
    Column("partitions", kind=TEXT),
]


def step_document(step: Step) -> dict[str, Any]:
    """One step as JSON: the event, the assignment, the metrics, the rebalance rounds (and
    cooperative's first round when there were several)."""
    item: dict[str, Any] = {
        "event": step.event,
        "assignment": {m: [[t, p] for t, p in parts] for m, parts in step.assignment.items()},
        "metrics": step.metrics,
        "rounds": step.rounds,
    }
    if step.revoke_phase is not None:
        item["revoke_phase"] = {
            m: [[t, p] for t, p in parts] for m, parts in step.revoke_phase.items()
        }
    return item


def simulation_document(sim: Simulation) -> dict[str, Any]:
    return {"strategy": sim.strategy, "steps": [step_document(step) for step in sim.steps]}


def step_items(sims: Sequence[Simulation]) -> list[dict[str, Any]]:
    """The JSON Lines objects: one per strategy and step."""
    return [
        {"strategy": sim.strategy, "step": index, **step_document(step)}
        for sim in sims
        for index, step in enumerate(sim.steps)
    ]


def rows(sims: Sequence[Simulation]) -> list[dict[str, Any]]:
    out = []
    for sim in sims:
        for index, step in enumerate(sim.steps):
            for member, parts in step.assignment.items():
                out.append(
                    {
                        "strategy": sim.strategy,
                        "step": index,
                        "event": step.event,
                        "member": member,
                        "count": len(parts),
                        "partitions": compact_partitions(parts),
                    }
                )
    return out


def metrics_line(strategy: str | None, step: Step) -> str:
    m = step.metrics
    parts = [
        f"members={m['members']}",
        f"partitions={m['assigned']}/{m['partitions']}",
        f"spread={m['spread']}",
        f"moved={m['moved']}",
        f"reassigned={m['reassigned']}",
        f"kept={m['kept']}/{m['previously_owned']}",
    ]
    if m.get("rack_local") is not None:
        parts.append(f"rack_local={m['rack_local']:.0%}")
    if "revoked_phase1" in m:
        parts.append(f"revoked_phase1={m['revoked_phase1']}")
        parts.append(f"assigned_phase2={m['assigned_phase2']}")
    if strategy and step.rounds > 1:  # alone, the step's cooperative line says it
        parts.append(f"rounds={step.rounds}")
    prefix = f"{strategy}: " if strategy else ""
    return prefix + " ".join(parts)


def table_outputs(sims: Sequence[Simulation]) -> list[Output]:
    """One Output per step (the table view)."""
    outputs = []
    steps = len(sims[0].steps)
    for index in range(steps):
        event = sims[0].steps[index].event
        if len(sims) == 1:
            sim = sims[0]
            step = sim.steps[index]
            table_rows = [
                {"member": m, "count": len(parts), "partitions": compact_partitions(parts)}
                for m, parts in step.assignment.items()
            ]
            footer = [metrics_line(None, step)]
            if step.revoke_phase is not None or sim.strategy == "cooperative-sticky":
                footer.insert(0, _revoke_line(step))
            outputs.append(
                Output(
                    columns=[
                        Column("member", kind=KEY),
                        Column("count", justify="right", kind=NUMBER),
                        Column("partitions", kind=TEXT),
                    ],
                    rows=table_rows,
                    document={},
                    title=f"step {index}: {event} ({sim.strategy})",
                    footer=footer,
                    empty_message="(no members)",
                )
            )
            continue
        members = sorted({m for sim in sims for m in sim.steps[index].assignment})
        table_rows = []
        for member in members:
            row: dict[str, Any] = {"member": member}
            for sim in sims:
                parts = sim.steps[index].assignment.get(member)
                row[sim.strategy] = (
                    None if parts is None else f"{len(parts)} {compact_partitions(parts)}".strip()
                )
            table_rows.append(row)
        outputs.append(
            Output(
                columns=[
                    Column("member", kind=KEY),
                    *(Column(s.strategy, header=s.strategy, kind=TEXT) for s in sims),
                ],
                rows=table_rows,
                document={},
                title=f"step {index}: {event}",
                footer=[metrics_line(sim.strategy, sim.steps[index]) for sim in sims],
                empty_message="(no members)",
            )
        )
    return outputs


def _revoke_line(step: Step) -> str:
    """`cooperative: 3 rounds; round 1 revokes, rounds 2-3 assign c4+orders:3-4`."""
    if step.revoke_phase is None:
        return "cooperative: 1 round, nothing to revoke"
    revoked = []
    for member, parts in step.assignment.items():
        phase1 = set(step.revoke_phase.get(member, ()))
        later = [tp for tp in parts if tp not in phase1]
        if later:
            revoked.append(f"{member}+{compact_partitions(later)}")
    later_rounds = "round 2 assigns" if step.rounds == 2 else f"rounds 2-{step.rounds} assign"
    return f"cooperative: {step.rounds} rounds; round 1 revokes, {later_rounds} " + (
        ", ".join(revoked) or "nothing"
    )


def write_json_document(document: dict[str, Any], out: TextIO) -> None:
    """`-o json` with `"schema_version": 1`, indented like every kgroup document except that each
    member's partition list stays on one line: a 100,000-partition assignment is then 1,000
    lines instead of 400,000, and writing it takes milliseconds instead of seconds."""
    leaves: list[str] = []

    def hide(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: hide(v) for k, v in value.items()}
        if isinstance(value, list):
            if value and isinstance(value[0], list):
                leaves.append(json.dumps(value, ensure_ascii=False, separators=(", ", ": ")))
                return f"\x00{len(leaves) - 1}\x00"
            return [hide(v) for v in value]
        return value

    text = json.dumps(
        {"schema_version": SCHEMA_VERSION, **hide(document)}, indent=2, ensure_ascii=False
    )
    text = _LEAF.sub(lambda m: leaves[int(m.group(1))], text)
    out.write(text)
    out.write("\n")


_LEAF = re.compile(r'"\\u0000(\d+)\\u0000"')


def data_output(sims: Sequence[Simulation], mode: str | None = None) -> Output:
    """The json / jsonl / csv view: the same document for one strategy or several. With `mode`,
    only what that mode prints is built (a big simulation is not held twice)."""
    return Output(
        columns=ROW_COLUMNS,
        rows=rows(sims) if mode in (None, "csv", "table") else [],
        document={"strategies": [simulation_document(s) for s in sims]}
        if mode in (None, "json")
        else {},
        jsonl_items=step_items(sims) if mode in (None, "jsonl") else [],
    )
