"""The declaration model for Kafka's binary message formats: one table per message.

Source of truth: Kafka's message generator and its JSON schema language
(`generator/src/main/java/org/apache/kafka/message/`: `MessageSpec`, `FieldSpec`, `StructSpec`,
`Versions`; the README in `clients/src/main/resources/common/message/`). A message has a valid
version range and flexible versions (KIP-482: compact strings, bytes and arrays and a tagged-field
section per struct); each field has a type, the versions it exists in, the versions it may be null
in, an optional tag (with its tagged versions), a default and whether writing a non-default value
in a version without the field is allowed (`ignorable`). Entity types, map keys and `about` texts
are not modelled: they do not change the bytes.

The same model serves wire APIs (`Api`: request and response of one api key), the
`__consumer_offsets` records (`kgroup.offsets.schema`) and embedded protocols
(ConsumerProtocolSubscription/Assignment). Every declaration is JSON in Kafka's schema language
under kgroup/protocol/definitions/, a build input: scripts/gen_protocol.py writes each as this
model's objects in Python (kgroup/protocol/generated/declarations/, found by path through
`kgroup.protocol.declarations`), so kgroup reads no JSON when it runs. `f()`, `struct()`, `arr()`
and `message()` build declarations in code (tests do).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, cached_property

OPEN = 0x7FFF  # "N+" upper bound
NEVER: tuple[int, int] = (1, 0)  # "none": an empty range

PRIMITIVES = frozenset(
    {"int8", "int16", "uint16", "int32", "int64", "float64", "bool", "uuid", "string", "bytes"}
)


class _Null:
    """Kafka's `"default": "null"` (a field's default is null, not the type's zero value)."""

    _instance: _Null | None = None

    def __new__(cls) -> _Null:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NULL"


NULL = _Null()


# Where an underscore goes: before a capital that ends a lowercase run, and between capitals
# when the second starts a word (`ZStdLevel`, `HTTPServer` -> `http_server`). A plain "_"
# replacement (no template) and a memo (half the fields share a name with another: ErrorCode,
# PartitionIndex...) keep loading every declaration cheap.
_WORD_END = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_ACRONYM_END = re.compile(r"(?<=[A-Z])(?=[A-Z][a-z])")


@cache
def snake(name: str) -> str:
    """Kafka field name -> snake_case key (`RebalanceTimeoutMs` -> `rebalance_timeout_ms`)."""
    return _ACRONYM_END.sub("_", _WORD_END.sub("_", name)).lower()


def java_name(name: str) -> str:
    """A field's name as Kafka's generated code spells it in errors (`camelCaseName()`)."""
    return name[:1].lower() + name[1:]


@cache  # a few dozen distinct texts recur across all declarations
def parse_versions(spec: str) -> tuple[int, int]:
    """`"0+"`, `"3"`, `"1-2"` -> inclusive (low, high); `"none"` -> an empty range."""
    if spec == "none":
        return NEVER
    if spec.endswith("+"):
        return int(spec[:-1]), OPEN
    if "-" in spec:
        lo, hi = spec.split("-")
        return int(lo), int(hi)
    return int(spec), int(spec)


def in_range(bounds: tuple[int, int] | None, version: int) -> bool:
    return bounds is not None and bounds[0] <= version <= bounds[1]


# eq=False: tables are compared and hashed by identity, which keeps lookups keyed on them
# (kgroup.offsets.layouts' tables of generated readers and writers by struct and version)
# cheap (a field-by-field hash of a nested table costs more than decoding it). Not frozen,
# though nothing assigns to a declaration: a kgroup run loads a few hundred of these
# objects, and a frozen dataclass's per-field object.__setattr__ in __init__ and its
# generated __setattr__/__delattr__ cost ~1.5% of a single-group describe.
@dataclass(eq=False)
class Struct:
    """A struct type: its name and its fields in wire order. A message's own struct carries the
    message's `path` (its declaration file, by which kgroup.offsets.layouts finds the generated
    readers and writers); nested structs and structs built in code have none."""

    name: str
    fields: tuple[Field, ...]
    path: str = ""


@dataclass(eq=False)
class Array:
    """An array of a primitive type name or of a Struct (`[]int32`, `[]Partition`)."""

    of: str | Struct


FieldType = str | Array | Struct


