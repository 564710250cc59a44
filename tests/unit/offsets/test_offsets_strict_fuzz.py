"""Bounded, seeded fuzz campaign of issue #13 (the one that found 961 lenient decodes in 54k).

Mutations of real fixture records and of generated ones (every record type and version) are
decoded with and without the compiled extension. Asserted for every input: no crash; C and
Python give the same JSON line; and the record is a decoded value exactly when a reference
reader with Kafka's rules accepts it (`_Oracle`, written here from `MessageDataGenerator`
and `ConsumerProtocol`, sharing no code with codec.py). kgroup's documented deviations, which
the oracle follows too: a known tagged field must fill its declared size, a key must have no
trailing bytes, strings must be valid UTF-8, a value of a newer flexible version is read with
the newest layout, and an older layout (`alternates`) that parses exactly is accepted.
"""

from __future__ import annotations

import io
import random
import struct
from pathlib import Path
from typing import Any

import pytest

from kgroup.offsets import decode as dec
from kgroup.offsets import layouts, native, schema
from kgroup.offsets import segments as seg
from kgroup.offsets.schema import RECORD_TYPES, Array, Message, Struct
from tests.unit.offsets.test_offsets_speedups import compiled

FIXTURES = Path("/work/shared/fixtures/consumer-offsets-segments")
SEED = 13
MUTATIONS = 20_000


class Reject(Exception):
    """What Kafka's generated reader would throw on."""


class _Oracle:
    """A reader over one buffer with the rules of Kafka's generated `read` methods."""

    def __init__(self, buf: bytes, pos: int = 0, end: int | None = None) -> None:
        self.b, self.p, self.e = buf, pos, len(buf) if end is None else end

    def take(self, n: int) -> bytes:
        if n < 0 or self.p + n > self.e:
            raise Reject("buffer underflow")
        out = self.b[self.p : self.p + n]
        self.p += n
        return out

    def int(self, size: int) -> int:
        return int.from_bytes(self.take(size), "big", signed=True)

    def uvarint(self) -> int:
        """`ByteUtils.readUnsignedVarint` as a Java int."""
        value = 0
        for i in range(5):
            byte = self.take(1)[0]
            value |= (byte & 0x7F) << (7 * i)
            if byte < 0x80:
                value &= 0xFFFFFFFF
                return value - (1 << 32) if value >= 1 << 31 else value
        raise Reject("varint too long")

    def length(self, flexible: bool, size: int) -> int:
        if flexible:
            n = self.uvarint() - 1
            return n + (1 << 32) if n < -(1 << 31) else n
        return self.int(size)

    def field(self, typ: Any, flexible: bool, nullable: bool, tagged: bool) -> None:
        if isinstance(typ, Struct):
            if nullable:
                null = self.uvarint() <= 0 if tagged else self.int(1) < 0
                if null:
                    return
            self.struct(typ, flexible)
            return
        if isinstance(typ, Array):
            n = self.length(flexible, 4)
            if n < 0:
                if not nullable:
                    raise Reject("non-nullable array null")
                return
            if n > self.e - self.p:
                raise Reject("collection too large")
            for _ in range(n):
                self.field(typ.of, flexible, False, False)
            return
        sizes = {"int8": 1, "bool": 1, "int16": 2, "uint16": 2, "int32": 4, "int64": 8}
        sizes.update({"float64": 8, "uuid": 16})
        if typ in sizes:
            self.take(sizes[typ])
            return
        n = self.length(flexible, 2 if typ == "string" else 4)
        if n < 0:
            if not nullable:
                raise Reject("non-nullable field null")
            return
        if typ == "string" and n > 0x7FFF:
            raise Reject("invalid string length")
        data = self.take(n)
        if typ == "string":
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise Reject("invalid UTF-8 (kgroup)") from exc

    def struct(self, typ: Struct, flexible: bool) -> None:
        known = {}
        for fd in typ.fields:
            if not fd.present(self.version):
                continue
            if fd.tag is not None and flexible:
                known[fd.tag] = fd
                continue
            self.field(fd.type, flexible, fd.nullable_in(self.version), False)
        if not flexible:
            return
        for _ in range(self.uvarint()):
            tag, size = self.uvarint(), self.uvarint()
            end = self.p + size
            if size < 0 or end > self.e:
                raise Reject("tagged field past the end")
            fd = known.get(tag)
            if fd is not None:
                inner = _Oracle(self.b, self.p, end)
                inner.version = self.version
                inner.field(fd.type, True, fd.nullable_in(self.version), True)
                if inner.p != end:
                    raise Reject("tagged field size (kgroup)")
            self.p = end

    def message(self, msg: Message, version: int, exact: bool) -> None:
        self.version = version
        self.struct(msg.struct, msg.flexible(version))
        if exact and self.p != self.e:
            raise Reject("trailing bytes (kgroup)")


