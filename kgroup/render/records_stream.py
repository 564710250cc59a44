"""`kgroup decode` record writers that stream: table, CSV, JSON and JSON Lines.

Each writer takes an iterable of `DecodedRecord`s and writes them as they come, holding at most
a bounded window (the table's first rows, a CSV batch or chunk), never the whole input: memory
stays flat whatever the size of the segments (issue #13).

- JSON Lines: `DecodedRecord.to_json()`, one line each (CLI.md "decode output records").
- JSON: one document `{"schema_version": 1, "records": [...], "summary": {...}}`, written
  element by element: the records array streams, one compact record object per line; the keys
  after `records` (the scan summary) are computed once the records are written.
- CSV: the columns of the Parquet/Arrow schema (kgroup/scan/rows.py, minus the engine-internal
  `file_index`), RFC 4180 quoting (every text cell quoted, `""` inside), null as an empty field,
  booleans `true`/`false`; `key_json`/`value_json` hold whole JSON texts, never cut. The rows
  are written in C by `_speedups.CsvWriter` (the same bytes as the Python writer here, which
  writes any record it leaves); no pyarrow.
- Table: column widths chosen from the first rows (SAMPLE_ROWS, or what came in SAMPLE_SECONDS),
  then every row printed as it comes. Key and number cells are never cut (a later, wider one
  pushes its row to the right); on a terminal the free-text columns wrap at their width, as in
  kgroup/render/table.py. A record value shown as JSON is cut at VALUE_MAX characters with `…`.

Untrusted text is escaped through kgroup/render/safe.py (CSV and table; JSON escapes by itself).
"""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any, TextIO

from kgroup.core.errors import KgroupError
from kgroup.render.output import KEY, NUMBER, SCHEMA_VERSION, TEXT, Column
from kgroup.render.safe import csv_safe, json_text_safe, terminal_safe

if TYPE_CHECKING:
    from kgroup.offsets.decode import DecodedRecord

SAMPLE_ROWS = 1000  # the table's widths come from at most this many first rows,
SAMPLE_SECONDS = 0.5  # or from the rows that came in this long (a filter that matches little)
VALUE_MAX = 120  # a JSON value in the table is cut here, with CUT_MARK
CUT_MARK = "…"
CSV_BATCH_ROWS = 8192  # rows per CSV write in Python
CSV_CHUNK_BYTES = 1 << 17  # CSV bytes per write from the compiled writer
_UTF8 = ("utf-8", "utf8")
GAP = "  "

# ------------------------------------------------------------------ JSON Lines and JSON


def write_jsonl(recs: Iterable[DecodedRecord], out: TextIO) -> int:
    """One JSON object per line; returns the number of records written."""
    write = out.write
    n = 0
    for rec in recs:
        write(rec.to_json())
        write("\n")
        n += 1
    return n


def write_json(
    recs: Iterable[DecodedRecord], out: TextIO, tail: Callable[[], dict[str, Any]]
) -> int:
    """`{"schema_version": 1, "records": [...], **tail()}` with the records written one by one
    (compact, one per line) and `tail()` called after the last; returns the records written.

    When reading fails part way (corrupt input, Ctrl-C) the document is still closed: the
    records read so far, `tail()`, and `error` (the one line kgroup prints on stderr), then the
    failure is raised again for its exit code."""
    import json

    write = out.write
    write(f'{{\n  "schema_version": {SCHEMA_VERSION},\n  "records": [')
    n = 0
    failure: BaseException | None = None
    try:
        for rec in recs:
            write(",\n    " if n else "\n    ")
            write(rec.to_json())
            n += 1
    except (KgroupError, KeyboardInterrupt) as exc:
        failure = exc
    write("\n  ]" if n else "]")
    fields = tail()
    if failure is not None:
        fields["error"] = failure_text(failure)
    for key, value in fields.items():
        text = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")
        write(f",\n  {json.dumps(key)}: {json_text_safe(text)}")
    write("\n}\n")
    if failure is not None:
        raise failure
    return n


