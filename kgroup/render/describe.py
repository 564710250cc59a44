"""The three views of `kgroup describe` as Output objects (offsets, members, state)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kgroup.core.models import BrokerNode, MemberDescription, TopicPartition
from kgroup.core.timefmt import format_lag_ms
from kgroup.describe.engine import GroupLag
from kgroup.render.model import ELLIPSIS, KEY, NUMBER, PARTITION_KEY_COLUMNS, TEXT, Column, Output
from kgroup.render.stream import LazyPart, Part, Stream


def duration_cell(value: object) -> str | None:
    """A table cell for a duration in milliseconds (kgroup.core.timefmt.format_lag_ms: its two
    largest units); blank when unknown."""
    return format_lag_ms(value) if isinstance(value, int) else None


OFFSET_COLUMNS = [
    *PARTITION_KEY_COLUMNS,
    Column("current_offset", justify="right", kind=NUMBER),
    Column("log_start_offset", justify="right", kind=NUMBER),
    Column("log_end_offset", justify="right", kind=NUMBER),
    Column("lag", justify="right", kind=NUMBER),
]
# JSON and CSV keep `lag_ms` (milliseconds); the table shows a duration, titled as check's
LAG_MS_COLUMN = Column(
    "lag_ms", header="LAG_TIME", justify="right", kind=NUMBER, display=duration_cell
)
# Member ids wrap on a narrow terminal; hosts and client ids are cut with a visible `…`.
OWNER_COLUMNS = [
    Column("consumer_id", kind=TEXT),
    Column("host", kind=TEXT, cut=ELLIPSIS),
    Column("client_id", kind=TEXT, cut=ELLIPSIS),
]


def format_partitions(partitions: Sequence[TopicPartition]) -> str:
    """`topic:0,1,2;topic2:3` (topics and partitions sorted)."""
    by_topic: dict[str, list[int]] = {}
    for tp in sorted(partitions):
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    return ";".join(f"{t}:{','.join(map(str, ps))}" for t, ps in by_topic.items())


def _coordinator(node: BrokerNode | None) -> dict[str, Any] | None:
    if node is None:
        return None
    return {"id": node.id, "host": node.host, "port": node.port}


def _coordinator_text(node: BrokerNode | None) -> str | None:
    return f"{node.host}:{node.port} (id {node.id})" if node else None


def _group_header(group: GroupLag) -> dict[str, Any]:
    d = group.description
    return {
        "group": group.group,
        "state": d.state if group.error_kind != "not_found" else None,
        "type": d.type if group.error_kind != "not_found" else None,
        "coordinator": _coordinator(d.coordinator),
        "error": group.error,
    }


def _partition_json(row: Any, lag_time: bool, item: dict[str, Any] | None = None) -> dict[str, Any]:
    """A partition's element of the JSON document; with `item` (the table/CSV row's start,
    its group), the row: the same keys after it."""
    item = {} if item is None else item
    item["topic"] = row.topic
    item["partition"] = row.partition
    item["current_offset"] = row.current_offset
    item["log_start_offset"] = row.log_start_offset
    item["log_end_offset"] = row.log_end_offset
    item["lag"] = row.lag
    if lag_time:
        item["lag_ms"] = row.lag_ms
    item["consumer_id"] = row.consumer_id
    item["host"] = row.host
    item["client_id"] = row.client_id
    return item


def offsets_part(group: GroupLag, *, lag_time: bool = False) -> Part:
    """One group of the offsets view: a row a partition, its document, its total-lag line
    (rows and document made as a writer asks for them)."""
    footer: list[str] = []
    if group.error:
        footer.append(f"{group.group}: error: {group.error}")
    if group.rows:
        per_topic = ", ".join(
            f"{t} {'-' if v is None else v}" for t, v in group.topic_totals.items()
        )
        total = "-" if group.total_lag is None else group.total_lag
        footer.append(f"{group.group}: total lag {total} ({per_topic})")
    elif not group.error:
        footer.append(f"{group.group}: no committed offsets and no assigned partitions")
    return LazyPart(
        rows=lambda: _partition_rows(group, lag_time),
        item=lambda: {
            **_group_header(group),
            "total_lag": group.total_lag,
            "topics": [{"topic": t, "total_lag": v} for t, v in group.topic_totals.items()],
            "partitions": _partition_items(group, lag_time),
        },
        footer=footer,
    )


# Without --lag-time, a row's keys are PartitionLag's first fields, in its order: a row is
# made in C (`dict(zip(keys, row))`, fewer keys than fields; no Python frame and key store a
# partition, 100,000 rows a fleet), with `_partition_json`'s keys, order and values.
_ROW_KEYS = ("group", *(c.key for c in OFFSET_COLUMNS[1:]), "consumer_id", "host", "client_id")
_ITEM_KEYS = _ROW_KEYS[1:]


def _partition_rows(group: GroupLag, lag_time: bool) -> list[dict[str, Any]]:
    """The group's table/CSV rows: its name, then the partition's `_partition_json` keys."""
    if lag_time:
        return [_partition_json(r, lag_time, {"group": group.group}) for r in group.rows]
    name, keys = group.group, _ROW_KEYS
    return [dict(zip(keys, r, strict=False), group=name) for r in group.rows]


def _partition_items(group: GroupLag, lag_time: bool) -> list[dict[str, Any]]:
    """The group's `partitions` in the JSON document (`_partition_json`)."""
    if lag_time:
        return [_partition_json(r, lag_time) for r in group.rows]
    keys = _ITEM_KEYS
    return [dict(zip(keys, r[1:], strict=False)) for r in group.rows]


