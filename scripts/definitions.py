"""The loader of the JSON declarations under kgroup/protocol/definitions/: build input only.

Kafka keeps its message layouts as JSON files and generates code from them (the README in
`clients/src/main/resources/common/message/`; the generator's `MessageSpec`, `FieldSpec`,
`StructSpec`); here each file is loaded into the declaration model of `kgroup.protocol.model`
for the generators (scripts/gen_protocol.py and the scripts it runs) and the tests. kgroup
itself never reads these files: what it needs of a declaration is generated and committed
(kgroup/protocol/generated/, kgroup/offsets/generated/), and
tests/unit/protocol/test_no_declaration_read_at_run_time.py fails when a module of kgroup
imports this loader or a command opens a definition. One file per message:

- `wire/`: request and response of each wire API, and the request and response headers
  (`clients/src/main/resources/common/message/`);
- `coordinator/`: every `__consumer_offsets` key and value
  (`group-coordinator/src/main/resources/common/message/`); `coordinator/kafka-X.Y/` holds the
  earlier layouts a record type id also had (early-access and preview releases);
- `embedded/`: bytes carried inside other messages: the consumer protocol, the sticky assignors'
  user data and Kafka Connect's protocol (Java `Schema`s in Kafka, written here the same way).

Keys as Kafka spells them: `name`, `type` ("request", "response", "header", "data",
"coordinator-key", "coordinator-value"; the last two are "data" to the model), `apiKey`,
`validVersions`, `flexibleVersions`, `fields`, `commonStructs`; per field `name`, `type`
(`int32`, `[]int32`, `Name` or `[]Name` with inline `fields` or a common struct), `versions`,
`nullableVersions`, `taggedVersions`, `tag`, `default` (Kafka's text: "-1", "false", "null"),
`ignorable`, `flexibleVersions` and `about` (the model's `note`). kgroup's additions, not loaded:
`source` (the Kafka file or Java class transcribed, and the apache/kafka commit it was compared
with) and `comment` (kgroup's notes on a choice).
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from kgroup.protocol.model import (
    NULL,
    PRIMITIVES,
    Array,
    Field,
    FieldType,
    Message,
    Struct,
    parse_versions,
    snake,
)

_ROOT = str(Path(__file__).resolve().parent.parent / "kgroup" / "protocol" / "definitions")
_KINDS = {"coordinator-key": "data", "coordinator-value": "data"}
_INTEGERS = frozenset({"int8", "int16", "uint16", "int32", "int64"})
_BOOLS = {"true": True, "false": False}

# One JSON object of a definition file, as json.load gives it
_Spec = dict

_loaded: dict[str, Message] = {}
_loading = threading.Lock()  # first uses may come from several request threads at once


def load(path: str) -> Message:
    """The message declared in `<path>.json` under kgroup/protocol/definitions/
    (`"wire/FetchRequest"`), read once: later calls return the same object."""
    msg = _loaded.get(path)
    if msg is None:
        with _loading:
            msg = _loaded.get(path)
            if msg is None:
                with open(os.path.join(_ROOT, f"{path}.json"), "rb") as fh:
                    spec = json.load(fh)
                msg = _loaded[path] = _message(spec, path)
    return msg


def paths() -> list[str]:
    """Every declaration path (`wire/FetchRequest`), sorted."""
    found = []
    for dirpath, _, files in os.walk(_ROOT):
        for name in files:
            if name.endswith(".json"):
                rel = os.path.relpath(os.path.join(dirpath, name), _ROOT)
                found.append(rel[: -len(".json")].replace(os.sep, "/"))
    return sorted(found)


def _message(spec: _Spec, path: str) -> Message:
    flexible = spec["flexibleVersions"]
    reader = _StructReader(spec.get("commonStructs", []))
    return Message(
        name=spec["name"],
        valid=parse_versions(spec["validVersions"]),
        flexible_from=None if flexible == "none" else parse_versions(flexible)[0],
        fields=reader.fields(spec["fields"]),
        note=spec.get("about", ""),
        api_key=spec.get("apiKey"),
        kind=_KINDS.get(spec["type"], spec["type"]),
        path=path,
    )


class _StructReader:
    """Builds the fields of one file; a common struct is built once and shared by its uses."""

    def __init__(self, common: list[_Spec]) -> None:
        self._specs: dict[str, list[_Spec]] = {s["name"]: s["fields"] for s in common}
        self._common: dict[str, Struct] = {}

    def fields(self, specs: list[_Spec]) -> tuple[Field, ...]:
        return tuple(self._field(spec) for spec in specs)

    def _field(self, spec: _Spec) -> Field:
        name, type_name = spec["name"], spec["type"]
        nullable, tagged, flexible = (
            spec.get("nullableVersions"),
            spec.get("taggedVersions"),
            spec.get("flexibleVersions"),
        )
        return Field(
            name=name,
            type=self._type(type_name, spec),
            versions=parse_versions(spec["versions"]),
            nullable=parse_versions(nullable) if nullable else None,
            tag=spec.get("tag"),
            default=_default(type_name, spec.get("default")),
            note=spec.get("about", ""),
            key=snake(name),
            tagged=parse_versions(tagged) if tagged else None,
            ignorable=spec.get("ignorable", False),
            flexible=parse_versions(flexible) if flexible else None,
        )

    def _type(self, type_name: str, spec: _Spec) -> FieldType:
        if type_name.startswith("[]"):
            return Array(self._type(type_name[2:], spec))
        if type_name in PRIMITIVES:
            return type_name
        if "fields" in spec:
            return Struct(type_name, self.fields(spec["fields"]))
        if type_name not in self._common:
            if type_name not in self._specs:
                raise ValueError(f"unknown type {type_name!r} for field {spec['name']}")
            self._common[type_name] = Struct(type_name, self.fields(self._specs[type_name]))
        return self._common[type_name]


def _default(type_name: str, text: str | None) -> object:
    """Kafka's default text as the model's value: None (the type's zero), NULL, int, bool, str."""
    if text is None:
        return None
    if text == "null":
        return NULL
    if type_name in _INTEGERS:
        return int(text, 0)
    if type_name == "bool":
        return _BOOLS[text]
    return text
