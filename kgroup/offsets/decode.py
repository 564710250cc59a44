"""Coordinator records: key/value bytes -> typed, JSON-ready records.

Source of truth: Kafka's `CoordinatorRecordSerde` / `GroupCoordinatorRecordSerde` (int16 record
type + key struct; int16 value version + value struct; null value = tombstone) and
`EndTransactionMarker` / `ControlRecordType` for control records; the members' embedded
subscriptions and assignments are `kgroup.offsets.embedded`'s. OFFSETS_FORMAT.md §2-3, §6.1;
CLI.md "decode output".

Unknown record types and value versions never raise: the record comes back with
`record_type == "unknown"` (or the layout it was guessed from) and its raw bytes.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import Any

from kgroup.offsets import layouts, native, schema
from kgroup.offsets.embedded import expand_members
from kgroup.offsets.schema import RECORD_TYPES, Message, RecordType
from kgroup.offsets.wire import INT16, INT32, DecodeError

UNKNOWN = "unknown"
TXN_MARKER = "txn_marker"
CONTROL = "control"


def _resolved(slot: str, doc: str) -> property:
    """A `DecodedRecord` attribute that depends on the value, kept in `slot`: reading it
    decodes a deferred value first; setting it sets the slot."""
    read_slot = attrgetter(slot)

    def get(rec: DecodedRecord) -> Any:
        if rec._pending is not None:
            rec._resolve()
        return read_slot(rec)

    def set_(rec: DecodedRecord, value: Any) -> None:
        setattr(rec, slot, value)

    return property(get, set_, doc=doc)


class DecodedRecord:
    """One record of `__consumer_offsets` with its place in the log and its decoded content.

    The value may be decoded lazily: the scan engine attaches the raw value and its record type
    with `defer_value`, and the first read of `value`, `record_type`, `error` or `layout`
    decodes it. Filters, `--latest` and `--as-of` need only keys, so superseded values are
    never decoded. `key` dicts may be shared between records: treat them as read-only.
    """

    __slots__ = (
        "_error",
        "_layout",
        "_pending",
        "_record_type",
        "_value",
        "_value_version",
        "control",
        "key",
        "key_raw",
        "key_type",
        "offset",
        "partition",
        "position",
        "producer_epoch",
        "producer_id",
        "source",
        "timestamp",
        "transactional",
        "value_raw",
    )

    def __init__(
        self,
        source: str = "",
        partition: int | None = None,
        position: int | None = None,
        offset: int = -1,
        timestamp: int = -1,
        producer_id: int = -1,
        producer_epoch: int = -1,
        transactional: bool = False,
    ) -> None:
        self.source = source
        self.partition = partition
        self.position = position
        self.offset = offset
        self.timestamp = timestamp
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.transactional = transactional
        self.control = False
        self.key_type: int | None = None
        self._record_type = UNKNOWN
        self.key: dict[str, Any] | None = None
        self._value_version: int | None = None
        self._value: dict[str, Any] | None = None
        self._error: str | None = None
        self.key_raw: bytes | None = None
        self.value_raw: bytes | None = None
        self._layout: str | None = None
        self._pending: tuple[RecordType, bytes] | None = None

    # ------------------------------------------------------------ lazy value

    def defer_value(self, rt: RecordType, raw: bytes) -> None:
        """Keep the value bytes of a known record type; decode them on first use."""
        self._record_type = rt.name
        self._pending = (rt, raw)

    def _resolve(self) -> None:
        pending = self._pending
        self._pending = None
        if pending is None:
            return
        rt, raw = pending
        self.keep_value(raw, *decode_value(rt, raw))

    def keep_value(
        self,
        raw: bytes,
        version: int | None,
        fields: dict[str, Any] | None,
        error: str | None,
        layout: str | None,
    ) -> None:
        """Keep what a value decoder made of the bytes `raw`: its version and fields, or, when
        it could not read them, the bytes and the error (the record type becomes unknown)."""
        self._value_version = version
        if fields is None:
            self._record_type = UNKNOWN
            self.value_raw = raw
            self._error = error
        else:
            self._value = fields
            self._layout = layout

    @property
    def value_version(self) -> int | None:
        pending = self._pending
        if pending is not None and self._value_version is None and len(pending[1]) >= 2:
            self._value_version = INT16.unpack_from(pending[1], 0)[0]
        return self._value_version

    @value_version.setter
    def value_version(self, version: int | None) -> None:
        self._value_version = version

    @property
    def value(self) -> dict[str, Any] | None:
        if self._pending is not None:
            self._resolve()
        return self._value

    @value.setter
    def value(self, fields: dict[str, Any] | None) -> None:
        self._pending = None
        self._value = fields

    record_type = _resolved(
        "_record_type", "The record type's name; UNKNOWN when the key or value is not understood."
    )
    error = _resolved("_error", "Why the key or value could not be decoded, or None.")
    layout = _resolved(
        "_layout", 'How the value was read when not as its version says ("read as v3").'
    )

    @property
    def tombstone(self) -> bool:
        return (
            not self.control
            and self._pending is None
            and self._value is None
            and self.value_raw is None
        )

    @property
    def group(self) -> str | None:
        key = self.key
        if key is None:
            return None
        g = key.get("group")
        return g if g is not None else key.get("group_id")

    def to_dict(self) -> dict[str, Any]:
        """The CLI.md "decode output record" object (bytes as base64, uuids base64url)."""
        return self._fields(jsonable)

    def to_json(self) -> str:
        """`to_dict()` as one compact JSON line; bytes become base64 while serialising.

        The compiled `LineWriter` writes the whole line when built (a value still pending, such
        as group metadata, straight from its bytes); it gives the same text as the code below,
        which writes what it leaves (None).
        """
        writer = _NATIVE.get("line", _UNSET)
        if writer is _UNSET:
            writer = _line_writer()
        if writer is not None:
            line = writer(self)
            if line is not None:
                return line
        return self._to_json_py()

    def _to_json_py(self) -> str:
        """`to_json()` in Python (pending values through the compiled ValueDecoder.json)."""
        pending = self._pending
        if pending is not None and self.key_type is not None:
            direct = _direct_value_json(self.key_type, pending[1])
            if direct is not None:
                return _dumps(self._fields(None, direct))
        return _dumps(self._fields(None))

    def _fields(self, convert: Any, direct: tuple[int, Any] | None = None) -> dict[str, Any]:
        # hot for JSON Lines: resolve once, then read the slots (not the properties)
        if direct is None and self._pending is not None:
            self._resolve()
        out: dict[str, Any] = {"source": self.source}
        if self.partition is not None:
            out["partition"] = self.partition
        out["position"] = self.position
        out["offset"] = self.offset
        out["timestamp"] = self.timestamp
        out["producer_id"] = self.producer_id
        out["transactional"] = self.transactional
        out["control"] = self.control
        out["key_type"] = self.key_type
        out["record_type"] = self._record_type
        key = self.key
        if key is not None:
            out["key"] = key if convert is None else convert(key)
        if self.key_raw is not None:
            out["key_raw_base64"] = _b64(self.key_raw)
        if direct is not None:  # decoded without error or layout note
            out["value_version"], out["value"] = direct
            return out
        out["value_version"] = self._value_version
        value = self._value
        out["value"] = value if value is None or convert is None else convert(value)
        if self.value_raw is not None:
            out["value_raw_base64"] = _b64(self.value_raw)
        if self._layout is not None:
            out["layout"] = self._layout
        if self._error is not None:
            out["error"] = self._error
        return out


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def _bytes_default(obj: Any) -> str:
    if isinstance(obj, bytes | bytearray | memoryview):
        return _b64(bytes(obj))
    raise TypeError(f"{type(obj).__name__} is not JSON serialisable")


def _json_dumps() -> tuple[Any, Any]:
    """Compact JSON (UTF-8 kept, bytes as base64) as str and as UTF-8 bytes (str where orjson
    is missing): orjson when installed, else the stdlib.

    Both give the same text for what records hold (str, int, bool, None, lists, dicts; no
    floats are decoded from any table): tests/unit/offsets/test_offsets_speedups.py checks it.
    """
    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson is a dependency; keep working without it
        encode = json.JSONEncoder(
            ensure_ascii=False, separators=(",", ":"), default=_bytes_default
        ).encode
        return encode, encode
    dumps = orjson.dumps

    def _orjson_dumps(obj: Any) -> str:
        return dumps(obj, default=_bytes_default).decode()

    def _orjson_dumps_bytes(obj: Any) -> bytes:
        return dumps(obj, default=_bytes_default)

    return _orjson_dumps, _orjson_dumps_bytes


_dumps, _dumps_bytes = _json_dumps()


def _line_writer() -> Any:
    """The compiled `LineWriter` (rec -> the to_json() text or None), or None (not built,
    switched off); cached in _NATIVE."""
    writer = None
    ext = native.get()
    values = native_value_decoder()
    if ext is not None and values is not None:
        writer = ext.LineWriter(DecodedRecord, _SCANNER_SLOTS, values)
    _NATIVE["line"] = writer
    return writer


def _direct_value_json(type_id: int, raw: bytes) -> tuple[int, Any] | None:
    """(version, the value's JSON as an orjson.Fragment) from the compiled codec, or None
    (no orjson, extension not built or switched off, or a value it leaves to Python)."""
    fn = _NATIVE.get("json", _UNSET)
    if fn is _UNSET:
        fn = None
        values = native_value_decoder()
        try:
            import orjson
        except ImportError:  # pragma: no cover - orjson is a dependency
            orjson = None
        if values is not None and orjson is not None and _dumps.__name__ == "_orjson_dumps":
            vjson = values.json
            fragment = orjson.Fragment

            def fn(type_id: int, raw: bytes) -> tuple[int, Any] | None:
                got = vjson(type_id, raw)
                return None if got is None else (got[0], fragment(got[1]))

        _NATIVE["json"] = fn
    if fn is None or type(raw) is not bytes:
        return None
    return fn(type_id, raw)


def jsonable(obj: Any) -> Any:
    """Dicts/lists with bytes turned into standard base64 strings."""
    if isinstance(obj, dict):
        return {k: jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [jsonable(v) for v in obj]
    if isinstance(obj, bytes | bytearray | memoryview):
        return _b64(bytes(obj))
    return obj


# ------------------------------------- generated readers, by record type, layout and version

_KEY_READERS: dict[int, layouts.Reader] = {}
# by (record type id, earlier layout's label or None, version): each layout its own reader
_VALUE_READERS: dict[tuple[int, str | None, int], layouts.Reader] = {}


def _key_reader(rt: RecordType) -> layouts.Reader:
    fn = _KEY_READERS.get(rt.type_id)
    if fn is None:
        fn = layouts.get_reader(rt.key.struct, 0, False)
        _KEY_READERS[rt.type_id] = fn
    return fn


def _value_reader(
    msg: Message, version: int, type_id: int, label: str | None = None
) -> layouts.Reader:
    cache_key = (type_id, label, version)
    fn = _VALUE_READERS.get(cache_key)
    if fn is None:
        fn = layouts.get_reader(msg.struct, version, msg.flexible(version))
        _VALUE_READERS[cache_key] = fn
    return fn


# ---------------------------------------------------------------- keys and values


KeyResult = tuple[int | None, RecordType | None, dict[str, Any] | None, str | None]


_KEY_CACHE: dict[bytes, KeyResult] = {}
KEY_CACHE_SIZE = 65536


def decode_key(key: bytes) -> KeyResult:
    """(type id, record type, key fields, error). Unknown type or bad bytes -> fields None.

    Keys repeat (a group commits the same partitions again and again), so decoded keys are
    cached by their bytes; the cache is bounded and the returned dicts are shared.
    """
    hit = _KEY_CACHE.get(key)
    if hit is not None:
        return hit
    result = _decode_key(key)
    if len(_KEY_CACHE) >= KEY_CACHE_SIZE:
        _KEY_CACHE.clear()
    _KEY_CACHE[key] = result
    return result


def _decode_key(key: bytes) -> KeyResult:
    if len(key) < 2:
        return None, None, None, "key shorter than its int16 type"
    key_type = INT16.unpack_from(key, 0)[0]
    rt = RECORD_TYPES.get(key_type)
    if rt is None:
        return key_type, None, None, f"unknown record type {key_type}"
    try:
        fields, pos = _key_reader(rt)(key, 2, len(key))
    except DecodeError as exc:
        return key_type, None, None, f"bad {rt.key.name}: {exc.message}"
    except UnicodeDecodeError as exc:
        return key_type, None, None, f"bad {rt.key.name}: invalid UTF-8 ({exc.reason})"
    if pos != len(key):
        return key_type, None, None, f"{len(key) - pos} bytes after the {rt.key.name} fields"
    return key_type, rt, fields, None


ValueResult = tuple[int | None, dict[str, Any] | None, str | None, str | None]


def decode_value(rt: RecordType, value: bytes) -> ValueResult:
    """(value version, fields, error, layout note) for a non-null value of a known type."""
    fast_values = _NATIVE.get("values", _UNSET)
    if fast_values is _UNSET:
        fast_values = _native_values()
    if fast_values is not None and type(value) is bytes:
        got = fast_values(rt.type_id, value)  # C: tables + consumer members, or None
        if got is not None:
            return got[0], got[1], None, None
    end = len(value)
    if end >= 2:
        version = INT16.unpack_from(value, 0)[0]
        fn = _FAST.get(rt.type_id * 65536 + version)
        if fn is not None:
            try:
                fields, pos = fn(value, 2, end)
            except (DecodeError, UnicodeDecodeError):
                pass
            else:
                if pos == end:
                    if rt.type_id == 2:
                        expand_members(fields)
                    return version, fields, None, None
    return _decode_value(rt, value)


_FAST: dict[int, layouts.Reader] = {}


# ---------------------------------------------------------------- compiled paths

_UNSET: Any = object()
_NATIVE: dict[str, Any] = {}
"""The extension's ValueDecoder ("values") and Scanner ("scanner"), built on first use from
the generated programs (kgroup.offsets.generated.programs; None when the extension is not
built or switched off)."""

# DecodedRecord's slots in the order of the S_* enum in record_slots.h, which the compiled
# Scanner fills and scan/_arrow_rows reads; the scanner is not built unless these are exactly
# its slots.
_SCANNER_SLOTS = (
    "source",
    "partition",
    "position",
    "offset",
    "timestamp",
    "producer_id",
    "producer_epoch",
    "transactional",
    "control",
    "key_type",
    "_record_type",
    "key",
    "_value_version",
    "_value",
    "_error",
    "key_raw",
    "value_raw",
    "_layout",
    "_pending",
)
SCANNER_TYPES = (0, 1, 2)
"""Key types the compiled scanner takes; it leaves batches with any other to the Python loop."""


def _native_values() -> Any:
    """`_speedups.ValueDecoder` over every value table and the ConsumerProtocol tables."""
    ext = native.get()
    vd = None
    if ext is not None:
        values: list[Any] = [None] * (max(RECORD_TYPES) + 1)
        for type_id, rt in RECORD_TYPES.items():
            lo, hi = rt.value.valid
            versions: list[Any] = [None] * (hi + 1)
            for version in range(lo, hi + 1):
                flexible = rt.value.flexible(version)
                try:
                    program = layouts.c_program(rt.value.struct, version, flexible)
                except layouts.Unsupported:
                    continue
                versions[version] = (program, flexible)
            values[type_id] = tuple(versions)
        embedded = []
        for msg in (schema.CONSUMER_PROTOCOL_SUBSCRIPTION, schema.CONSUMER_PROTOCOL_ASSIGNMENT):
            lo, hi = msg.valid
            assert lo == 0 and not any(msg.flexible(v) for v in range(hi + 1))
            embedded.append(tuple(layouts.c_program(msg.struct, v, False) for v in range(hi + 1)))
        vd = ext.ValueDecoder(tuple(values), embedded[0], embedded[1])
    _NATIVE["values"] = vd
    return vd


def native_value_decoder() -> Any:
    """The compiled `_speedups.ValueDecoder`, or None (not built, switched off).

    `vd(type_id, raw)` -> (version, fields) and `vd.json(type_id, raw)` -> (version, the
    compact JSON `_dumps(fields)` gives, as bytes), or None where the Python code decides.
    """
    values = _NATIVE.get("values", _UNSET)
    return _native_values() if values is _UNSET else values


def native_scanner() -> Any:
    """The compiled batch scanner (`_speedups.Scanner`), or None (not built, switched off).

    `scanner.scan(buf, p, base, limit, source, partition, since, until, type_ids, groups,
    topics)` takes the run of ordinary batches at buf[p:] (up to about `limit` records) and
    returns (p after them, batches, records read, [DecodedRecord, ...]); scan/local.py reads
    whatever it stops at in Python.
    """
    scanner = _NATIVE.get("scanner", _UNSET)
    if scanner is not _UNSET:
        return scanner
    ext = native.get()
    values = _NATIVE.get("values", _UNSET)
    if values is _UNSET:
        values = _native_values()
    scanner = None
    if (
        ext is not None
        and values is not None
        and set(_SCANNER_SLOTS) == set(DecodedRecord.__slots__)
    ):
        import crc32c

        scanner = ext.Scanner(
            DecodedRecord,
            _SCANNER_SLOTS,
            _KEY_CACHE,
            decode_key,
            crc32c.crc32c,
            tuple(RECORD_TYPES[t].name for t in SCANNER_TYPES),
            values,
            # offset commits are cheap: decoded at once; group values (members) when read
            tuple(t in (0, 1) for t in SCANNER_TYPES),
        )
    _NATIVE["scanner"] = scanner
    return scanner


def _decode_value(rt: RecordType, value: bytes) -> ValueResult:
    if len(value) < 2:
        return None, None, "value shorter than its int16 version", None
    version = INT16.unpack_from(value, 0)[0]
    msg = rt.value
    lo, hi = msg.valid
    layout = None
    if version < lo:
        return version, None, f"unknown {msg.name} version {version}", None
    read_version = version
    if version > hi:
        if not msg.flexible(hi):
            return version, None, f"unknown {msg.name} version {version}", None
        # KIP-915: a newer flexible version only adds tagged fields; read with the newest layout.
        read_version = hi
        layout = f"read as v{hi}"
    end = len(value)
    error = None
    try:
        reader = _value_reader(msg, read_version, rt.type_id)
        if read_version == version:
            _FAST[rt.type_id * 65536 + version] = reader
        fields, pos = reader(value, 2, end)
        if pos == end:
            if rt.type_id == 2:
                expand_members(fields)
            return version, fields, None, layout
        error = f"{end - pos} bytes after the {msg.name} v{read_version} fields"
        partial: dict[str, Any] | None = fields
    except DecodeError as exc:
        error = f"bad {msg.name} v{read_version}: {exc.message}"
        partial = None
    except UnicodeDecodeError as exc:
        error = f"bad {msg.name} v{read_version}: invalid UTF-8 ({exc.reason})"
        partial = None
    earlier = _earlier_layout(rt, read_version, value)
    if earlier is not None:
        return version, earlier[0], None, earlier[1]
    if read_version != version:
        error = f"unknown {msg.name} version {version}; as v{read_version}: {error}"
    if partial is not None:
        # Kafka's readers ignore trailing bytes; keep the fields and say what was left over.
        partial["_trailing"] = bytes(value[pos:])
        if rt.type_id == 2:
            expand_members(partial)
        return version, partial, None, layout
    return version, None, error, None


def _earlier_layout(
    rt: RecordType, version: int, value: bytes
) -> tuple[dict[str, Any], str] | None:
    """`earlier_layout` over `rt`'s earlier layouts, with this module's cached readers."""
    return earlier_layout(
        rt.alternates,
        version,
        value,
        lambda label, alt: _value_reader(alt, version, rt.type_id, label),
    )


def earlier_layout(
    alternates: Iterable[tuple[str, Message]],
    version: int,
    value: bytes,
    reader_for: Callable[[str, Message], layouts.Reader] | None = None,
) -> tuple[dict[str, Any], str] | None:
    """(fields, label) of the first earlier layout that reads the record value `value` (int16
    version, then the struct) exactly at `version`, or None. The one chooser of earlier
    layouts, for `__consumer_offsets` and `__share_group_state` alike.

    A layout is tried only within its own `validVersions`: a frozen file declares what its
    writers wrote, and read at another version its fields would shift. A layout that reads the
    bytes only by taking some as unknown tagged fields (`_tag<N>`) is taken last: earlier
    layouts are frozen Kafka files whose writers wrote no such fields, and unknown tags swallow
    the bytes of another layout's fields (an array element's tag count read from the next
    field's length), so such a read is most likely of another layout. `reader_for(label,
    layout)` gives the reader (default: `layouts.get_reader`)."""
    fallback: tuple[dict[str, Any], str] | None = None
    for label, alt in alternates:
        if not alt.valid[0] <= version <= alt.valid[1]:
            continue
        if reader_for is None:
            reader = layouts.get_reader(alt.struct, version, alt.flexible(version))
        else:
            reader = reader_for(label, alt)
        try:
            fields, pos = reader(value, 2, len(value))
        except (DecodeError, UnicodeDecodeError):
            continue
        if pos != len(value):
            continue
        if not _has_unknown_tags(fields):
            return fields, label
        if fallback is None:
            fallback = (fields, label)
    return fallback


def _has_unknown_tags(value: Any) -> bool:
    """Whether decoded fields hold an unknown tagged field (`_tag<N>`) at any depth."""
    if isinstance(value, dict):
        return any(
            (key.startswith("_tag") and key[4:].isdigit()) or _has_unknown_tags(item)
            for key, item in value.items()
        )
    if isinstance(value, list):
        return any(_has_unknown_tags(item) for item in value)
    return False


def decode_key_into(
    rec: DecodedRecord,
    key: bytes | None,
    value: bytes | None,
    decode_key: Callable[[bytes], tuple[int | None, Any, Any, str | None]],
) -> Any:
    """The start of a coordinator record, as both topics' decoders make it: `rec` gets the
    key's type id, record type and fields, and the record type (`decode_key`'s) is returned;
    None when the record ends there (no key, or a key not understood: key and value kept raw,
    with the error)."""
    if key is None:
        rec.error = "record without a key"
        rec.value_raw = value
        return None
    type_id, rt, fields, error = decode_key(key)
    rec.key_type = type_id
    if rt is None or fields is None:
        rec.record_type = UNKNOWN
        rec.key_raw = key
        rec.error = error
        rec.value_raw = value
        return None
    rec.record_type = rt.name
    rec.key = fields
    return rt


def decode_kv(
    key: bytes | None, value: bytes | None, rec: DecodedRecord | None = None
) -> DecodedRecord:
    """Decode one coordinator record's key and value into `rec` (or a new DecodedRecord)."""
    if rec is None:
        rec = DecodedRecord()
    rt = decode_key_into(rec, key, value, decode_key)
    if rt is None:
        if key is not None and value is not None and len(value) >= 2:
            rec.value_version = INT16.unpack_from(value, 0)[0]  # of a value left raw
        return rec
    if value is not None:
        rec.defer_value(rt, value)
        rec._resolve()  # at once: only the scan engine leaves values for later
    return rec


def decode_control(key: bytes | None, value: bytes | None, rec: DecodedRecord) -> DecodedRecord:
    """A control record: key `version:int16, type:int16`; COMMIT/ABORT value `EndTxnMarker`."""
    rec.control = True
    if key is None or len(key) < 4:
        rec.record_type = CONTROL
        rec.key_raw = key
        rec.value_raw = value
        rec.error = "control record key shorter than 4 bytes"
        return rec
    kversion, ctype = INT16.unpack_from(key, 0)[0], INT16.unpack_from(key, 2)[0]
    name = schema.CONTROL_TYPES.get(ctype, f"UNKNOWN_{ctype}")
    rec.key = {"version": kversion, "type": ctype}
    if ctype in (0, 1):
        rec.record_type = TXN_MARKER
        if value is not None and len(value) >= 6:
            vversion = INT16.unpack_from(value, 0)[0]
            rec.value_version = vversion
            # higher EndTxnMarker versions are read as version 0
            rec.value = {"marker": name, "coordinator_epoch": INT32.unpack_from(value, 2)[0]}
        else:
            rec.value = {"marker": name}
            rec.value_raw = value
            rec.error = "transaction marker value shorter than 6 bytes"
    else:
        rec.record_type = CONTROL
        rec.value = {"marker": name}
        rec.value_raw = value
    return rec


# ---------------------------------------------------------------- topic ids


def resolve_topic_ids(obj: Any, names: dict[str, str]) -> None:
    """Add `topic_name` beside every `topic_id` whose name is known (in place)."""
    if isinstance(obj, dict):
        tid = obj.get("topic_id")
        if tid is not None and "topic_name" not in obj:
            name = names.get(tid)
            if name is not None:
                obj["topic_name"] = name
        for v in obj.values():
            if isinstance(v, dict | list):
                resolve_topic_ids(v, names)
    elif isinstance(obj, list):
        for v in obj:
            if isinstance(v, dict | list):
                resolve_topic_ids(v, names)


def learn_topic_names(rec: DecodedRecord, names: dict[str, str]) -> None:
    """Collect topic id -> name pairs that a record carries (T 4, 9, 15, 18 values)."""
    value = rec.value
    if value is None or rec.key_type not in (4, 9, 15, 18):
        return
    for listing in ("topics", "initializing_topics", "initialized_topics", "deleting_topics"):
        for t in value.get(listing) or ():
            if isinstance(t, dict) and t.get("topic_id") and t.get("topic_name") is not None:
                names[t["topic_id"]] = t["topic_name"]
