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
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
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


# --- file --------------------------------------------------------------------------------------


def parse_scenario_text(text: str, source: str = "scenario") -> Scenario:
    """Parse a YAML or JSON scenario document."""
    data: Any
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{source}: not valid JSON: {exc}") from exc
    else:
        try:
            import yaml
        except ImportError as exc:  # pragma: no cover - pyyaml is a dependency
            raise UsageError("reading YAML scenarios needs PyYAML (pip install pyyaml)") from exc
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise UsageError(f"{source}: not valid YAML: {exc}") from exc
    if not isinstance(data, Mapping):
        raise UsageError(f"{source}: expected a mapping with topics and members")
    return scenario_from_data(data, source)


def scenario_from_data(data: Mapping[str, Any], source: str = "scenario") -> Scenario:
    topics = _topics_from_data(data.get("topics") or {}, source)
    members = [_member_from_data(item, topics, source) for item in (data.get("members") or [])]
    events = [_event_from_data(item, source) for item in (data.get("events") or [])]
    scenario = Scenario(topics, members, events)
    scenario.validate()
    return scenario


def _topics_from_data(raw: Any, source: str) -> dict[str, TopicMeta]:
    if not isinstance(raw, Mapping):
        raise UsageError(f"{source}: topics must be a mapping of name to partition count")
    topics: dict[str, TopicMeta] = {}
    for name, spec in raw.items():
        name = str(name)
        if isinstance(spec, bool) or not isinstance(spec, (int, Mapping)):
            raise UsageError(f"{source}: topic {name!r} needs a partition count")
        if isinstance(spec, int):
            topics[name] = TopicMeta(name, _count(spec, name, source))
            continue
        count = _count(spec.get("partitions"), name, source)
        racks = _racks(spec.get("racks"), count, name, source)
        topic_id = spec.get("id")
        if topic_id is not None:
            topic_id = str(topic_id)
            from kgroup.assign.javaorder import uuid_from_base64

            try:
                uuid_from_base64(topic_id)
            except ValueError as exc:
                raise UsageError(f"{source}: topic {name!r}: {exc}") from exc
        topics[name] = TopicMeta(name, count, racks, topic_id)
    return topics


