"""The models a fleet makes one of per group or partition fill their instance dict in their
own `__init__` (issue #29: a frozen dataclass's sets each field through `object.__setattr__`),
and stay what their dataclass made them: equal, hashed, printed, replaced and immutable."""

from __future__ import annotations

import dataclasses

import pytest

from kgroup.core import models as m
from kgroup.describe.engine import GroupInput, GroupLag
from kgroup.render.stream import LazyPart

FLEET_MODELS = [
    m.BrokerNode,
    m.GroupListing,
    m.MemberDescription,
    m.GroupDescription,
    m.CommittedOffset,
    m.Watermarks,
    GroupInput,
    GroupLag,
]


@pytest.mark.parametrize("cls", FLEET_MODELS, ids=lambda c: c.__name__)
def test_fleet_models_fill_their_dict_without_object_setattr(cls) -> None:
    names = cls.__init__.__code__.co_names
    assert "__dict__" in names and "__setattr__" not in names
    assert "__dataclass_builtins_object__" not in cls.__init__.__code__.co_names


def _examples() -> list[tuple[object, object, dict[str, object]]]:
    broker = m.BrokerNode(1, "kafka-1", 9092)
    member = m.MemberDescription("m-1", client_id="c", host="/10.0.0.1")
    described = m.GroupDescription("g", "Stable", coordinator=broker, members=(member,))
    return [
        (broker, m.BrokerNode(id=1, host="kafka-1", port=9092, rack=None), {"rack": "r1"}),
        (m.GroupListing("g", "Empty", "classic"), m.GroupListing("g", "Empty", "classic", None),
         {"state": "Stable"}),
        (member, m.MemberDescription(member_id="m-1", client_id="c", host="/10.0.0.1"),
         {"member_epoch": 3}),
        (described, m.GroupDescription("g", "Stable", "classic", None, None, broker, (member,)),
         {"error": "x"}),
        (m.CommittedOffset(5), m.committed_offset(5, None, ""), {"metadata": "m"}),
        (m.Watermarks(0, 9), m.Watermarks(log_start=0, log_end=9), {"last_stable": 8}),
        (GroupInput(described, {}), GroupInput(described, {}, None, None), {"error": "e"}),
        (GroupLag("g", described, ()), GroupLag("g", described, (), {}, None), {"total_lag": 4}),
    ]  # fmt: skip


@pytest.mark.parametrize("made,spelled,change", _examples(), ids=lambda v: type(v).__name__)
def test_fleet_models_behave_as_their_dataclass(made, spelled, change) -> None:
    assert made == spelled and repr(made) == repr(spelled)
    if not isinstance(made, (GroupInput, GroupLag)):  # these hold dicts: never hashable
        assert hash(made) == hash(spelled)
    fields = [f.name for f in dataclasses.fields(made)]
    assert list(vars(made)) == fields  # every field set, in order
    changed = dataclasses.replace(made, **change)
    assert changed != made and {k: getattr(changed, k) for k in change} == change
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.__setattr__(fields[0], None)


def test_a_group_lag_keeps_a_dict_of_topic_totals_of_its_own() -> None:
    a = GroupLag("a", m.GroupDescription("a", "Empty"), ())
    b = GroupLag("b", m.GroupDescription("b", "Empty"), ())
    assert a.topic_totals == {} and a.topic_totals is not b.topic_totals


def test_a_lazy_part_makes_its_rows_and_item_once_each() -> None:
    made: list[str] = []
    part = LazyPart(rows=lambda: made.append("rows") or [{"a": 1}],
                    item=lambda: made.append("item") or {"b": 2})  # fmt: skip
    assert part.rows == [{"a": 1}] and part.rows is part.rows
    assert made == ["rows"]
    assert part.item == {"b": 2} and part.item is part.item
    assert made == ["rows", "item"]
