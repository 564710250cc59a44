"""The scripted brokers' messages as plain values: a request read with its generated class
(`kgroup.protocol.generated.wire`) given as nested dicts and lists, and a response written from
such values, as the fakes' scenarios spell them (snake_case keys, absent fields at their
declared defaults, tagged fields the classes do not know left out when there are none).

Test tooling only: kgroup itself reads and writes the generated classes.
"""

from __future__ import annotations

import re
import sys
from importlib import import_module
from types import ModuleType
from typing import Any

from kgroup.protocol.model import Api, snake
from kgroup.protocol.runtime import Readable, Struct

_NESTED = re.compile(r"^(?:tuple\[(\w+), \.\.\.\]|(\w+))(?: \| None)?$")


def modules(api: Api) -> tuple[ModuleType, ModuleType]:
    """The generated request and response modules of `api`."""
    base = f"kgroup.protocol.generated.wire.{snake(api.name)}"
    return import_module(f"{base}_request"), import_module(f"{base}_response")


def as_values(value: Any) -> Any:
    """A generated message (or part of one) as dicts, lists and plain values."""
    if isinstance(value, Struct):
        return {
            name: as_values(getattr(value, name))
            for name in value._fields
            if name != "unknown_tags" or getattr(value, name)
        }
    if isinstance(value, tuple):
        return [as_values(item) for item in value]
    return value


def from_values(cls: type[Struct], values: dict[str, Any]) -> Struct:
    """`values` (as `as_values` gives them; absent keys: the declared defaults) as `cls`."""
    module = sys.modules[cls.__module__]
    fields: dict[str, Any] = {}
    for name, value in values.items():
        if name not in cls._fields:
            raise KeyError(f"{cls.__name__} has no field {name}")
        match = _NESTED.match(cls.__annotations__[name])
        nested = getattr(module, (match.group(1) or match.group(2)) if match else "", None)
        if value is None or not (isinstance(nested, type) and issubclass(nested, Struct)):
            fields[name] = tuple(value) if isinstance(value, list) else value
        elif match and match.group(1):
            fields[name] = tuple(from_values(nested, item) for item in value)
        else:
            fields[name] = from_values(nested, value)
    return cls(**fields)


def read_request(api: Api, version: int, body: bytes) -> dict[str, Any]:
    """A request body (exactly one message) as values."""
    requests, _ = modules(api)
    return as_values(requests.read(body, version))


def read_response(api: Api, version: int, body: bytes) -> dict[str, Any]:
    """A response body as values (bytes after it ignored, as Kafka's clients do)."""
    _, responses = modules(api)
    return as_values(responses.read_from(Readable(body), version))


def write_response(api: Api, version: int, values: dict[str, Any]) -> bytes:
    """`values` written as `api`'s response v`version`."""
    _, responses = modules(api)
    return responses.write(from_values(getattr(responses, responses.NAME), values), version)