def _count(value: Any, name: str, source: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UsageError(f"{source}: topic {name!r} needs a partition count >= 0")
    return value


def _racks(raw: Any, count: int, name: str, source: str) -> tuple[frozenset[str], ...] | None:
    if raw is None:
        return None
    if not isinstance(raw, Sequence) or isinstance(raw, str) or not raw:
        raise UsageError(f"{source}: topic {name!r}: racks must be a list of rack lists")
    per: list[frozenset[str]] = []
    for item in raw:
        if isinstance(item, str):
            per.append(frozenset([item]))
        elif isinstance(item, Sequence):
            per.append(frozenset(str(r) for r in item))
        else:
            raise UsageError(f"{source}: topic {name!r}: racks must be a list of rack lists")
    return tuple(per[p % len(per)] for p in range(count))


def _member_from_data(item: Any, topics: Mapping[str, TopicMeta], source: str) -> MemberMeta:
    if isinstance(item, str):
        return MemberMeta(item, tuple(topics))
    if not isinstance(item, Mapping) or "id" not in item:
        raise UsageError(f"{source}: each member needs an id")
    member_id = str(item["id"])
    subscribed = item.get("topics")
    subs = tuple(topics) if subscribed is None else tuple(str(t) for t in subscribed)
    owned: list[TP] = []
    raw_owned = item.get("owned") or {}
    if not isinstance(raw_owned, Mapping):
        raise UsageError(f"{source}: member {member_id!r}: owned must map topic to partitions")
    for t, parts in raw_owned.items():
        for p in parts or []:
            owned.append((str(t), int(p)))
    generation = item.get("generation")
    return MemberMeta(
        member_id,
        subs,
        rack=_opt_str(item.get("rack")),
        instance_id=_opt_str(item.get("instance_id")),
        owned=tuple(owned),
        generation=None if generation is None else int(generation),
    )


def _opt_str(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def _event_from_data(item: Any, source: str) -> Event:
    if isinstance(item, str):
        return parse_event(item)
    if not isinstance(item, Mapping) or len(item) != 1:
        raise UsageError(f"{source}: each event is one of join, leave, partitions, subscribe, rack")
    kind, body = next(iter(item.items()))
    if kind == "leave":
        return Event("leave", member_id=str(body))
    if not isinstance(body, Mapping):
        raise UsageError(f"{source}: event {kind!r} needs a mapping")
    if kind == "join":
        topics = body.get("topics")
        return Event(
            "join",
            member_id=str(body["id"]),
            topics=None if topics is None else tuple(str(t) for t in topics),
            rack=_opt_str(body.get("rack")),
            instance_id=_opt_str(body.get("instance_id")),
        )
    if kind == "partitions":
        return Event("partitions", topic=str(body["topic"]), count=int(body["count"]))
    if kind == "subscribe":
        return Event(
            "subscribe", member_id=str(body["id"]), topics=tuple(str(t) for t in body["topics"])
        )
    if kind == "rack":
        return Event("rack", member_id=str(body["id"]), rack=_opt_str(body.get("rack")))
    raise UsageError(f"{source}: unknown event {kind!r}")


# --- flag shorthands -----------------------------------------------------------------------


def parse_topics_flag(spec: str) -> dict[str, TopicMeta]:
    """`orders:12,payments:6@r1+r2`."""
    topics: dict[str, TopicMeta] = {}
    for item in _items(spec):
        body, _, rack_part = item.partition("@")
        name, sep, count_text = body.partition(":")
        if not sep or not name or not count_text.isdigit():
            raise UsageError(f"--topics: {item!r} is not NAME:PARTITIONS[@RACK+RACK...]")
        count = int(count_text)
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


def parse_members_flag(spec: str, topics: Mapping[str, TopicMeta]) -> list[MemberMeta]:
    """`c1,c2` (every topic) or `c1=t1+t2@rackA`."""
    members = []
    for item in _items(spec):
        member_id, subs, rack = _member_spec(item, "--members")
        members.append(MemberMeta(member_id, subs if subs is not None else tuple(topics), rack))
    if not members:
        raise UsageError("--members is empty")
    return members


def _member_spec(item: str, flag: str) -> tuple[str, tuple[str, ...] | None, str | None]:
    body, _, rack = item.partition("@")
    member_id, sep, topic_text = body.partition("=")
    if not member_id:
        raise UsageError(f"{flag}: {item!r} has no member id")
    subs = tuple(t for t in topic_text.split("+") if t) if sep else None
    return member_id, subs, rack or None


def parse_events_flag(spec: str) -> list[Event]:
    return [parse_event(item) for item in _items(spec)]


def parse_event(item: str) -> Event:
    """One event shorthand: `+c4`, `+c4=t1+t2@r1`, `-c1`, `topic:orders=24`,
    `sub:c2=t1+t2`, `rack:c2=r3`."""
    item = item.strip()
    if item.startswith("+"):
        member_id, subs, rack = _member_spec(item[1:], "--events")
        return Event("join", member_id=member_id, topics=subs, rack=rack)
    if item.startswith("-") and len(item) > 1:
        return Event("leave", member_id=item[1:])
    kind, sep, rest = item.partition(":")
    target, eq, value = rest.partition("=")
    if sep and eq and target:
        if kind in ("topic", "partitions") and value.isdigit():
            return Event("partitions", topic=target, count=int(value))
        if kind in ("sub", "subscribe"):
            return Event(
                "subscribe", member_id=target, topics=tuple(v for v in value.split("+") if v)
            )
        if kind == "rack":
            return Event("rack", member_id=target, rack=value or None)
    raise UsageError(
        f"--events: {item!r} is not one of +MEMBER[=T1+T2][@RACK], -MEMBER, topic:NAME=COUNT, "
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
