"""The JSON declarations of kgroup.protocol.definitions: each file loads into the model, says
only what Kafka's schema language (plus kgroup's `source` and `comment`) says, is named after its
message, and the request and response of a wire API agree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgroup.offsets import schema
from kgroup.protocol import definitions
from kgroup.protocol import messages as p
from kgroup.protocol.model import Array, Message, Struct
from scripts.definitions import load

ROOT = Path(definitions.__file__).parent
PATHS = sorted(str(f.relative_to(ROOT).with_suffix("")) for f in ROOT.rglob("*.json"))

MESSAGE_KEYS = {
    "source",
    "kafka",
    "apiKey",
    "type",
    "name",
    "validVersions",
    "flexibleVersions",
    "about",
    "comment",
    "fields",
    "commonStructs",
}
FIELD_KEYS = {
    "name",
    "type",
    "versions",
    "nullableVersions",
    "taggedVersions",
    "tag",
    "flexibleVersions",
    "ignorable",
    "default",
    "about",
    "comment",
    "fields",
}
TYPES = {"request", "response", "header", "data", "coordinator-key", "coordinator-value"}


def _fields(spec: dict) -> list[dict]:
    """Every field object of a file, nested and common structs included."""
    out = []
    todo = [*spec["fields"], *(f for s in spec.get("commonStructs", ()) for f in s["fields"])]
    while todo:
        field = todo.pop()
        out.append(field)
        todo.extend(field.get("fields", ()))
    return out


def test_there_is_a_definition_for_every_folder() -> None:
    folders = {path.split("/")[0] for path in PATHS}
    assert folders == {"wire", "coordinator", "embedded", "share"}
    assert len(PATHS) > 90


@pytest.mark.parametrize("path", PATHS)
def test_each_file_loads_and_says_only_known_keys(path: str) -> None:
    spec = json.loads((ROOT / f"{path}.json").read_text())
    assert set(spec) <= MESSAGE_KEYS and spec["type"] in TYPES and spec["source"]
    assert path.rsplit("/", 1)[1] == spec["name"]
    for field in _fields(spec):
        assert set(field) <= FIELD_KEYS, field["name"]
        assert "versions" in field, field["name"]
    msg = load(path)
    assert isinstance(msg, Message) and load(path) is msg
    assert len(msg.fields) == len(spec["fields"])


def test_a_common_struct_is_one_object_for_all_its_uses() -> None:
    members = load("wire/ConsumerGroupDescribeResponse").fields[1].type.of.fields[7].type.of
    assignment, target = members.fields[8], members.fields[9]
    assert isinstance(assignment.type, Struct) and assignment.type is target.type
    assert isinstance(assignment.type.fields[0].type, Array)


def test_wire_requests_and_responses_pair_up() -> None:
    for api in p.APIS.values():
        assert (api.request.kind, api.response.kind) == ("request", "response")
        assert api.request.api_key == api.response.api_key == api.key


def test_record_types_name_their_files() -> None:
    for rt in schema.RECORD_TYPES.values():
        assert rt.key.name.endswith("Key") and rt.value.name.endswith("Value")
        assert all(alt.name == rt.value.name for _, alt in rt.alternates)
    assert schema.OFFSET_COMMIT_VALUE is schema.RECORD_TYPES[1].value