def failure_text(exc: BaseException) -> str:
    """The `error` of a JSON document cut short: the KgroupError's stderr line, or
    `interrupted` for Ctrl-C."""
    return exc.one_line() if isinstance(exc, KgroupError) else "interrupted"


# ------------------------------------------------------------------ CSV


def csv_columns() -> tuple[str, ...]:
    """The CSV header: the Arrow/Parquet schema's columns without `file_index`."""
    from kgroup.scan.rows import NAMES

    return tuple(name for name in NAMES if name != "file_index")


_JSON_COLUMNS = ("key_json", "value_json")


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _csv_cell(value: Any, json_text: bool = False) -> str:
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    return _quoted(json_text_safe(value) if json_text else csv_safe(value))


def write_csv(recs: Iterable[DecodedRecord], out: TextIO, *, native: bool = True) -> int:
    """The records as CSV rows under a header; returns the records written.

    With the compiled codec (kgroup/offsets/_speedups.c `CsvWriter`) the rows are written in
    C, a record it leaves written here in its place; otherwise (or `native=False`) in Python.
    Both write the same bytes.
    """
    columns = csv_columns()
    out.write(",".join(_quoted(c) for c in columns) + "\n")
    writer = _compiled_csv_writer(out, columns) if native else None
    if writer is None:
        return _write_csv_python(recs, out, columns)
    return writer(recs)


def _batches(recs: Iterable[DecodedRecord], size: int) -> Iterator[list[DecodedRecord]]:
    it = iter(recs)
    while chunk := list(islice(it, size)):
        yield chunk


def _python_rows(columns: Sequence[str]) -> Callable[[Iterable[DecodedRecord]], str]:
    """A function that gives the CSV lines of some records, cells as `_csv_cell` writes them
    from the columns of kgroup/scan/rows.py's RowBuilder."""
    from kgroup.scan.rows import COLUMNS, NAMES, RowBuilder

    builder = RowBuilder(native=False)
    picks = [NAMES.index(c) for c in columns]
    json_at = {NAMES.index(c) for c in _JSON_COLUMNS}

    def rows(recs: Iterable[DecodedRecord]) -> str:
        for rec in recs:
            builder.add(rec)
        cols = builder.cols
        builder.cols = [[] for _ in COLUMNS]
        return "".join(
            ",".join([_csv_cell(row[i], i in json_at) for i in picks]) + "\n"
            for row in zip(*cols, strict=True)
        )

    return rows


def _write_csv_python(recs: Iterable[DecodedRecord], out: TextIO, columns: Sequence[str]) -> int:
    rows = _python_rows(columns)
    n = 0
    for chunk in _batches(recs, CSV_BATCH_ROWS):
        out.write(rows(chunk))
        n += len(chunk)
    return n


def _native_csv_writer() -> Any:
    """The compiled `CsvWriter`, or None (extension not built or switched off)."""
    from kgroup.offsets import native as codec_native
    from kgroup.offsets.decode import _SCANNER_SLOTS, DecodedRecord, native_value_decoder

    ext = codec_native.get()
    values = native_value_decoder()
    if ext is None or values is None:
        return None
    return ext.CsvWriter(DecodedRecord, _SCANNER_SLOTS, values)


def _compiled_csv_writer(
    out: TextIO, columns: Sequence[str]
) -> Callable[[Iterable[DecodedRecord]], int] | None:
    """A writer of CSV rows made in C, CSV_CHUNK_BYTES at a time, or None when the extension
    is missing. The UTF-8 bytes go to the stream's binary buffer when it has one and encodes
    UTF-8; a record the C writer leaves is written by the Python code, in its place."""
    writer = _native_csv_writer()
    if writer is None:
        return None
    fill = writer.fill
    sink = getattr(out, "buffer", None)
    if sink is not None and (getattr(out, "encoding", None) or "").lower() not in _UTF8:
        sink = None

    def write(recs: Iterable[DecodedRecord]) -> int:
        it = iter(recs)
        python_rows = None
        n = 0
        while True:
            data, rows, left = fill(it, CSV_CHUNK_BYTES)
            n += rows
            if data:
                if sink is not None:
                    out.flush()
                    sink.write(data)
                else:
                    out.write(data.decode("utf-8"))
            if left is not None:
                if python_rows is None:
                    python_rows = _python_rows(columns)
                out.write(python_rows((left,)))
                n += 1
            elif not data:
                return n

    return write