def _accepts(msg: Message, version: int, buf: bytes, pos: int, exact: bool) -> bool:
    try:
        _Oracle(buf, pos).message(msg, version, exact)
    except Reject:
        return False
    return True


def oracle_key(key: bytes) -> schema.RecordType | None:
    if len(key) < 2:
        return None
    rt = RECORD_TYPES.get(struct.unpack_from(">h", key)[0])
    if rt is None or not _accepts(rt.key, 0, key, 2, exact=True):
        return None
    return rt


def oracle_value(rt: schema.RecordType, value: bytes) -> bool:
    if len(value) < 2:
        return False
    version = struct.unpack_from(">h", value)[0]
    lo, hi = rt.value.valid
    if version < lo or (version > hi and not rt.value.flexible(hi)):
        return False
    version = min(version, hi)
    if _accepts(rt.value, version, value, 2, exact=False):
        return True
    return any(
        alt.valid[0] <= version <= alt.valid[1] and _accepts(alt, version, value, 2, exact=True)
        for _label, alt in rt.alternates
    )


def oracle_embedded(msg: Message, data: bytes) -> bool:
    """`ConsumerProtocol.deserialize*`: version >= 0, newest layout for newer versions."""
    if len(data) < 2:
        return False
    version = struct.unpack_from(">h", data)[0]
    return version >= 0 and _accepts(msg, min(version, msg.valid[1]), data, 2, exact=False)


# ---------------------------------------------------------------- inputs


def _random_value(rnd: random.Random, typ: Any, version: int, nullable: bool) -> Any:
    if nullable and rnd.random() < 0.2:
        return None
    if isinstance(typ, Struct):
        return _random_struct(rnd, typ, version)
    if isinstance(typ, Array):
        return [_random_value(rnd, typ.of, version, False) for _ in range(rnd.randint(0, 2))]
    if typ == "string":
        return rnd.choice(["", "g", "topic-\u00e9", "consumer", "range", "sticky"])
    if typ == "bytes":
        return bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 6)))
    if typ == "uuid":
        return "AAECAwQFBgcICQoLDA0ODw"
    if typ == "bool":
        return rnd.random() < 0.5
    bits = {"int8": 7, "int16": 15, "uint16": 15, "int32": 31, "int64": 40}[typ]
    return rnd.randint(0, 2**bits - 1)


def _random_struct(rnd: random.Random, typ: Struct, version: int) -> dict[str, Any]:
    out = {}
    for fd in typ.fields:
        if fd.present(version) and (fd.tag is None or rnd.random() < 0.5):
            out[fd.key] = _random_value(rnd, fd.type, version, fd.nullable_in(version))
    return out


def _member_bytes(rnd: random.Random, msg: Message) -> bytes:
    version = rnd.randint(0, msg.valid[1])
    fields = _random_struct(rnd, msg.struct, version)
    return struct.pack(">h", version) + layouts.encode_message(msg, version, fields)


def _generated(rnd: random.Random) -> tuple[bytes, bytes]:
    type_id = rnd.choice(sorted(RECORD_TYPES))
    rt = RECORD_TYPES[type_id]
    key = struct.pack(">h", type_id) + layouts.encode_message(
        rt.key, 0, _random_struct(rnd, rt.key.struct, 0)
    )
    version = rnd.randint(*rt.value.valid)
    fields = _random_struct(rnd, rt.value.struct, version)
    if type_id == 2:
        fields["protocol_type"] = "consumer"
        for m in fields.get("members") or []:
            m["subscription"] = _member_bytes(rnd, schema.CONSUMER_PROTOCOL_SUBSCRIPTION)
            m["assignment"] = _member_bytes(rnd, schema.CONSUMER_PROTOCOL_ASSIGNMENT)
    value = struct.pack(">h", version) + layouts.encode_message(rt.value, version, fields)
    return key, value


