"""`kgroup check` as an Output (one row per partition; one JSON object per group) and the
status-change lines of `--watch`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kgroup.check.model import GroupVerdict, PartitionVerdict
from kgroup.core.timefmt import format_lag_ms, format_utc_s
from kgroup.render.describe import duration_cell
from kgroup.render.model import ELLIPSIS, KEY, NUMBER, PARTITION_KEY_COLUMNS, TEXT, Column, Output
from kgroup.render.stream import Part, Stream

LOG_END_SOURCE = {"history": "list_offsets_by_timestamp", "sampling": "sampled"}

COLUMNS = [
    *PARTITION_KEY_COLUMNS,
    Column("status", kind=KEY),
    Column("rule", kind=KEY),
    Column("lag", justify="right", kind=NUMBER),
    Column("lag_ms", header="LAG_TIME", justify="right", kind=NUMBER, display=duration_cell),
    Column("drain", kind=KEY),
    Column("headroom_ms", header="HEADROOM", justify="right", kind=NUMBER, display=duration_cell),
    Column("consumer_id", kind=TEXT, cut=ELLIPSIS),
]


def drain_text(p: PartitionVerdict) -> str | None:
    """`caught up`, `eta 2m10s`, `behind 12.5/s`, or None when the rates are unknown."""
    d = p.drain
    if d.eta_ms == 0:
        return "caught up"
    if d.eta_ms is not None:
        return f"eta {format_lag_ms(d.eta_ms)}"
    if d.behind_per_s is not None:
        return "not draining" if d.behind_per_s == 0 else f"behind {d.behind_per_s:.3g}/s"
    return None


def partition_json(p: PartitionVerdict) -> dict[str, Any]:
    d = p.drain
    owner = p.owner
    consume, produce, behind = d.consume_rate, d.produce_rate, d.behind_per_s
    return {
        "topic": p.topic,
        "partition": p.partition,
        "status": p.status.name,
        "rule": p.rule,
        "reason": p.reason,
        "current_offset": p.committed,
        "log_start_offset": p.log_start,
        "log_end_offset": p.log_end,
        "lag": p.lag,
        "lag_ms": p.lag_ms,
        "complete": round(p.complete, 3),
        "consume_rate": None if consume is None else round(consume, 3),
        "produce_rate": None if produce is None else round(produce, 3),
        "drain_eta_ms": d.eta_ms,
        "falling_behind_per_s": None if behind is None else round(behind, 3),
        "headroom_ms": p.headroom_ms,
        "headroom_by": p.headroom_by,
        "headroom_time_ms": p.headroom_time_ms,
        "headroom_size_ms": p.headroom_size_ms,
        "partition_size_bytes": p.size_bytes,
        "consumer_id": owner.consumer_id if owner else None,
        "client_id": owner.client_id if owner else None,
        "host": owner.host if owner else None,
        "evidence": {
            "commits": [
                {"timestamp_ms": o.timestamp_ms, "offset": o.offset, "lag": o.lag}
                for o in p.observations
            ],
            "log_ends": [{"timestamp_ms": e.timestamp_ms, "offset": e.offset} for e in p.log_ends],
        },
    }


def group_json(g: GroupVerdict) -> dict[str, Any]:
    return {
        "group": g.group,
        "status": g.status.name,
        "rule": g.rule,
        "reason": g.reason,
        "state": g.state,
        "type": g.type,
        "source": g.source,
        "log_end_source": LOG_END_SOURCE.get(g.source),
        "error": g.error,
        "total_lag": g.total_lag,
        "complete": round(g.complete, 3),
        "skew": None if g.skew is None else round(g.skew, 3),
        "partitions": [partition_json(p) for p in g.partitions],
        "members": [
            {
                "consumer_id": m.consumer_id,
                "client_id": m.client_id,
                "host": m.host,
                "partitions": m.partitions,
                "total_lag": m.total_lag,
                "hottest": None
                if m.hottest is None
                else {
                    "topic": m.hottest.topic,
                    "partition": m.hottest.partition,
                    "lag": m.hottest.lag,
                },
            }
            for m in g.members
        ],
    }


# -- a group's JSON text from templates (issue #29) ---------------------------------------------
#
# `group_text` writes `indented(group_json(g), 2)` (json.dumps(indent=2) as the document nests
# it) without the dicts: the layout of a group of a given shape (each partition's number of
# commits and log ends, each member's hottest partition or none) is a template made once by
# json.dumps from a group whose every value is a hole; the values are encoded in one call of
# the C encoder, separated by NUL (which it never writes raw: JSON escapes control
# characters), and put in the holes. A fleet of 10,000 groups has a handful of shapes.

_HOLE = "\x00"
_TEMPLATES: dict[tuple[Any, ...], str] = {}
_SHAPES_KEPT = 512  # templates kept (the cache is emptied when full)
_PARTITION_KEYS = (
    "topic", "partition", "status", "rule", "reason", "current_offset", "log_start_offset",
    "log_end_offset", "lag", "lag_ms", "complete", "consume_rate", "produce_rate",
    "drain_eta_ms", "falling_behind_per_s", "headroom_ms", "headroom_by", "headroom_time_ms",
    "headroom_size_ms", "partition_size_bytes", "consumer_id", "client_id", "host",
)  # fmt: skip
_GROUP_KEYS = (
    "group", "status", "rule", "reason", "state", "type", "source", "log_end_source", "error",
    "total_lag", "complete", "skew",
)  # fmt: skip


def _encoder() -> Any:
    from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]

    if c_make_encoder is None:  # a Python without the C accelerator
        import json

        return lambda values, _: json.dumps(values, ensure_ascii=False, separators=(_HOLE, ": "))
    return c_make_encoder(None, None, encode_basestring, None, ": ", _HOLE, False, False, True)


_ENCODE = _encoder()


def _template(shape: tuple[Any, ...]) -> str:
    """The group element's text for `shape` (see group_text), a `%s` for every value."""
    import json

    holes = dict.fromkeys
    parts, members = shape
    group = holes(_GROUP_KEYS, _HOLE)
    group["partitions"] = [
        {
            **holes(_PARTITION_KEYS, _HOLE),
            "evidence": {
                "commits": [holes(("timestamp_ms", "offset", "lag"), _HOLE)] * commits,
                "log_ends": [holes(("timestamp_ms", "offset"), _HOLE)] * ends,
            },
        }
        for commits, ends in parts
    ]
    group["members"] = [
        {
            **holes(("consumer_id", "client_id", "host", "partitions", "total_lag"), _HOLE),
            "hottest": holes(("topic", "partition", "lag"), _HOLE) if hot else None,
        }
        for hot in members
    ]
    text = json.dumps(group, indent=2, ensure_ascii=False).replace("\n", "\n" + "  " * 2)
    assert "%" not in text  # keys and layout only: every `%` is a hole's
    return text.replace(json.dumps(_HOLE), "%s")