@dataclass(eq=False)
class Field:
    """One field as Kafka's JSON declares it.

    `versions`, `nullable` (nullableVersions), `tagged` (taggedVersions) and `flexible` (a
    field-level flexibleVersions override, only RequestHeader.ClientId uses it) are inclusive
    ranges. `default` None means the type's zero value; `NULL` means null.
    """

    name: str
    type: FieldType
    versions: tuple[int, int]
    nullable: tuple[int, int] | None = None
    tag: int | None = None
    default: object = None
    note: str = ""
    key: str = ""
    tagged: tuple[int, int] | None = None
    ignorable: bool = False
    flexible: tuple[int, int] | None = None

    def present(self, version: int) -> bool:
        return self.versions[0] <= version <= self.versions[1]

    def nullable_in(self, version: int) -> bool:
        return self.nullable is not None and self.nullable[0] <= version <= self.nullable[1]

    def tagged_in(self, version: int, flexible: bool) -> bool:
        """Whether the field goes in the tag section at `version` (flexible versions only)."""
        if self.tag is None or not flexible:
            return False
        return self.tagged is None or self.tagged[0] <= version <= self.tagged[1]

    def flexible_in(self, version: int, flexible: bool) -> bool:
        """Compact encoding for this field: the message's flexibility unless overridden."""
        if self.flexible is None:
            return flexible
        return in_range(self.flexible, version)


def f(
    name: str,
    type_: FieldType,
    versions: str = "0+",
    *,
    nullable: str | None = None,
    tag: int | None = None,
    default: object = None,
    note: str = "",
    tagged: str | None = None,
    ignorable: bool = False,
    flexible: str | None = None,
) -> Field:
    """Declare a field the way Kafka's JSON does (`versions`, `nullableVersions`, `tag`,
    `taggedVersions`, `default`, `ignorable`, `flexibleVersions`)."""
    if isinstance(type_, str) and type_ not in PRIMITIVES:
        raise ValueError(f"unknown primitive type {type_!r} for field {name}")
    return Field(
        name=name,
        type=type_,
        versions=parse_versions(versions),
        nullable=parse_versions(nullable) if nullable else None,
        tag=tag,
        default=default,
        note=note,
        key=snake(name),
        tagged=parse_versions(tagged) if tagged else None,
        ignorable=ignorable,
        flexible=parse_versions(flexible) if flexible else None,
    )


def struct(name: str, *fields: Field) -> Struct:
    return Struct(name, tuple(fields))


def arr(of: str | Struct) -> Array:
    return Array(of)


@dataclass(eq=False)
class Message:
    """A versioned message: valid version range and the first flexible version (None = never).

    `api_key` and `kind` ("request", "response", "header", "data") are informative; `path` is
    the declaration file it was generated from (`coordinator/OffsetCommitValue`, "" when built
    in code).
    """

    name: str
    valid: tuple[int, int]
    flexible_from: int | None
    fields: tuple[Field, ...]
    note: str = ""
    api_key: int | None = None
    kind: str = "data"
    path: str = ""

    def flexible(self, version: int) -> bool:
        return self.flexible_from is not None and version >= self.flexible_from

    def supports(self, version: int) -> bool:
        return self.valid[0] <= version <= self.valid[1]

    @cached_property
    def struct(self) -> Struct:
        return Struct(self.name, self.fields, self.path)


def message(
    name: str,
    valid: str,
    flexible: str | None,
    *fields: Field,
    note: str = "",
    api_key: int | None = None,
    kind: str = "data",
) -> Message:
    """Declare a message (`validVersions`, `flexibleVersions`; None or "none": never flexible)."""
    flexible_from = None
    if flexible and flexible != "none":
        flexible_from = parse_versions(flexible)[0]
    return Message(
        name=name,
        valid=parse_versions(valid),
        flexible_from=flexible_from,
        fields=tuple(fields),
        note=note,
        api_key=api_key,
        kind=kind,
    )


@dataclass(eq=False)
class Api:
    """One wire API: its key, its valid versions, where flexible versions start and the
    versions kgroup speaks (`versions`, within the valid ones; the wire client negotiates among
    them). `request` and `response`, the declarations (generated Python, no JSON), are built on
    first use only: the wire client needs none of them (kgroup.protocol.generated.apis gives the
    rest)."""

    key: int
    name: str
    valid: tuple[int, int]
    flexible_from: int | None
    versions: tuple[int, ...]
    note: str = ""

    def __post_init__(self) -> None:
        for version in self.versions:
            if not self.valid[0] <= version <= self.valid[1]:
                raise ValueError(f"{self.name} does not declare v{version}")

    @cached_property
    def request(self) -> Message:
        """The request declaration (`wire/<name>Request`)."""
        from kgroup.protocol.declarations import declaration

        return declaration(f"wire/{self.name}Request")

    @cached_property
    def response(self) -> Message:
        """The response declaration (`wire/<name>Response`)."""
        from kgroup.protocol.declarations import declaration

        return declaration(f"wire/{self.name}Response")

    def flexible(self, version: int) -> bool:
        return self.flexible_from is not None and version >= self.flexible_from

    def request_header_version(self, version: int) -> int:
        """RequestHeader v2 in flexible versions, else v1 (ApiMessageType.requestHeaderVersion)."""
        return 2 if self.flexible(version) else 1

    def response_header_version(self, version: int) -> int:
        """ResponseHeader v1 in flexible versions, else v0; ApiVersionsResponse always uses v0
        so that any client can read its error (ApiMessageType.responseHeaderVersion)."""
        if self.key == 18:
            return 0
        return 1 if self.flexible(version) else 0