def _fixture_records() -> list[tuple[bytes, bytes]]:
    """(key, value) of every non-control fixture record with both."""
    out = []
    for log in sorted(FIXTURES.rglob("*.log")):
        for batch in seg.read_batches(io.BytesIO(log.read_bytes()).read, log.name):
            if isinstance(batch, seg.Problem) or batch.control:
                continue
            for _o, _t, key, value, _h in batch.records():
                if key is not None and value is not None:
                    out.append((key, value))
    return out


def _mutate(rnd: random.Random, raw: bytes) -> bytes:
    b = bytearray(raw)
    for _ in range(rnd.randint(1, 3)):
        if not b:
            break
        where = rnd.randrange(len(b))
        kind = rnd.randrange(6)
        if kind == 0:
            b[where] ^= 1 << rnd.randrange(8)
        elif kind == 1:
            b[where : where + 2] = b"\xff\xff"  # an int16 length -1: null
        elif kind == 2:
            b[where : where + 4] = b"\xff\xff\xff\xff"  # an int32 length/count -1
        elif kind == 3:
            b[where] = 0  # a compact null / empty, or a tag count of 0
        elif kind == 4:
            del b[where:]  # cut short
        else:
            b.insert(where, rnd.getrandbits(8))  # one byte too many
    return bytes(b)


def _corpus() -> list[tuple[bytes, bytes]]:
    rnd = random.Random(SEED)
    bases = _fixture_records()
    bases += [_generated(rnd) for _ in range(600)]
    out = []
    for i in range(MUTATIONS):
        key, value = bases[i % len(bases)]
        which = rnd.random()
        if which < 0.15:
            key = _mutate(rnd, key)
        elif which < 0.95:
            value = _mutate(rnd, value)
        out.append((key, value))
    return out


# ---------------------------------------------------------------- the campaign


def _decode_all(corpus: list[tuple[bytes, bytes]], use_c: bool) -> list[dec.DecodedRecord]:
    with compiled(use_c):
        return [dec.decode_kv(k, v) for k, v in corpus]


def _check_embedded(rec: dec.DecodedRecord, raw_value: bytes) -> int:
    """Each consumer member's bytes are decoded exactly when Kafka's ConsumerProtocol reads
    them; returns how many were rejected."""
    value = rec.value
    rejected = 0
    if rec.key_type != 2 or value is None or value.get("protocol_type") != "consumer":
        return 0
    for m, raw in zip(value.get("members") or [], _raw_members(raw_value), strict=True):
        for name, msg in (
            ("subscription", schema.CONSUMER_PROTOCOL_SUBSCRIPTION),
            ("assignment", schema.CONSUMER_PROTOCOL_ASSIGNMENT),
        ):
            data, got = raw[name], m[name]
            if not data:
                continue
            ok = oracle_embedded(msg, data)
            rejected += not ok
            assert ("raw_base64" not in got) == ok, (name, data, got)
    return rejected


def _raw_members(value: bytes) -> list[dict[str, bytes]]:
    """The members' subscription/assignment bytes, by the pure-Python reader of the tables."""
    with compiled(False):
        version = struct.unpack_from(">h", value)[0]
        hi = RECORD_TYPES[2].value.valid[1]
        fields, _pos = layouts.read_message(RECORD_TYPES[2].value, min(version, hi), value, 2)
    return fields.get("members") or []


@pytest.mark.skipif(not native.available(), reason="C extension not built")
def test_fuzz_campaign_strict_and_c_equals_python() -> None:
    corpus = _corpus()
    fast = _decode_all(corpus, True)
    pure = _decode_all(corpus, False)
    rejected = accepted = embedded_rejected = 0
    for (key, value), c_rec, py_rec in zip(corpus, fast, pure, strict=True):
        assert c_rec.to_json() == py_rec.to_json(), (key, value)
        rt = oracle_key(key)
        if rt is None:
            assert py_rec.record_type == dec.UNKNOWN and py_rec.key is None, (key, value)
            rejected += 1
            continue
        ok = oracle_value(rt, value)
        got_value = py_rec.record_type != dec.UNKNOWN and py_rec.value is not None
        assert got_value == ok, (key, value, py_rec.to_dict())
        accepted += ok
        rejected += not ok
        if ok:
            embedded_rejected += _check_embedded(py_rec, value)
    # the campaign reaches both sides of every rule
    assert accepted > 2_000 and rejected > 2_000 and embedded_rejected > 50