def group_text(g: GroupVerdict) -> str:
    """`group_json(g)` as the JSON document holds it (an element of `groups`: json.dumps with
    indent=2, nested 2 deep), written from the shape's template."""
    values: list[Any] = [
        g.group, g.status.name, g.rule, g.reason, g.state, g.type, g.source,
        LOG_END_SOURCE.get(g.source), g.error, g.total_lag, round(g.complete, 3),
        None if g.skew is None else round(g.skew, 3),
    ]  # fmt: skip
    extend = values.extend
    parts = []
    for p in g.partitions:
        d = p.drain
        owner = p.owner
        consume, produce, behind = d.consume_rate, d.produce_rate, d.behind_per_s
        extend((
            p.topic, p.partition, p.status.name, p.rule, p.reason, p.committed, p.log_start,
            p.log_end, p.lag, p.lag_ms, round(p.complete, 3),
            None if consume is None else round(consume, 3),
            None if produce is None else round(produce, 3),
            d.eta_ms, None if behind is None else round(behind, 3), p.headroom_ms,
            p.headroom_by, p.headroom_time_ms, p.headroom_size_ms, p.size_bytes,
            *((owner.consumer_id, owner.client_id, owner.host) if owner else (None,) * 3),
        ))  # fmt: skip
        for o in p.observations:
            extend((o.timestamp_ms, o.offset, o.lag))
        for e in p.log_ends:
            extend((e.timestamp_ms, e.offset))
        parts.append((len(p.observations), len(p.log_ends)))
    members = []
    for m in g.members:
        extend((m.consumer_id, m.client_id, m.host, m.partitions, m.total_lag))
        hot = m.hottest
        if hot is not None:
            extend((hot.topic, hot.partition, hot.lag))
        members.append(hot is not None)
    shape = (tuple(parts), tuple(members))
    template = _TEMPLATES.get(shape)
    if template is None:
        if len(_TEMPLATES) >= _SHAPES_KEPT:
            _TEMPLATES.clear()
        template = _TEMPLATES[shape] = _template(shape)
    try:
        encoded = "".join(_ENCODE(values, 0))
    except (TypeError, ValueError):  # a value the C encoder does not write as json.dumps does
        from kgroup.render.stream import indented

        return indented(group_json(g), 2)
    return template % tuple(encoded[1:-1].split(_HOLE))


