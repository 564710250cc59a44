"""kgroup.protocol.generated: committed, current, and writing what it reads.

The modules are generated from the declarations by scripts/gen_protocol.py; this test fails
when regenerating would change one (as test_generated_docs.py does for the docs). Then, for
every declaration and every version, random values (drawn from the declaration, unknown tags
included) written by the generated `write` are read back by the generated `read` unchanged,
and the bytes are the tests' dict codec's for the same values (tests/unit/protocol/dict_codec.py,
an independent implementation of the same rules).
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.protocol.errors import ProtocolError, ProtocolWriteError
from kgroup.protocol.model import Array, Message, Struct, snake
from scripts import gen_protocol
from scripts.definitions import load
from tests.unit.protocol import dict_codec as dicts
from tests.unit.protocol.strategies import message_values

PATHS = gen_protocol.declarations()
CASES = [(path, v) for path in PATHS for v in range(load(path).valid[0], load(path).valid[1] + 1)]


def test_generated_files_are_current() -> None:
    stale = gen_protocol.stale(gen_protocol.formatted())
    assert not stale, f"run `python scripts/gen_protocol.py`: {stale}"


def test_a_changed_declaration_makes_the_check_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    files = gen_protocol.formatted()
    target = gen_protocol.module_path("wire/FetchRequest")
    monkeypatch.setitem(files, target, files[target] + "# hand edit\n")
    assert target in gen_protocol.stale(files)


def module(path: str) -> Any:
    return importlib.import_module(
        "kgroup.protocol.generated."
        + ".".join(p.replace("-", "_").replace(".", "_") for p in path.split("/")[:-1])
        + "."
        + snake(path.rsplit("/", 1)[1])
    )


def to_object(mod: Any, st_: Struct, values: dict[str, Any]) -> Any:
    """A codec dict as the generated dataclass (`_tag<N>` keys as unknown tags)."""
    kwargs: dict[str, Any] = {}
    by_key = {fd.key: fd for fd in st_.fields}
    unknown = []
    for key, value in values.items():
        if key.startswith("_tag"):
            unknown.append((int(key[4:]), value))
            continue
        kwargs[key] = _convert(mod, by_key[key].type, value)
    if unknown:
        kwargs["unknown_tags"] = tuple(sorted(unknown))
    return getattr(mod, st_.name)(**kwargs)


def _convert(mod: Any, typ: Any, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(typ, Struct):
        return to_object(mod, typ, value)
    if isinstance(typ, Array):
        return tuple(_convert(mod, typ.of, x) for x in value)
    return value


@pytest.mark.parametrize(("path", "version"), CASES, ids=[f"{p}-v{v}" for p, v in CASES])
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_write_then_read_round_trips_and_matches_the_codec(
    path: str, version: int, data: st.DataObject
) -> None:
    msg: Message = load(path)
    mod = module(path)
    values = data.draw(message_values(msg, version, unknown_tags=True))
    obj = to_object(mod, msg.struct, values)
    try:
        raw = mod.write(obj, version)
    except ProtocolWriteError:
        with pytest.raises(ProtocolWriteError):
            dicts.encode(msg, version, values)
        return
    assert raw == dicts.encode(msg, version, values)
    assert mod.read(raw, version) == obj


@pytest.mark.parametrize("path", ["wire/FetchRequest", "coordinator/OffsetCommitValue"])
def test_a_version_outside_the_declaration_is_refused(path: str) -> None:
    mod = module(path)
    with pytest.raises(ProtocolError, match="has no version 99"):
        mod.read(b"", 99)
    with pytest.raises(ProtocolWriteError, match="has no version 99"):
        mod.write(getattr(mod, mod.NAME)(), 99)


def test_trailing_bytes_and_truncation_are_errors_naming_the_field() -> None:
    mod = module("coordinator/OffsetCommitValue")
    raw = mod.write(mod.OffsetCommitValue(offset=5, metadata="m"), 3)
    assert mod.read(raw, 3).offset == 5
    with pytest.raises(ProtocolError, match="trailing"):
        mod.read(raw + b"\x00", 3)
    with pytest.raises(ProtocolError, match="reading commitTimestamp"):
        mod.read(raw[:-3], 3)


def test_messages_are_immutable_values() -> None:
    mod = module("coordinator/OffsetCommitValue")
    a = mod.OffsetCommitValue(offset=5, metadata="m")
    assert a == mod.OffsetCommitValue(offset=5, metadata="m") != mod.OffsetCommitValue(offset=6)
    assert hash(a) == hash(mod.OffsetCommitValue(offset=5, metadata="m"))
    assert repr(a).startswith("OffsetCommitValue(offset=5, leader_epoch=-1, metadata='m'")
    with pytest.raises(AttributeError, match="immutable"):
        a.offset = 6  # type: ignore[misc]
