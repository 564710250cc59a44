"""The generated readers make their objects without `__init__` (issue #29: `object.__new__`
and each slot's descriptor `__set__`, about half the cost a field); the objects stay the
constructor's: equal, hashed, printed alike, and immutable to users."""

from __future__ import annotations

import inspect

import pytest

from kgroup.protocol import generated
from kgroup.protocol.generated.wire import offset_fetch_response as ofr
from kgroup.protocol.runtime import Struct


def _v8_response() -> ofr.OffsetFetchResponse:
    partitions = tuple(
        ofr.OffsetFetchResponsePartitions(p, 100 + p, 3, "meta" if p else None, 0) for p in range(3)
    )
    topics = (ofr.OffsetFetchResponseTopics("orders", partitions),)
    return ofr.OffsetFetchResponse(
        throttle_time_ms=5, groups=(ofr.OffsetFetchResponseGroup("g1", topics, 0),)
    )


def test_a_read_response_is_made_without_init_and_equals_the_constructed_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = _v8_response()
    wire = ofr.write(built, 8)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a reader ran __init__")

    for cls in (ofr.OffsetFetchResponsePartitions, ofr.OffsetFetchResponseTopics):
        monkeypatch.setattr(cls, "__init__", refuse)
    read = ofr.read(wire, 8)
    monkeypatch.undo()
    assert read == built and hash(read) == hash(built) and repr(read) == repr(built)
    partition = read.groups[0].topics[0].partitions[1]
    assert (partition.partition_index, partition.committed_offset, partition.metadata) == (
        1,
        101,
        "meta",
    )
    with pytest.raises(AttributeError, match="immutable"):
        partition.committed_offset = 7  # type: ignore[misc]


def test_every_generated_class_has_a_setter_per_field_in_fields_order() -> None:
    classes = [
        cls
        for module in _generated_modules()
        for cls in vars(module).values()
        if inspect.isclass(cls) and issubclass(cls, Struct) and cls.__module__ == module.__name__
    ]
    assert len(classes) > 100
    for cls in classes:
        assert len(cls._setters) == len(cls._fields), cls
        obj = object.__new__(cls)
        for setter, name in zip(cls._setters, cls._fields, strict=True):
            setter(obj, name)
        assert all(getattr(obj, name) == name for name in cls._fields), cls


def _generated_modules() -> list:
    import importlib
    import pkgutil

    found = []
    for info in pkgutil.walk_packages(generated.__path__, generated.__name__ + "."):
        found.append(importlib.import_module(info.name))
    return found
