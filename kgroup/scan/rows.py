"""Decoded records as flat rows: the Arrow/Spark schema both scan engines share.

Source of truth: CLI.md "decode output records" (the JSON object of one record, which
`DecodedRecord.to_dict` builds); this module flattens it into columns and back, losslessly:
`row_to_record(record_row(rec))` renders the same JSON as `rec`. README.md "Spark engine"
documents the columns.

Pure: no I/O. pyarrow is imported inside the functions that build Arrow data, so the local
engine never needs it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from kgroup.offsets.decode import _SCANNER_SLOTS, DecodedRecord, _dumps, _dumps_bytes

PROBLEM = "problem"  # rows that carry a reading problem instead of a record
OPEN_TRANSACTION = "open_transaction"  # rows that report a transaction without a marker

# (name, Spark SQL type, pyarrow type name). Order is the column order of every output.
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("source", "string", "string"),
    ("log_partition", "int", "int32"),
    ("file_index", "int", "int32"),
    ("position", "bigint", "int64"),
    ("offset", "bigint", "int64"),
    ("timestamp", "bigint", "int64"),
    ("key_type", "int", "int32"),
    ("record_type", "string", "string"),
    ("group", "string", "string"),
    ("topic", "string", "string"),
    ("partition", "int", "int32"),
    ("committed_offset", "bigint", "int64"),
    ("leader_epoch", "int", "int32"),
    ("metadata", "string", "string"),
    ("commit_timestamp", "bigint", "int64"),
    ("expire_timestamp", "bigint", "int64"),
    ("value_version", "int", "int32"),
    ("tombstone", "boolean", "bool_"),
    ("producer_id", "bigint", "int64"),
    ("transactional", "boolean", "bool_"),
    ("control", "boolean", "bool_"),
    ("key_json", "string", "string"),
    ("value_json", "string", "string"),
    ("key_raw_base64", "string", "string"),
    ("value_raw_base64", "string", "string"),
    ("layout", "string", "string"),
    ("error", "string", "string"),
)
NAMES: tuple[str, ...] = tuple(c[0] for c in COLUMNS)
DDL = ", ".join(f"`{name}` {sql}" for name, sql, _ in COLUMNS)

_OFFSET_TYPES = (0, 1)


def arrow_schema() -> Any:
    """The pyarrow schema of a record batch (every column nullable)."""
    import pyarrow as pa

    return pa.schema([pa.field(name, getattr(pa, t)()) for name, _sql, t in COLUMNS])


def _b64(raw: bytes | None) -> str | None:
    return None if raw is None else base64.b64encode(raw).decode("ascii")


_KINDS = {"string": 0, "int32": 1, "int64": 2, "bool_": 3}


def _native_columns() -> Any:
    """A compiled `_arrow_rows.Columns` for COLUMNS, or None when the extension is not built."""
    try:
        from kgroup.scan import _arrow_rows
    except ImportError:  # no compiler at install time: the Python builder does the same
        return None
    from kgroup.offsets.decode import native_value_decoder

    values = native_value_decoder()
    return _arrow_rows.Columns(
        tuple(_KINDS[t] for _n, _s, t in COLUMNS),
        NAMES,
        DecodedRecord,
        _SCANNER_SLOTS,  # the slot order of kgroup/offsets/record_slots.h
        _dumps_bytes,
        _b64,
        None if values is None else values.json,
    )


class RowBuilder:
    """Collect records column by column; `batch()` turns them into one Arrow record batch.

    With the compiled `_arrow_rows` extension (built when a C compiler was there at install)
    the cells go straight into Arrow buffers; `native=False` keeps the Python lists (parity
    tests). Both give the same batches.
    """

    def __init__(self, file_index: int | None = None, *, native: bool = True) -> None:
        self.file_index = file_index
        self._native = _native_columns() if native else None
        self.cols: list[list[Any]] = [[] for _ in COLUMNS]
        self._key_json: dict[tuple[Any, ...], str] = {}

    @property
    def compiled(self) -> bool:
        """True when the cells go through the compiled builder."""
        return self._native is not None

    def __len__(self) -> int:
        if self._native is not None:
            return len(self._native)
        return len(self.cols[0])

    def add_many(self, recs: Sequence[DecodedRecord], *, skip_control: bool = False) -> int:
        """`add` each record (control records left out with `skip_control`); rows added."""
        if self._native is not None:
            return self._native.add_records(recs, self.file_index, skip_control)
        n = 0
        for rec in recs:
            if skip_control and rec.control:
                continue
            self.add(rec)
            n += 1
        return n

    def add(self, rec: DecodedRecord, file_index: int | None = None) -> None:
        if self._native is not None:
            findex = self.file_index if file_index is None else file_index
            self._native.add_records((rec,), findex, False)
            return
        (
            source,
            log_partition,
            findex,
            position,
            offset,
            timestamp,
            key_type,
            record_type,
            group,
            topic,
            partition,
            committed,
            leader_epoch,
            metadata,
            commit_ts,
            expire_ts,
            value_version,
            tombstone,
            producer_id,
            transactional,
            control,
            key_json,
            value_json,
            key_raw,
            value_raw,
            layout,
            error,
        ) = self.cols
        value = rec.value  # decodes a deferred value; record_type/error are final after this
        key = rec.key
        kt = rec.key_type
        source.append(rec.source)
        log_partition.append(rec.partition)
        findex.append(self.file_index if file_index is None else file_index)
        position.append(rec.position)
        offset.append(rec.offset)
        timestamp.append(rec.timestamp)
        key_type.append(kt)
        record_type.append(rec.record_type)
        group.append(rec.group if not rec.control else None)
        if kt in _OFFSET_TYPES and key is not None and not rec.control:
            topic.append(key.get("topic"))
            partition.append(key.get("partition"))
            if value is not None:
                committed.append(value.get("offset"))
                leader_epoch.append(value.get("leader_epoch"))
                metadata.append(value.get("metadata"))
                commit_ts.append(value.get("commit_timestamp"))
                expire_ts.append(value.get("expire_timestamp"))
            else:
                committed.append(None)
                leader_epoch.append(None)
                metadata.append(None)
                commit_ts.append(None)
                expire_ts.append(None)
        else:
            for col in (topic, partition, committed, leader_epoch, metadata, commit_ts, expire_ts):
                col.append(None)
        value_version.append(rec.value_version)
        tombstone.append(rec.tombstone)
        producer_id.append(rec.producer_id)
        transactional.append(rec.transactional)
        control.append(rec.control)
        if key is None:
            key_json.append(None)
        else:
            # the field names too: key types of two topics share numbers (__share_group_state)
            cache_key = (kt, rec.control, *key.items())
            text = self._key_json.get(cache_key)
            if text is None:
                text = _dumps(key)
                if len(self._key_json) < 100_000:
                    self._key_json[cache_key] = text
            key_json.append(text)
        value_json.append(None if value is None else _dumps(value))
        key_raw.append(_b64(rec.key_raw))
        value_raw.append(_b64(rec.value_raw))
        layout.append(rec.layout)
        error.append(rec.error)

    def add_note(
        self,
        record_type: str,
        source: str,
        position: int | None,
        text: str,
        *,
        log_partition: int | None = None,
        producer_id: int = -1,
        count: int | None = None,
    ) -> None:
        """A row that carries a problem or an open transaction instead of a record."""
        row: dict[str, Any] = dict.fromkeys(NAMES)
        row.update(
            source=source,
            log_partition=log_partition,
            file_index=self.file_index,
            position=position,
            record_type=record_type,
            producer_id=producer_id,
            offset=count,
            error=text,
            tombstone=False,
            transactional=False,
            control=False,
        )
        if self._native is not None:
            self._native.add_row(tuple(row[name] for name in NAMES))
            return
        for col, name in zip(self.cols, NAMES, strict=True):
            col.append(row[name])

    def batch(self) -> Any:
        """The collected rows as a pyarrow.RecordBatch; the builder starts empty again."""
        import pyarrow as pa

        schema = arrow_schema()
        if self._native is not None:
            rows, cols = self._native.finish()
            return pa.RecordBatch.from_arrays(
                [
                    pa.Array.from_buffers(
                        field.type,
                        rows,
                        [
                            None if valid is None else pa.py_buffer(valid),
                            *(() if offsets is None else (pa.py_buffer(offsets),)),
                            pa.py_buffer(data),
                        ],
                        null_count=nulls,
                    )
                    for (nulls, valid, data, offsets), field in zip(cols, schema, strict=True)
                ],
                schema=schema,
            )
        arrays = [
            pa.array(col, type=field.type) for col, field in zip(self.cols, schema, strict=True)
        ]
        self.cols = [[] for _ in COLUMNS]
        return pa.RecordBatch.from_arrays(arrays, schema=schema)


def chunk_batches(
    chunks: Iterable[Sequence[DecodedRecord]],
    *,
    file_index: int | None = None,
    skip_control: bool = False,
    rows: int = 8192,
) -> Iterator[Any]:
    """Lists of decoded records -> Arrow record batches of about `rows` rows (a batch ends
    after the list that fills it); control records left out with `skip_control`."""
    builder = RowBuilder(file_index)
    for chunk in chunks:
        builder.add_many(chunk, skip_control=skip_control)
        if len(builder) >= rows:
            yield builder.batch()
    if len(builder):
        yield builder.batch()


def records_to_batch(recs: Iterable[DecodedRecord], file_index: int | None = None) -> Any:
    """Decoded records -> one Arrow record batch with the documented schema."""
    builder = RowBuilder(file_index)
    builder.add_many(list(recs))
    return builder.batch()


def row_to_record(row: dict[str, Any]) -> DecodedRecord:
    """A row (a dict keyed by column name) back to a DecodedRecord that renders identically."""
    rec = DecodedRecord(
        row["source"],
        row["log_partition"],
        row["position"],
        row["offset"],
        row["timestamp"],
        row["producer_id"] if row["producer_id"] is not None else -1,
        -1,
        bool(row["transactional"]),
    )
    rec.control = bool(row["control"])
    rec.key_type = row["key_type"]
    rec.record_type = row["record_type"]
    if row["key_json"] is not None:
        rec.key = json.loads(row["key_json"])
    rec.value_version = row["value_version"]
    if row["value_json"] is not None:
        rec.value = json.loads(row["value_json"])
    if row["key_raw_base64"] is not None:
        rec.key_raw = base64.b64decode(row["key_raw_base64"])
    if row["value_raw_base64"] is not None:
        rec.value_raw = base64.b64decode(row["value_raw_base64"])
    rec.layout = row["layout"]
    rec.error = row["error"]
    return rec


def table_rows(table: Any) -> list[dict[str, Any]]:
    """An Arrow table or record batch as a list of row dicts."""
    return table.to_pylist()


def split_notes(
    rows: Sequence[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """(record rows, problem rows, open-transaction rows)."""
    records, problems, open_txns = [], [], []
    for row in rows:
        kind = row["record_type"]
        if kind == PROBLEM and row["key_type"] is None and row["key_json"] is None:
            problems.append(row)
        elif kind == OPEN_TRANSACTION and row["key_type"] is None and row["key_json"] is None:
            open_txns.append(row)
        else:
            records.append(row)
    return records, problems, open_txns
