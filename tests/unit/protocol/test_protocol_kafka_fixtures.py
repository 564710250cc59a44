"""The generated coordinator modules against segments a real Kafka 4.1 broker wrote.

Outside reference: /work/shared/fixtures/kafka-4.1/ holds `__consumer_offsets` segments and
`expected.jsonl`, Kafka's own decoding of every record (`kafka-dump-log --offsets-decoder`,
Kafka's generated JSON converters: camelCase names, bytes as base64, embedded consumer-protocol
bytes decoded without their version). Every key and value is read by the generated module of its
record type and must print as Kafka printed it.
"""

from __future__ import annotations

import base64
import importlib
import json
import os
import struct
from pathlib import Path
from typing import Any

import pytest

from kgroup.offsets import segments as seg
from kgroup.offsets.schema import RECORD_TYPES
from kgroup.protocol.generated.embedded import (
    consumer_protocol_assignment,
    consumer_protocol_subscription,
)
from kgroup.protocol.model import Array, Struct, snake
from scripts.definitions import load

FIXTURES = Path(__file__).resolve().parents[4] / "shared" / "fixtures" / "kafka-4.1"
if not FIXTURES.is_dir():  # worktrees live beside shared/
    FIXTURES = Path("/work/shared/fixtures/kafka-4.1")

pytestmark = pytest.mark.skipif(not FIXTURES.is_dir(), reason="shared fixtures not present")

CASES = ("every-record-type", "operations")


def _module(path: str) -> Any:
    """`coordinator/OffsetCommitValue` -> its generated module."""
    folder, name = path.rsplit("/", 1)
    return importlib.import_module(f"kgroup.protocol.generated.{folder}.{snake(name)}")


def _records(case: str) -> dict[tuple[str, int], tuple[bytes | None, bytes | None]]:
    out = {}
    for directory in sorted((FIXTURES / case).glob("__consumer_offsets-*")):
        for name in seg.log_files_in_order(os.listdir(directory)):
            with open(directory / name, "rb") as fh:
                for batch in seg.read_batches(fh.read, name):
                    assert not isinstance(batch, seg.Problem), batch.describe()
                    for offset, _ts, key, value, _h in batch.records():
                        out[(directory.name, offset)] = (key, value)
    return out


def _json(obj: Any, typ: Any) -> Any:
    """A generated object of declared type `typ` as Kafka's JSON converter prints it
    (camelCase names, bytes base64, uuids as `Uuid.toString`)."""
    if isinstance(typ, Struct) and obj is not None:
        by_key = {fd.key: fd for fd in typ.fields}
        return {
            _camel(name): _json(getattr(obj, name), by_key[name].type)
            for name in obj._fields
            if name != "unknown_tags"
        }
    if isinstance(typ, Array):
        return None if obj is None else [_json(x, typ.of) for x in obj]
    if typ == "uuid":
        return base64.urlsafe_b64encode(obj).rstrip(b"=").decode()
    if typ == "bytes" and obj is not None:
        return base64.b64encode(obj).decode()
    return obj


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def _embedded(value: dict[str, Any], raw: Any) -> None:
    """GroupMetadataValue members: Kafka prints the consumer-protocol bytes decoded."""
    for member in value.get("members", []):
        for name, module in (
            ("subscription", consumer_protocol_subscription),
            ("assignment", consumer_protocol_assignment),
        ):
            data = base64.b64decode(member[name])
            (version,) = struct.unpack_from(">h", data)
            layout = min(version, module.VALID[1])
            r = module.Readable(data, 2)
            decl = load(f"embedded/{module.NAME}").struct
            member[name] = _json(module.read_from(r, layout), decl)


def _same(ours: Any, kafka: Any, where: str) -> None:
    """Every field Kafka printed, with Kafka's value (names compared case-insensitively: a few
    coordinator files spell a field in lower case where the converter capitalises nothing)."""
    if isinstance(kafka, dict):
        assert isinstance(ours, dict), where
        lowered = {k.lower(): v for k, v in ours.items()}
        for key, value in kafka.items():
            assert key.lower() in lowered, f"{where}.{key} missing from {sorted(ours)}"
            _same(lowered[key.lower()], value, f"{where}.{key}")
    elif isinstance(kafka, list):
        assert isinstance(ours, list) and len(ours) == len(kafka), where
        for i, (a, b) in enumerate(zip(ours, kafka, strict=True)):
            _same(a, b, f"{where}[{i}]")
    else:
        assert ours == kafka, f"{where}: {ours!r} != {kafka!r}"


@pytest.mark.parametrize("case", CASES)
def test_generated_modules_read_every_record_as_kafka_does(case: str) -> None:
    records = _records(case)
    checked = 0
    with open(FIXTURES / case / "expected.jsonl", encoding="utf-8") as fh:
        for line in fh:
            want = json.loads(line)
            if "control" in want:
                continue
            key, value = records[(want["partition_dir"], want["offset"])]
            assert key is not None
            (type_id,) = struct.unpack_from(">h", key)
            assert str(type_id) == want["key"]["type"]
            rt = RECORD_TYPES[type_id]
            where = f"{want['partition_dir']}@{want['offset']}"
            read = _module(rt.key_path).read(key[2:], 0)
            _same(_json(read, rt.key.struct), want["key"]["data"], where)
            if want["value"] is None:
                assert value is None, where
                continue
            assert value is not None
            (version,) = struct.unpack_from(">h", value)
            assert str(version) == want["value"]["version"]
            ours = _json(_module(rt.value_path).read(value[2:], version), rt.value.struct)
            if type_id == 2:
                _embedded(ours, value)
            _same(ours, want["value"]["data"], where)
            checked += 1
    assert checked > 100
