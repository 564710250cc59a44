"""The simulate-assign scenario: topics, members, events — from a file or from flag shorthands.

Source of truth: ASSIGNORS.md ("Scenario file") and CLI.md (`simulate-assign`). Pure: parsing
takes text, never opens files (the CLI reads them).

File (YAML or JSON)::

    topics:
      orders: 12
      payments: {partitions: 6, racks: [[r1, r2], [r2, r3]], id: "T1-A4s3VTwiI5CTbEp6POw"}
    members:
      - {id: c1, topics: [orders, payments], rack: r1, instance_id: pod-1,
         owned: {orders: [0, 1, 2]}, generation: 3}
    events:
      - join: {id: c4, topics: [orders]}
      - leave: c1
      - partitions: {topic: orders, count: 24}
      - subscribe: {id: c2, topics: [orders]}
      - rack: {id: c2, rack: r3}

A member without `topics` subscribes to every topic. Replica racks listed for fewer partitions
than the topic has repeat round-robin. Flag shorthands: `--members c1,c2` or
`c1=t1+t2@rackA`; `--topics orders:12,payments:6@r1+r2` (partition p's replicas on rack
`racks[p % len(racks)]`);
`--events "+c4,+c5=orders@r2,-c1,topic:orders=24,sub:c2=orders,rack:c2=r3"`.

Files are checked against a schema (kgroup/assign/docschema.py): a wrong type, an unknown key or
anything given twice is a UsageError naming the key and its position. `check_limits` holds a run
to the limits README.md documents.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from kgroup.assign.model import TP, MemberMeta, TopicMeta
from kgroup.core.errors import UsageError

_NAME = re.compile(r"^[A-Za-z0-9._\-]+$")


@dataclass(frozen=True)
class Event:
    """One change to the group between rebalances."""

    kind: str  # join | leave | partitions | subscribe | rack
    member_id: str | None = None
    topics: tuple[str, ...] | None = None
    rack: str | None = None
    instance_id: str | None = None
    topic: str | None = None
    count: int | None = None

    @property
    def label(self) -> str:
        if self.kind == "join":
            extra = f"={'+'.join(self.topics)}" if self.topics else ""
            rack = f"@{self.rack}" if self.rack else ""
            return f"+{self.member_id}{extra}{rack}"
        if self.kind == "leave":
            return f"-{self.member_id}"
        if self.kind == "partitions":
            return f"topic:{self.topic}={self.count}"
        if self.kind == "subscribe":
            return f"sub:{self.member_id}={'+'.join(self.topics or ())}"
        return f"rack:{self.member_id}={self.rack or ''}"


@dataclass
class Scenario:
    """Topics (by name, in file order), members (in join order) and the events to replay."""

    topics: dict[str, TopicMeta]
    members: list[MemberMeta]
    events: list[Event] = field(default_factory=list)

    def validate(self) -> None:
        seen: set[str] = set()
        for m in self.members:
            if m.member_id in seen:
                raise UsageError(f"member {m.member_id!r} is listed twice")
            seen.add(m.member_id)
            for t, p in m.owned:
                meta = self.topics.get(t)
                if meta is None:
                    raise UsageError(f"member {m.member_id!r} owns {t}-{p} of an unknown topic")
                if not 0 <= p < meta.partitions:
                    raise UsageError(
                        f"member {m.member_id!r} owns {t}-{p}, but {t} has {meta.partitions} "
                        "partitions"
                    )


# --- limits -------------------------------------------------------------------------------------

# Far above real clusters (a group rarely spans 100,000 partitions); measured on the assignors:
# 1,000 members x 100,000 partitions runs in < 1 s, 1,000 x 1,000,000 in < 2 s (< 20 s for
# sticky with different subscriptions) and < 500 MB; each step's result kept for the output
# costs ~100 bytes per partition. README.md ("simulate-assign", "Limits") documents them.
MAX_PARTITIONS = 1_000_000
"""Partitions per topic, and in all topics together, at every step."""
MAX_MEMBERS = 100_000
"""Members of the group at every step."""
MAX_MEMBER_PARTITIONS = 1_000_000_000
"""Members x partitions at every step (the assignors' work grows with both)."""
MAX_RESULTS = 10_000_000
"""Strategies x steps x (partitions + members): the results kept for the output."""
LIMITS_HINT = "kgroup's simulate-assign limits are in README.md"


def _too_many_partitions(where: str, topic: str, verb: str = "has") -> UsageError:
    return UsageError(
        f"{where}topic {topic!r} {verb} more than {MAX_PARTITIONS:,} partitions", hint=LIMITS_HINT
    )


def check_limits(scenario: Scenario, strategies: int = 1) -> None:
    """Refuse a run beyond the documented limits before any assignor allocates for it."""
    counts = {name: t.partitions for name, t in scenario.topics.items()}
    members = {m.member_id for m in scenario.members}
    peak = 0
    for index, event in enumerate([None, *scenario.events]):
        if event is not None:
            if event.kind == "join":
                members.add(event.member_id or "")
            elif event.kind == "leave":
                members.discard(event.member_id or "")
            elif event.kind == "partitions":
                counts[event.topic or ""] = event.count or 0
        where = "" if event is None else f"after event {index} ({event.label}): "
        total = sum(counts.values())
        if total > MAX_PARTITIONS:
            raise UsageError(
                f"{where}{total:,} partitions in all topics are more than kgroup simulates "
                f"({MAX_PARTITIONS:,})",
                hint=LIMITS_HINT,
            )
        if len(members) > MAX_MEMBERS:
            raise UsageError(
                f"{where}{len(members):,} members are more than kgroup simulates ({MAX_MEMBERS:,})",
                hint=LIMITS_HINT,
            )
        if len(members) * total > MAX_MEMBER_PARTITIONS:
            raise UsageError(
                f"{where}{len(members)} members x {total:,} partitions is more than kgroup "
                f"simulates ({MAX_MEMBER_PARTITIONS:,})",
                hint=LIMITS_HINT,
            )
        peak = max(peak, total + len(members) + 1)
    steps = 1 + len(scenario.events)
    if strategies * steps * peak > MAX_RESULTS:
        plural = "strategy" if strategies == 1 else "strategies"
        raise UsageError(
            f"{strategies} {plural} x {steps} steps x {peak - 1:,} partitions and members are "
            f"more results than kgroup keeps ({MAX_RESULTS:,})",
            hint="run fewer strategies or events at once; " + LIMITS_HINT,
        )


# --- file --------------------------------------------------------------------------------------


def parse_scenario_text(text: str, source: str = "scenario") -> Scenario:
    """Parse a YAML or JSON scenario document, validated against the scenario schema.

    A wrong value is a UsageError naming its key path and, for YAML, its line:column.
    """
    from kgroup.assign.docschema import load_json, load_yaml, validate

    doc = load_json(text, source) if text.lstrip().startswith("{") else load_yaml(text, source)
    if doc.root.kind != "map":
        raise doc.error((), "expected a mapping with topics and members")
    data = validate(doc, _file_schema())
    topics = _topics_from_file(data.get("topics") or {}, doc)
    members = [
        _member_from_file(item, index, topics, doc)
        for index, item in enumerate(data.get("members") or [])
    ]
    events = [
        _event_from_file(item, index, doc) for index, item in enumerate(data.get("events") or [])
    ]
    scenario = Scenario(topics, members, events)
    scenario.validate()
    return scenario


def _file_schema() -> Any:
    """The scenario file's schema (ASSIGNORS.md, "Scenario file")."""
    from kgroup.assign.docschema import ByKind, Int, ListOf, MapOf, Name, OneKey, Optional, Record

    def partitions(what: str) -> Int:
        return Int(
            0,
            MAX_PARTITIONS,
            what,
            too_big=lambda _: f"more than {MAX_PARTITIONS:,} partitions (kgroup's limit)",
        )

    def topic_names(what: str = "a list of topic names") -> ListOf:
        return ListOf(Name("a topic name"), what, unique=lambda v: v)

    rack = Name("a rack name", empty_ok=True)
    topic = ByKind(
        scalar=partitions("a partition count"),
        map=Record(
            {
                "partitions": partitions("a partition count"),
                "racks": ListOf(
                    ByKind(scalar=rack, list=ListOf(rack, "a list of rack names"), what="racks"),
                    "a list of replica racks per partition",
                ),
                "id": Name("a topic id (base64url UUID)"),
            },
            frozenset({"partitions"}),
        ),
        what="a partition count or a mapping with partitions",
    )
    member = ByKind(
        scalar=Name("a member id"),
        map=Record(
            {
                "id": Name("a member id"),
                "topics": Optional(topic_names()),
                "rack": Optional(rack),
                "instance_id": Optional(Name("a group.instance.id", empty_ok=True)),
                "owned": Optional(
                    MapOf(
                        ListOf(
                            Int(0, what="a partition number"),
                            "a list of partition numbers",
                            unique=lambda v: v,
                        ),
                        what="a mapping of topic name to partitions",
                    )
                ),
                # Kafka's generation id is an int32; -1 means none (a new member)
                "generation": Optional(Int(-1, 2**31 - 1, "an integer generation")),
            },
            frozenset({"id"}),
        ),
        what="a member id or a mapping with id",
    )
    member_id = Name("a member id")
    event = ByKind(
        scalar=Name("an event"),
        map=OneKey(
            {
                "join": Record(
                    {
                        "id": member_id,
                        "topics": Optional(topic_names()),
                        "rack": Optional(rack),
                        "instance_id": Optional(Name("a group.instance.id", empty_ok=True)),
                    },
                    frozenset({"id"}),
                ),
                "leave": member_id,
                "partitions": Record(
                    {"topic": Name("a topic name"), "count": partitions("a partition count")},
                    frozenset({"topic", "count"}),
                ),
                "subscribe": Record(
                    {"id": member_id, "topics": topic_names()}, frozenset({"id", "topics"})
                ),
                "rack": Record({"id": member_id, "rack": Optional(rack)}, frozenset({"id"})),
            },
            "an event",
            "event",
        ),
        what="an event",
    )
    return Record(
        {
            "topics": Optional(MapOf(topic, what="a mapping of topic name to partitions")),
            "members": Optional(
                ListOf(
                    member,
                    "a list of members",
                    unique=lambda v: v if isinstance(v, str) else v["id"],
                    duplicate=lambda key: f"member {key!r} is listed twice",
                    hint="one member per item, e.g. members: [c1, c2]",
                )
            ),
            "events": Optional(ListOf(event, "a list of events")),
        }
    )


def _topics_from_file(raw: Mapping[str, Any], doc: Any) -> dict[str, TopicMeta]:
    topics: dict[str, TopicMeta] = {}
    for name, spec in raw.items():
        if isinstance(spec, int):
            topics[name] = TopicMeta(name, spec)
            continue
        count = spec["partitions"]
        racks = None
        if spec.get("racks") is not None:
            per = [frozenset([r]) if isinstance(r, str) else frozenset(r) for r in spec["racks"]]
            if not per:
                raise doc.error(("topics", name, "racks"), "list the replica racks of a partition")
            racks = tuple(per[p % len(per)] for p in range(count))
        topic_id = spec.get("id")
        if topic_id is not None:
            from kgroup.assign.javaorder import uuid_from_base64

            try:
                uuid_from_base64(topic_id)
            except ValueError as exc:
                raise doc.error(("topics", name, "id"), str(exc)) from exc
        topics[name] = TopicMeta(name, count, racks, topic_id)
    return topics


def _member_from_file(
    item: Any, index: int, topics: Mapping[str, TopicMeta], doc: Any
) -> MemberMeta:
    if isinstance(item, str):
        return MemberMeta(item, tuple(topics))
    subscribed = item.get("topics")
    owned: list[TP] = []
    for t, parts in (item.get("owned") or {}).items():
        meta = topics.get(t)
        if meta is None:
            raise doc.error(("members", index, "owned", t), f"topic {t!r} is not in topics")
        for j, p in enumerate(parts or []):
            if p >= meta.partitions:
                raise doc.error(
                    ("members", index, "owned", t, j),
                    f"partition {p} of {t}, which has {meta.partitions} partitions",
                )
            owned.append((t, p))
    return MemberMeta(
        item["id"],
        tuple(topics) if subscribed is None else tuple(subscribed),
        rack=_opt_str(item.get("rack")),
        instance_id=_opt_str(item.get("instance_id")),
        owned=tuple(owned),
        generation=item.get("generation"),
    )


def _opt_str(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def _event_from_file(item: Any, index: int, doc: Any) -> Event:
    if isinstance(item, str):
        try:
            return parse_event(item, flag=None)
        except UsageError as exc:
            raise doc.error(("events", index), exc.message, exc.hint) from exc
    kind, body = item
    if kind == "leave":
        return Event("leave", member_id=body)
    if kind == "join":
        topics = body.get("topics")
        return Event(
            "join",
            member_id=body["id"],
            topics=None if topics is None else tuple(topics),
            rack=_opt_str(body.get("rack")),
            instance_id=_opt_str(body.get("instance_id")),
        )
    if kind == "partitions":
        return Event("partitions", topic=body["topic"], count=body["count"])
    if kind == "subscribe":
        return Event("subscribe", member_id=body["id"], topics=tuple(body["topics"]))
    return Event("rack", member_id=body["id"], rack=_opt_str(body.get("rack")))


# --- flag shorthands -----------------------------------------------------------------------


def parse_topics_flag(spec: str) -> dict[str, TopicMeta]:
    """`orders:12,payments:6@r1+r2`; a topic given twice or over the limit is a UsageError."""
    topics: dict[str, TopicMeta] = {}
    for item in _items(spec):
        body, _, rack_part = item.partition("@")
        name, sep, count_text = body.partition(":")
        if not sep or not name or not _DIGITS.match(count_text):
            raise UsageError(f"--topics: {item!r} is not NAME:PARTITIONS[@RACK+RACK...]")
        count = _partition_count(count_text, name, "--topics: ")
        if name in topics:
            raise UsageError(f"--topics: topic {name!r} is given twice")
        racks = None
        if rack_part:
            names = [r for r in rack_part.split("+") if r]
            if not names:
                raise UsageError(f"--topics: {item!r} has an empty rack list")
            racks = tuple(frozenset([names[p % len(names)]]) for p in range(count))
        topics[name] = TopicMeta(name, count, racks)
    if not topics:
        raise UsageError("--topics is empty")
    return topics


_DIGITS = re.compile(r"^[0-9]+$")


def _partition_count(text: str, topic: str, where: str, verb: str = "has") -> int:
    """`text` (ASCII digits) as a partition count within MAX_PARTITIONS, checked before int()
    so that a 5,000-digit count is refused, not converted."""
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(MAX_PARTITIONS)) or int(digits) > MAX_PARTITIONS:
        raise _too_many_partitions(where, topic, verb)
    return int(digits)


def parse_members_flag(spec: str, topics: Mapping[str, TopicMeta]) -> list[MemberMeta]:
    """`c1,c2` (every topic) or `c1=t1+t2@rackA`; a member given twice is a UsageError."""
    members = []
    seen: set[str] = set()
    for item in _items(spec):
        member_id, subs, rack = _member_spec(item, "--members: ")
        if member_id in seen:
            raise UsageError(f"--members: member {member_id!r} is given twice")
        seen.add(member_id)
        members.append(MemberMeta(member_id, subs if subs is not None else tuple(topics), rack))
    if not members:
        raise UsageError("--members is empty")
    return members


def _member_spec(item: str, where: str) -> tuple[str, tuple[str, ...] | None, str | None]:
    body, _, rack = item.partition("@")
    member_id, sep, topic_text = body.partition("=")
    if not member_id:
        raise UsageError(f"{where}{item!r} has no member id")
    subs = _topic_list(topic_text, item, where) if sep else None
    return member_id, subs, rack or None


def _topic_list(text: str, item: str, where: str) -> tuple[str, ...]:
    """`t1+t2`; a topic named twice is a UsageError (a subscription is a set of topics)."""
    subs = tuple(t for t in text.split("+") if t)
    for index, topic in enumerate(subs):
        if topic in subs[:index]:
            raise UsageError(f"{where}{item!r} names topic {topic!r} twice")
    return subs


def parse_events_flag(spec: str) -> list[Event]:
    return [parse_event(item) for item in _items(spec)]


def parse_event(item: str, flag: str | None = "--events") -> Event:
    """One event shorthand: `+c4`, `+c4=t1+t2@r1`, `-c1`, `topic:orders=24`,
    `sub:c2=t1+t2`, `rack:c2=r3`. Errors name `flag` (None: the caller says where)."""
    where = f"{flag}: " if flag else ""
    item = item.strip()
    if item.startswith("+"):
        member_id, subs, rack = _member_spec(item[1:], where)
        return Event("join", member_id=member_id, topics=subs, rack=rack)
    if item.startswith("-") and len(item) > 1:
        return Event("leave", member_id=item[1:])
    kind, sep, rest = item.partition(":")
    target, eq, value = rest.partition("=")
    if sep and eq and target:
        if kind in ("topic", "partitions") and _DIGITS.match(value):
            count = _partition_count(value, target, where, "would have")
            return Event("partitions", topic=target, count=count)
        if kind in ("sub", "subscribe"):
            return Event("subscribe", member_id=target, topics=_topic_list(value, item, where))
        if kind == "rack":
            return Event("rack", member_id=target, rack=value or None)
    raise UsageError(
        f"{where}{item!r} is not one of +MEMBER[=T1+T2][@RACK], -MEMBER, topic:NAME=COUNT, "
        "sub:MEMBER=T1+T2, rack:MEMBER=RACK"
    )


def _items(spec: str) -> list[str]:
    return [s.strip() for s in spec.split(",") if s.strip()]


def apply_event(
    topics: dict[str, TopicMeta], members: list[MemberMeta], event: Event
) -> tuple[dict[str, TopicMeta], list[MemberMeta]]:
    """The group after `event` (new objects; inputs untouched)."""
    topics = dict(topics)
    members = list(members)
    ids = [m.member_id for m in members]
    if event.kind == "join":
        if event.member_id in ids:
            raise UsageError(
                f"event {event.label}: member {event.member_id!r} is already in the group"
            )
        subs = event.topics if event.topics is not None else tuple(topics)
        members.append(MemberMeta(event.member_id or "", subs, event.rack, event.instance_id))
    elif event.kind == "leave":
        if event.member_id not in ids:
            raise UsageError(f"event {event.label}: no member {event.member_id!r}")
        members = [m for m in members if m.member_id != event.member_id]
    elif event.kind == "partitions":
        name = event.topic or ""
        count = event.count or 0
        old = topics.get(name)
        if old is None:
            topics[name] = TopicMeta(name, count)
        else:
            if count < old.partitions:
                raise UsageError(
                    f"event {event.label}: Kafka cannot shrink a topic ({name} has "
                    f"{old.partitions} partitions)"
                )
            racks = old.racks
            if racks is not None:
                racks = tuple(racks[p % len(racks)] for p in range(count))
            topics[name] = replace(old, partitions=count, racks=racks)
    elif event.kind in ("subscribe", "rack"):
        if event.member_id not in ids:
            raise UsageError(f"event {event.label}: no member {event.member_id!r}")
        i = ids.index(event.member_id)
        if event.kind == "subscribe":
            members[i] = replace(members[i], topics=event.topics or ())
        else:
            members[i] = replace(members[i], rack=event.rack)
    return topics, members
