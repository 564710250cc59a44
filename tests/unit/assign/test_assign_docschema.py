"""The declarative document validator behind scenario files: data in, data or UsageError out."""

from __future__ import annotations

import pytest

from kgroup.assign.docschema import (
    Int,
    ListOf,
    MapOf,
    Name,
    OneKey,
    Optional,
    Record,
    load_json,
    load_yaml,
    validate,
)
from kgroup.assign.scenario import parse_scenario_text
from kgroup.core.errors import UsageError

SPEC = Record(
    {
        "name": Name(),
        "n": Optional(Int(0, 10)),
        "tags": ListOf(Name(), unique=lambda v: v),
        "map": MapOf(Int()),
        "ev": OneKey({"a": Int(), "b": Name()}, "an event", "event"),
    },
    frozenset({"name"}),
)


def _error(text: str, spec=SPEC, json: bool = False) -> str:
    doc = load_json(text, "f") if json else load_yaml(text, "f")
    with pytest.raises(UsageError) as info:
        validate(doc, spec)
    return info.value.one_line()


def test_valid_document_becomes_plain_data() -> None:
    doc = load_yaml("name: 007\nn: null\ntags: [a, 2]\nmap: {1: 3}\nev: {b: x}\n", "f")
    assert validate(doc, SPEC) == {
        "name": "007",  # a name is kept as written, not read as octal
        "n": None,
        "tags": ["a", "2"],
        "map": {"1": 3},
        "ev": ("b", "x"),
    }


def test_merge_keys_and_aliases_follow_yaml() -> None:
    text = "base: &b {id: c1, rack: r1}\nm:\n  <<: *b\n  rack: r2\nsame: *b\n"
    spec = Record({"base": MapOf(Name()), "m": MapOf(Name()), "same": MapOf(Name())})
    data = validate(load_yaml(text, "f"), spec)
    assert data["m"] == {"id": "c1", "rack": "r2"}  # the explicit key overrides the merged one
    assert data["same"] == data["base"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("n: 1\n", "f:1:1: missing key 'name'"),
        ("name: a\nn: 11\n", "f:2:4: n: 11 is above 10"),
        ("name: a\nn: true\n", "f:2:4: n: expected an integer, got a boolean (true)"),
        ("name: a\ntags: [x, y, x]\n", "f:2:14: tags[2]: 'x' is listed twice (first at 2:8)"),
        ("name: a\nmap: {k: 1, k: 2}\n", "f:2:13: map: key 'k' appears twice (first at 2:7)"),
        ("name: a\nname: b\n", "f:2:1: key 'name' appears twice (first at 1:1)"),
        ("name: a\nev: {c: 1}\n", "f:2:5: ev: unknown event 'c' (expected a, b)"),
        ("name: [a]\n", "f:1:7: name: expected a name, got a list"),
    ],
)
def test_yaml_errors_name_key_and_position(text: str, message: str) -> None:
    assert _error(text) == message


def test_json_errors_name_the_key_path() -> None:
    assert _error('{"name": "a", "tags": ["x", {}]}', json=True) == (
        "f: tags[1]: expected a name, got a mapping"
    )
    assert _error('{"name": "a", "name": "b"}', json=True) == (
        "f: key 'name' appears twice (first at name)"
    )


def test_scenario_event_shorthand_in_a_file_has_its_position() -> None:
    with pytest.raises(UsageError) as info:
        parse_scenario_text("topics: {t: 2}\nmembers: [c1]\nevents: ['sub:c1=t+t']\n", "s")
    assert info.value.one_line() == "s:3:10: events[0]: 'sub:c1=t+t' names topic 't' twice"
