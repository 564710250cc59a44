"""Hypothesis strategies that draw a message's values from its declaration (any version)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from kgroup.protocol.model import Array, Field, Message, Struct

_INTS = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


def _primitive(name: str) -> st.SearchStrategy[Any]:
    if name in _INTS:
        return st.integers(*_INTS[name])
    if name == "bool":
        return st.booleans()
    if name == "uuid":
        return st.binary(min_size=16, max_size=16)
    if name == "string":
        return TEXT
    if name == "bytes":
        return st.binary(max_size=12)
    if name == "float64":
        return st.floats(allow_nan=False)
    raise ValueError(name)


def _type(typ: Any, version: int, flexible: bool) -> st.SearchStrategy[Any]:
    if isinstance(typ, str):
        return _primitive(typ)
    if isinstance(typ, Array):
        return st.lists(_type(typ.of, version, flexible), max_size=3)
    if isinstance(typ, Struct):
        return struct_values(typ, version, flexible)
    raise TypeError(typ)


def _field(fd: Field, version: int, flexible: bool) -> st.SearchStrategy[Any]:
    base = _type(fd.type, version, flexible)
    return st.none() | base if fd.nullable_in(version) else base


def struct_values(
    struct: Struct, version: int, flexible: bool, *, unknown_tags: bool = False
) -> st.SearchStrategy[dict[str, Any]]:
    """Every field present at `version`, drawn at random (tagged ones too)."""
    fields = {fd.key: _field(fd, version, flexible) for fd in struct.fields if fd.present(version)}
    strategy = st.fixed_dictionaries(fields)
    if unknown_tags and flexible:
        known = {fd.tag for fd in struct.fields if fd.tag is not None}
        tags = st.dictionaries(
            st.integers(0, 300).filter(lambda t: t not in known).map(lambda t: f"_tag{t}"),
            st.binary(max_size=4),
            max_size=2,
        )
        strategy = st.tuples(strategy, tags).map(lambda pair: {**pair[0], **pair[1]})
    return strategy


def message_values(
    msg: Message, version: int, *, unknown_tags: bool = False
) -> st.SearchStrategy[dict[str, Any]]:
    return struct_values(msg.struct, version, msg.flexible(version), unknown_tags=unknown_tags)


def present_only(struct: Struct, version: int, values: dict[str, Any]) -> dict[str, Any]:
    """`values` without the defaults of fields absent at `version` (recursively)."""
    out: dict[str, Any] = {}
    by_key = {fd.key: fd for fd in struct.fields}
    for key, value in values.items():
        fd = by_key.get(key)
        if fd is None:
            out[key] = value  # _tag<N>, _trailing
            continue
        if not fd.present(version):
            continue
        out[key] = _present_value(fd.type, version, value)
    return out


def _present_value(typ: Any, version: int, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(typ, Struct):
        return present_only(typ, version, value)
    if isinstance(typ, Array) and isinstance(typ.of, Struct):
        return [present_only(typ.of, version, item) for item in value]
    return value