def offsets_columns(lag_time: bool) -> list[Column]:
    return [*OFFSET_COLUMNS, *([LAG_MS_COLUMN] if lag_time else []), *OWNER_COLUMNS]


def _member_json(member: MemberDescription, verbose: bool) -> dict[str, Any]:
    item: dict[str, Any] = {
        "consumer_id": member.member_id,
        "group_instance_id": member.group_instance_id,
        "host": member.host,
        "client_id": member.client_id,
        "partitions": len(member.assignment),
    }
    if member.member_epoch is not None:  # KIP-848 consumer groups only
        item["member_epoch"] = member.member_epoch
        item["member_type"] = member.member_type
        item["rack"] = member.rack
        item["subscribed_topics"] = (
            None if member.subscription is None else list(member.subscription)
        )
        item["subscribed_topic_regex"] = member.subscribed_topic_regex
    if member.tasks is not None:  # KIP-1071 streams groups
        item["tasks"] = member.tasks
    if verbose:
        item["assignment"] = format_partitions(member.assignment)
        if member.target_assignment is not None:
            item["target_assignment"] = format_partitions(member.target_assignment)
    return item


def _subscription_text(member: dict[str, Any]) -> str | None:
    """A KIP-848 member's subscription for a table cell: `orders,payments` and `/regex/`."""
    names = member.get("subscribed_topics")
    regex = member.get("subscribed_topic_regex")
    if names is None and regex is None:
        return None
    parts = list(names or ())
    if regex:
        parts.append(f"/{regex}/")
    return ",".join(parts) or None


def _fence_notes(group: GroupLag) -> list[str]:
    """One line per member that is a kgroup reset's fence (issue 24.5), not a consumer."""
    from kgroup.core.wire.fence import fence_member_note

    notes = [
        (m.member_id, fence_member_note(m.member_id, m.client_id))
        for m in group.description.members
    ]
    return [f"{group.group}: {member}: {note}" for member, note in notes if note]


MEMBER_COLUMNS = [
    Column("group", kind=KEY),
    Column("consumer_id", kind=TEXT),
    Column("group_instance_id", kind=TEXT),
    Column("host", kind=TEXT, cut=ELLIPSIS),
    Column("client_id", kind=TEXT, cut=ELLIPSIS),
    Column("partitions", justify="right", kind=NUMBER),
]


def members_columns(
    rows: Sequence[dict[str, Any]], complete: bool = True, *, verbose: bool
) -> list[Column]:
    """The members view's columns: KIP-848 ones when a member (of the first rows) has them,
    or when more rows follow the first ones (a later member may have them)."""
    columns = list(MEMBER_COLUMNS)
    kip848 = not complete or any(r.get("member_epoch") is not None for r in rows)
    if kip848:
        columns.append(Column("member_epoch", justify="right", kind=NUMBER))
    if not complete or any(r.get("member_type") is not None for r in rows):
        columns.append(Column("member_type", kind=KEY))
    if not complete or any(r.get("tasks") is not None for r in rows):  # KIP-1071 streams
        columns.append(Column("tasks", kind=TEXT))
    if verbose:
        if kip848:
            columns.append(Column("subscription", kind=TEXT))
        columns.append(Column("assignment", kind=TEXT))
        if not complete or any("target_assignment" in r for r in rows):
            columns.append(Column("target_assignment", kind=TEXT))
    return columns