# ------------------------------------------------------------------ table

# (key, header, justify, kind): key and number columns are never cut; on a terminal the
# text columns wrap at the width chosen for them (kgroup/render/table.py).
COLUMNS = (
    Column("source", "SOURCE", "left", TEXT),
    Column("offset", "OFFSET", "right", NUMBER),
    Column("time", "TIME", "left", KEY),
    Column("record_type", "TYPE", "left", KEY),
    Column("group", "GROUP", "left", KEY),
    Column("key", "KEY", "left", KEY),  # topic-partition of a commit, member id, ...
    Column("value", "VALUE", "left", TEXT),
)


@dataclass
class TableResult:
    """What the table writer did: records written, and whether a value was cut."""

    records: int = 0
    cut: bool = False


def write_table(
    recs: Iterable[DecodedRecord],
    out: TextIO,
    *,
    color: bool,
    width: int | None,
    footer: Callable[[int], list[str]],
    empty_message: str = "no records",
) -> TableResult:
    """Print the records as a table while they come; `width` is the terminal's (None: a pipe,
    every row on one line). `footer(count)` gives the lines printed after the rows."""
    from rich.cells import cell_len

    from kgroup.render.table import fit_widths

    result = TableResult()
    rows = iter(recs)
    sample: list[list[str]] = []
    started = time.monotonic()
    for rec in rows:
        sample.append(_cells(rec, result))
        if len(sample) >= SAMPLE_ROWS or (
            len(sample) % 64 == 0 and time.monotonic() - started > SAMPLE_SECONDS
        ):
            break
    if not sample:
        out.write(terminal_safe(empty_message) + "\n")
        for line in footer(0):
            out.write(terminal_safe(line) + "\n")
        return result
    natural = [
        max([cell_len(c.title), *(_width(r[i], cell_len) for r in sample)])
        for i, c in enumerate(COLUMNS)
    ]
    gaps = (len(COLUMNS) - 1) * len(GAP)
    if width is None:
        widths = natural
    else:
        words = [
            max((_width(word, cell_len) for r in sample for word in r[i].split()), default=0)
            for i in range(len(COLUMNS))
        ]
        widths = fit_widths(COLUMNS, natural, width - gaps, words)
    layout = _Layout(widths, width is not None, cell_len)
    header = layout.line([c.title for c in COLUMNS])
    if color:
        out.write(f"\x1b[1m{header}\x1b[0m\n")
        out.write("\x1b[2m" + "─" * cell_len(header) + "\x1b[0m\n")
    else:
        out.write(header + "\n")
    write = out.write
    for cells in sample:
        write(layout.row(cells))
    result.records = len(sample)
    del sample
    for rec in rows:
        write(layout.row(_cells(rec, result)))
        result.records += 1
    for line in footer(result.records):
        write(terminal_safe(line) + "\n")
    return result


def _width(text: str, cell_len: Callable[[str], int]) -> int:
    return len(text) if text.isascii() else cell_len(text)


class _Layout:
    """Fixed column widths; formats a row as one line, or several where text cells wrap."""

    def __init__(self, widths: list[int], wrap: bool, cell_len: Callable[[str], int]) -> None:
        self.widths = widths
        self.wrap = wrap
        self.cell_len = cell_len
        self.right = [c.justify == "right" for c in COLUMNS]
        self.wraps = [wrap and c.role == TEXT for c in COLUMNS]
        self.last = len(COLUMNS) - 1

    def _pad(self, i: int, text: str) -> str:
        width = self.widths[i]
        if text.isascii():
            if i == self.last and not self.right[i]:
                return text
            return text.rjust(width) if self.right[i] else text.ljust(width)
        room = width - self.cell_len(text)
        if room <= 0:
            return text
        if self.right[i]:
            return " " * room + text
        return text if i == self.last else text + " " * room

    def line(self, cells: Sequence[str]) -> str:
        pad = self._pad
        return GAP.join([pad(i, c) for i, c in enumerate(cells)]).rstrip()

    def row(self, cells: list[str]) -> str:
        parts: list[list[str]] | None = None
        for i, cell in enumerate(cells):
            if self.wraps[i] and _width(cell, self.cell_len) > self.widths[i]:
                if parts is None:
                    parts = [[c] for c in cells]
                parts[i] = _fold(cell, self.widths[i])
        if parts is None:
            return self.line(cells) + "\n"
        height = max(len(p) for p in parts)
        return "".join(
            self.line([p[k] if k < len(p) else "" for p in parts]) + "\n" for k in range(height)
        )