def _footer(g: GroupVerdict) -> list[str]:
    if g.error:
        return [f"{g.group}: {g.status.name}: {g.error}"]
    from kgroup.core.wire.fence import is_fence_member

    lines = [f"{g.group}: {g.status.name} ({g.reason}); from {g.source}"]
    if g.members:
        skew = "-" if g.skew is None else f"{g.skew:.2f}"
        lines.append(f"{g.group}: {len(g.members)} members, lag skew {skew}")
        for m in g.members:
            hot = m.hottest
            hottest = f", hottest {hot.topic}:{hot.partition} lag {hot.lag}" if hot else ""
            total = "-" if m.total_lag is None else m.total_lag
            fence = (
                " (a kgroup reset's fence member, not a consumer)"
                if is_fence_member(m.consumer_id, m.client_id)
                else ""
            )
            lines.append(
                f"  {m.consumer_id}: {m.partitions} partitions, lag {total}{hottest}{fence}"
            )
    return lines


def check_part(g: GroupVerdict, mode: str | None = None) -> Part:
    """One group: a row a partition, its JSON element, its verdict and member lines; for a
    `mode`, only what that mode prints (JSON and JSON Lines the element, else rows and lines)."""
    if mode == "json":
        return Part(text=group_text(g))
    if mode == "jsonl":
        return Part(item=group_json(g))
    rows = [
        {
            "group": g.group,
            "topic": p.topic,
            "partition": p.partition,
            "status": p.status.name,
            "rule": p.rule,
            "lag": p.lag,
            "lag_ms": p.lag_ms,
            "drain": drain_text(p),
            "headroom_ms": p.headroom_ms,
            "consumer_id": p.owner.consumer_id if p.owner else None,
        }
        for p in g.partitions
    ]
    if mode is not None:
        return Part(rows=rows, footer=_footer(g))
    return Part(rows=rows, item=group_json(g), footer=_footer(g))


def check_head(request: Any, now_ms: int) -> dict[str, Any]:
    """The JSON document's keys before `groups`: the window, thresholds and evaluation time."""
    limits = request.thresholds
    return {
        "window_ms": request.window_ms,
        "samples": request.samples,
        "evaluated_at_ms": now_ms,
        "fail_on": request.fail_on,
        "thresholds": {
            "max_lag": limits.max_lag,
            "max_lag_ms": limits.max_lag_ms,
            "min_headroom_ms": limits.min_headroom_ms,
        },
    }


def check_stream(
    verdicts: Iterable[GroupVerdict], request: Any, now_ms: int, mode: str | None = None
) -> Stream:
    """The verdicts printed as they come (a row a partition, one JSON element a group); with
    the output `mode`, each group's part holds only what that mode prints."""
    return Stream(
        parts=(check_part(g, mode) for g in verdicts),
        columns=COLUMNS,
        head=check_head(request, now_ms),
        empty_message="No partitions.",
    )


def check_output(result: Any, request: Any) -> Output:
    """The rows (partitions), JSON document and per-group footer of one evaluation."""
    return check_stream(result.groups, request, result.now_ms).to_output()


def status_changes(
    previous: dict[tuple[str, str], str], groups: Iterable[GroupVerdict], now_ms: int
) -> list[str]:
    """`--watch` lines for the statuses that changed since `previous` (updated in place); the
    first evaluation reports every group and every partition that is not OK. Names and reasons
    come from the cluster: each line is terminal-safe (kgroup/render/safe.py)."""
    from kgroup.render.safe import terminal_safe

    stamp = format_utc_s(now_ms)
    lines = []
    for g in groups:
        seen = [((g.group, ""), g.status.name, g.reason, g.group)]
        for p in g.partitions:
            where = f"{g.group} {p.topic}:{p.partition}"
            seen.append(((g.group, f"{p.topic}:{p.partition}"), p.status.name, p.reason, where))
        for key, status, reason, where in seen:
            before = previous.get(key)
            if before == status:
                continue
            previous[key] = status
            if before is None and key[1] and status == "OK":
                continue  # a partition appearing OK is no news
            lines.append(terminal_safe(f"{stamp} {where}: {before or '-'} -> {status} ({reason})"))
    return lines