def members_part(group: GroupLag, *, verbose: bool = False) -> Part:
    """One group of the members view: a row a member."""
    members = [_member_json(m, verbose) for m in group.description.members]
    footer = []
    if group.error:
        footer.append(f"{group.group}: error: {group.error}")
    elif not members:
        footer.append(f"{group.group}: no active members")
    footer.extend(_fence_notes(group))
    return Part(
        rows=[{"group": group.group, **m, "subscription": _subscription_text(m)} for m in members],
        item={**_group_header(group), "members": members},
        footer=footer,
    )


STATE_COLUMNS = [
    Column("group", kind=KEY),
    Column("coordinator", kind=TEXT),  # `host:port (id N)`: wraps at the blank
    Column("assignor", kind=KEY),
    Column("state", kind=KEY),
    Column("members", justify="right", kind=NUMBER),
    Column("type", kind=KEY),
    Column("protocol_type", kind=KEY),
]


def state_columns(rows: Sequence[dict[str, Any]], complete: bool = True) -> list[Column]:
    """The state view's columns: the KIP-848 epochs when a group (of the first rows) has them,
    or when more rows follow the first ones (a later group may have them)."""
    columns = list(STATE_COLUMNS)
    if not complete or any(r.get("group_epoch") is not None for r in rows):
        columns += [
            Column("group_epoch", justify="right", kind=NUMBER),
            Column("assignment_epoch", justify="right", kind=NUMBER),
        ]
    if not complete or any(r.get("topology_epoch") is not None for r in rows):  # KIP-1071
        columns.append(Column("topology_epoch", justify="right", kind=NUMBER))
    return columns


def state_part(group: GroupLag) -> Part:
    """One group of the state view: one row."""
    d = group.description
    missing = group.error_kind == "not_found"
    base = {
        "group": group.group,
        "assignor": None if missing else d.assignor,
        "state": None if missing else d.state,
        "members": None if missing else len(d.members),
        "type": None if missing else d.type,
        "protocol_type": None if missing else d.protocol_type,
        # KIP-848 consumer groups: the group epoch and the epoch of its target assignment.
        "group_epoch": d.group_epoch,
        "assignment_epoch": d.assignment_epoch,
    }
    if d.topology_epoch is not None:  # KIP-1071 streams groups
        base["topology_epoch"] = d.topology_epoch
    return Part(
        rows=[{**base, "coordinator": _coordinator_text(d.coordinator)}],
        item={**base, "coordinator": _coordinator(d.coordinator), "error": group.error},
        footer=[
            *([f"{group.group}: error: {group.error}"] if group.error else []),
            *_fence_notes(group),
        ],
    )


VIEWS = ("offsets", "members", "state")


def describe_stream(
    groups: Iterable[GroupLag],
    *,
    view: str = "offsets",
    lag_time: bool = False,
    assignments: bool = False,
) -> Stream:
    """A describe view of `groups`, printed as they come."""
    if view == "members":
        return Stream(
            parts=(members_part(g, verbose=assignments) for g in groups),
            columns=lambda rows, complete: members_columns(rows, complete, verbose=assignments),
            empty_message="No members.",
        )
    if view == "state":
        return Stream(
            parts=(state_part(g) for g in groups), columns=state_columns, empty_message="No groups."
        )
    return Stream(
        parts=(offsets_part(g, lag_time=lag_time) for g in groups),
        columns=offsets_columns(lag_time),
        empty_message="No partitions.",
    )


def offsets_output(groups: Sequence[GroupLag], *, lag_time: bool = False) -> Output:
    return describe_stream(groups, view="offsets", lag_time=lag_time).to_output()


def members_output(groups: Sequence[GroupLag], *, verbose: bool = False) -> Output:
    return describe_stream(groups, view="members", assignments=verbose).to_output()


def state_output(groups: Sequence[GroupLag]) -> Output:
    return describe_stream(groups, view="state").to_output()