def _fold(text: str, width: int) -> list[str]:
    """`text` wrapped at blanks, words longer than `width` folded (rich's "fold")."""
    return textwrap.wrap(text, max(width, 1), break_on_hyphens=False) or [""]


def _cells(rec: DecodedRecord, result: TableResult) -> list[str]:
    """The table cells of one record (escaped for a terminal; None shown as `-`)."""
    value, cut = value_text(rec)
    if cut:
        result.cut = True
    cells = (
        rec.source,
        str(rec.offset),
        format_ms(rec.timestamp),
        rec.record_type,
        rec.group,
        key_text(rec),
        value,
    )
    return ["-" if c is None else terminal_safe(c) for c in cells]


def key_text(rec: DecodedRecord) -> str | None:
    """The KEY cell: `topic-partition` of an offset commit, else the key's fields but the group."""
    key = rec.key
    if key is None or rec.control:
        return None
    if rec.key_type in (0, 1):  # offset commits; __share_group_state keys name a topic id
        return f"{key.get('topic', key.get('topic_id'))}-{key.get('partition')}"
    rest = {k: v for k, v in key.items() if k not in ("group", "group_id")}
    return " ".join(str(v) for v in rest.values()) or None


def value_text(rec: DecodedRecord) -> tuple[str, bool]:
    """The VALUE cell, and whether it was cut (a JSON value longer than VALUE_MAX)."""
    if rec.record_type == "unknown" or rec.error:
        return rec.error or "unknown", False
    if rec.tombstone:
        return "<DELETE>", False
    v = rec.value or {}
    if rec.record_type == "txn_marker":
        return f"{v.get('marker')} coordinator_epoch={v.get('coordinator_epoch')}", False
    if rec.record_type == "offset_commit":
        parts = [f"offset={v.get('offset')}"]
        if v.get("leader_epoch", -1) != -1:
            parts.append(f"leader_epoch={v['leader_epoch']}")
        if v.get("metadata"):
            parts.append(f"metadata={v['metadata']!r}")
        parts.append(f"commit={format_ms(v.get('commit_timestamp', -1))}")
        if v.get("expire_timestamp", -1) != -1:
            parts.append(f"expire={format_ms(v['expire_timestamp'])}")
        if v.get("topic_id"):
            parts.append(f"topic_id={v['topic_id']}")
        return " ".join(parts), False
    if rec.record_type == "group_metadata":
        members = v.get("members") or []
        state = "Stable" if members else "Empty"
        proto = f"{v.get('protocol_type') or '-'}/{v.get('protocol') or '-'}"
        return f"{state} {proto} generation={v.get('generation')} members={len(members)}", False
    import json

    from kgroup.offsets.decode import jsonable

    text = json.dumps(jsonable(v), separators=(",", ":"), ensure_ascii=False)
    if len(text) <= VALUE_MAX:
        return text, False
    return text[: VALUE_MAX - 1] + CUT_MARK, True


_LAST_TIME: list[Any] = [None, None]  # (ms, text) of the last call: commits repeat times


def format_ms(ms: int | None) -> str | None:
    """Epoch ms as an RFC 3339 UTC time with milliseconds; None/negative as None."""
    if ms is None or ms < 0:
        return None
    if ms == _LAST_TIME[0]:
        return _LAST_TIME[1]
    from kgroup.core.timefmt import format_utc_ms

    try:
        text = format_utc_ms(ms)
    except (OverflowError, ValueError):
        text = str(ms)
    _LAST_TIME[0], _LAST_TIME[1] = ms, text
    return text
