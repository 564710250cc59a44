"""Output that streams: a command's results written group by group, in every mode (issue #29).

A `Stream` is what a fleet-sized command prints: `parts` (one a group, as the groups complete),
each with its table/CSV rows, its JSON element and its lines for the summary after the table.
Nothing holds the whole fleet:

- JSON: the document `{"schema_version": 1, **head, "groups": [...]}` is written element by
  element, with the bytes `json.dumps(document, indent=2)` gives for the whole document (DEL,
  C1 and bidi controls escaped too, kgroup/render/safe.py).
- JSON Lines: one element a line, as it comes.
- CSV and tables: the columns (some views add columns only when a group needs them) and, for a
  table, the column widths come from the first rows (SAMPLE_ROWS, or all of them when fewer);
  later rows are printed as they come. When rows follow the sample, a view's columns are every
  column a later row may need (a CSV header cannot grow), blank where a row has no value.
  The table is laid out as kgroup/render/table.py lays out a rich table, byte for byte
  (widths fitted to a terminal by narrowing free-text columns; key and number cells never
  cut: a later, wider cell pushes its row to the right). The footer lines (one summary a
  group) follow the table.

`Stream.to_output()` gives the same content as one `Output`, for callers that want it whole.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import not_
from typing import Any, TextIO

from kgroup.render.model import ELLIPSIS, SCHEMA_VERSION, TEXT, Column, Output
from kgroup.render.safe import json_text_safe, terminal_safe

SAMPLE_ROWS = 1000  # a table's widths and a view's columns come from at most this many rows
GAP = "  "  # between columns, as rich's padding of one each side gives
ELLIPSIS_MARK = "…"


@dataclass
class Part:
    """One group's share of the output: table/CSV rows, its JSON element, its summary lines.
    `text`: the element's JSON text as the document holds it (`indented(item, 2)`), for a
    view that writes it faster than the item could be; JSON writes it instead of the item."""

    rows: Sequence[dict[str, Any]] = ()
    item: dict[str, Any] | None = None
    footer: Sequence[str] = ()
    text: str | None = None


class _Made:
    """A LazyPart attribute made by its maker (`_make_<name>`) when first asked for, then kept
    in the instance dict, which later lookups find first (a non-data descriptor): what
    `functools.cached_property` does, without its lock on Python 3.11 (one a group)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name, self.maker = name, "_make_" + name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = getattr(obj, self.maker)()
        return value


class LazyPart(Part):
    """A Part whose rows and JSON element are made when first asked for: a table or CSV asks
    for the rows only, JSON and JSON Lines for the element only, so a fleet's groups are not
    laid out twice."""

    def __init__(
        self,
        rows: Callable[[], Sequence[dict[str, Any]]],
        item: Callable[[], dict[str, Any] | None],
        footer: Sequence[str] = (),
    ) -> None:
        self._make_rows, self._make_item, self.footer = rows, item, footer

    rows: Sequence[dict[str, Any]] = _Made()  # type: ignore[assignment]
    item: dict[str, Any] | None = _Made()  # type: ignore[assignment]


# a list, or a function of the first rows and whether they are all the rows
Columns = Sequence[Column] | Callable[[Sequence[dict[str, Any]], bool], Sequence[Column]]


@dataclass
class Stream:
    """What a command prints, produced while it is printed.

    `columns` is a list, or a function of the first rows (SAMPLE_ROWS) and of whether they are
    all the rows (when not, it gives every column a later row may need); `head` holds the JSON
    document's keys before the `array` of elements."""

    parts: Iterable[Part]
    columns: Columns
    head: dict[str, Any] = field(default_factory=dict)
    array: str = "groups"
    empty_message: str = "(none)"

    def columns_for(self, rows: Sequence[dict[str, Any]], complete: bool = True) -> list[Column]:
        return list(self.columns(rows, complete) if callable(self.columns) else self.columns)

    def to_output(self) -> Output:
        """The whole stream as one Output (for small results and tests)."""
        parts = list(self.parts)
        rows = [r for p in parts for r in p.rows]
        items = [p.item for p in parts if p.item is not None]
        return Output(
            columns=self.columns_for(rows),
            rows=rows,
            document={**self.head, self.array: items},
            jsonl_items=items,
            footer=[line for p in parts for line in p.footer],
            empty_message=self.empty_message,
        )


def write_stream(
    stream: Stream, mode: str, out: TextIO, *, color: bool = False, width: int | None = None
) -> None:
    """Print `stream` to `out` in `mode`; for tables, `width` is the terminal's (None: a pipe)."""
    if mode == "json":
        write_json(stream, out)
    elif mode == "jsonl":
        for part in stream.parts:
            if part.item is not None:
                line = json.dumps(part.item, ensure_ascii=False, separators=(",", ":"))
                out.write(json_text_safe(line) + "\n")
    elif mode == "csv":
        write_csv(stream, out)
    else:
        write_table(stream, out, color=color, width=width)


def write_json(stream: Stream, out: TextIO) -> None:
    """The document, element by element, as `json.dumps(document, indent=2)` writes it whole.

    When producing the elements fails part way (a later chunk's error, Ctrl-C) the document is
    still closed, as decode's is: the elements so far and `error` (the one line kgroup prints
    on stderr, or `interrupted`); then the failure is raised again for its exit code."""
    from kgroup.core.errors import KgroupError
    from kgroup.render.records_stream import failure_text

    head = "".join(f",\n  {_string(k)}: {indented(v, 1)}" for k, v in stream.head.items())
    out.write(f'{{\n  "schema_version": {SCHEMA_VERSION}' + json_text_safe(head))
    out.write(f",\n  {_string(stream.array)}: [")
    first = True
    chunk: list[str] = []
    failure: BaseException | None = None
    try:
        for part in stream.parts:
            text = part.text
            if text is None:
                if part.item is None:
                    continue
                text = indented(part.item, 2)
            chunk.append(("\n    " if first else ",\n    ") + text)
            first = False
            if len(chunk) >= 256:
                text = json_text_safe("".join(chunk))
                chunk.clear()
                out.write(text)
    except (KgroupError, KeyboardInterrupt) as exc:
        failure = exc
    out.write(json_text_safe("".join(chunk)))
    out.write("]" if first else "\n  ]")
    if failure is not None:
        out.write(f',\n  "error": {json_text_safe(_string(failure_text(failure)))}')
    out.write("\n}\n")
    if failure is not None:
        raise failure


_string = json.encoder.encode_basestring  # type: ignore[attr-defined]  # C, ensure_ascii=False
_INDENTS = ["\n" + "  " * level for level in range(64)]
_KEYS: dict[str, str] = {}  # key -> its JSON text and ": " (keys repeat in every element)


def indented(value: Any, level: int) -> str:
    """`value` as `json.dumps(value, indent=2, ensure_ascii=False)` writes it, nested `level`
    deep (its lines after the first indented by 2 x level). The standard library writes
    indented JSON with its pure-Python encoder, several times slower than this one for the
    documents kgroup prints (dicts and lists of strings, numbers, booleans and nulls)."""
    kind = type(value)  # the common scalars first, without a further call
    if kind is str:
        return _string(value)
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    return _other(value, level)


def _other(value: Any, level: int) -> str:
    """`indented` for what is not a string, an int or None."""
    kind = type(value)
    if kind is dict and level < 62:
        if not value:
            return "{}"
        plain = list(map(_SCALARS.__contains__, map(type, value.values())))
        if all(plain):  # a row: one call of the C encoder
            return "{" + _INDENTS[level + 1] + _flat_items(value, level) + _INDENTS[level] + "}"
        if plain[0]:  # scalars first (a partition, a group): one call of the C encoder
            text = _marked_dict(value, plain, level)
            if text is not None:
                return text
        parts = _dict_items(value, plain, level)
        if parts is None:
            return _standard(value, level)
        inner = _INDENTS[level + 1]
        return "{" + inner + ("," + inner).join(parts) + _INDENTS[level] + "}"
    if kind is list or kind is tuple:
        if level >= 62:
            return _standard(value, level)
        if not value:
            return "[]"
        if set(map(type, value)) <= _SCALARS:
            return "[" + _INDENTS[level + 1] + _flat_items(value, level) + _INDENTS[level] + "]"
        if _rows_only(value):
            return _row_list(value, level)
        if set(map(type, value)) == _DICT and all(value):
            text = _marked_rows(value, level)
            if text is not None:
                return text
        inner = _INDENTS[level + 1]
        items = [indented(item, level + 1) for item in value]
        return "[" + inner + ("," + inner).join(items) + _INDENTS[level] + "]"
    if kind is float:
        if value - value == 0.0:  # finite: the C encoder's and json.dumps' text
            return float.__repr__(value)
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    if kind is bool:
        return "true" if value else "false"
    return _standard(value, level)


# what a container's value is replaced with for one call of the C encoder over a whole dict;
# its JSON text is then cut out (text that happens to hold it is found by a count)
_MARK = "\x00kgroup-nested\x00"
_MARK_JSON = _string(_MARK)


def _marked_dict(value: dict[Any, Any], plain: list[bool], level: int) -> str | None:
    """A dict holding containers in one call of the C encoder: each container's value
    replaced by `_MARK`, whose JSON text is then replaced by the container's (`indented`).
    None when the text holds the mark elsewhere too (a key or string that has it)."""
    nested = list(compress(value, map(not_, plain)))
    flat = dict(value)
    flat.update(dict.fromkeys(nested, _MARK))
    pieces = "".join(_flat(level)(flat, 0))[1:-1].split(_MARK_JSON)
    if len(pieces) != len(nested) + 1:
        return None
    text = [_INDENTS[level + 1], pieces[0]]
    for key, piece in zip(nested, pieces[1:], strict=True):
        text.append(indented(value[key], level + 1))
        text.append(piece)
    text.append(_INDENTS[level])
    return "{" + "".join(text) + "}"


def _marked_rows(value: list[Any] | tuple[Any, ...], level: int) -> str | None:
    """A list of non-empty dicts holding containers (check's partitions) as one list of rows
    (`_row_list`, one call of the C encoder): each container's value replaced by `_MARK`,
    whose JSON text is then replaced by the container's (`indented`). None when the text
    holds the mark elsewhere too."""
    flats = []
    nested: list[Any] = []
    for item in value:
        keys = list(compress(item, map(not_, map(_SCALARS.__contains__, map(type, item.values())))))
        flat = dict(item)
        flat.update(dict.fromkeys(keys, _MARK))
        flats.append(flat)
        nested.extend(map(item.__getitem__, keys))
    pieces = _row_list(flats, level).split(_MARK_JSON)
    if len(pieces) != len(nested) + 1:
        return None
    text = [pieces[0]]
    for container, piece in zip(nested, pieces[1:], strict=True):
        text.append(indented(container, level + 2))
        text.append(piece)
    return "".join(text)


def _dict_items(value: dict[Any, Any], plain: list[bool], level: int) -> list[str] | None:
    """The items of a dict holding containers, as `"key": value` texts nested `level` deep:
    each run of consecutive plain items (`plain[i]`: the i-th value is a scalar) in one call
    of the C encoder, each container by `indented`. None when a container's key is not a
    string (the standard library's rules then)."""
    items = list(value.items())
    parts = []
    start = 0
    end = len(items)
    while start < end:
        try:
            nested = plain.index(False, start)
        except ValueError:
            nested = end
        if nested > start:
            parts.append(_flat_items(dict(items[start:nested]), level))
        if nested == end:
            break
        key, item = items[nested]
        name = _KEYS.get(key) if type(key) is str else None
        if name is None:
            if type(key) is not str:
                return None
            name = _KEYS[key] = _string(key) + ": "
        parts.append(name + indented(item, level + 1))
        start = nested + 1
    return parts


def _rows_only(value: list[Any] | tuple[Any, ...]) -> bool:
    """Whether every item is a non-empty dict of scalars (a row); the loops all in C."""
    return (
        set(map(type, value)) == _DICT
        and all(value)
        and all(map(_SCALARS.issuperset, map(map, repeat(type), map(dict.values, value))))
    )


def _row_list(value: list[Any] | tuple[Any, ...], level: int) -> str:
    """A list of rows (`_rows_only`) nested `level` deep, in one call of the C encoder: it
    writes each row's items on lines of the rows' indent (level + 2) and the rows between
    them too, as `},<line>{` (a row's item ends with a scalar, never `}`; a JSON string holds
    no raw line break): those become the list's own separator, the rows' brackets on lines of
    their own."""
    row = _INDENTS[level + 2]
    outer = _INDENTS[level + 1]
    text = "".join(_flat(level + 1)(value, 0))[2:-2]
    text = text.replace("}," + row + "{", outer + "}," + outer + "{" + row)
    return "[" + outer + "{" + row + text + outer + "}" + _INDENTS[level] + "]"


def _flat_items(value: Any, level: int) -> str:
    """The items of a dict or list of scalars nested `level` deep, without its brackets: one
    call of the C encoder (`_flat`)."""
    return "".join(_flat(level)(value, 0))[1:-1]


# the types whose JSON text the C encoder writes as json.dumps(indent=2) does (exact types:
# a subclass, e.g. an IntEnum, takes the standard library's way)
_SCALARS = frozenset({str, int, float, bool, type(None)})
_FLATS: dict[int, Callable[[Any, int], tuple[str, ...]]] = {}
_DICT = {dict}


def _flat(level: int) -> Callable[[Any, int], tuple[str, ...]]:
    """The C encoder writing a dict or list of scalars (no nesting) nested `level` deep: its
    items separated by a line break and the indent of `level + 1` (a JSON string holds no raw
    line break, so the separators are the only ones); `indented` adds the brackets' lines. Keys
    that are not strings it turns into strings as the standard library does."""
    encode = _FLATS.get(level)
    if encode is None:
        from json.encoder import c_make_encoder  # type: ignore[attr-defined]

        if c_make_encoder is None:  # a Python without the C accelerator
            return lambda value, _: (
                json.dumps(value, ensure_ascii=False, separators=("," + _INDENTS[level + 1], ": ")),
            )
        encode = _FLATS[level] = c_make_encoder(
            None, None, _string, None, ": ", "," + _INDENTS[level + 1], False, False, True
        )
    return encode


def _standard(value: Any, level: int) -> str:
    """The standard library's rules (keys that are not strings, other types, deep nesting)."""
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", _INDENTS[level])


def _sample(parts: Iterator[Part]) -> tuple[list[Part], Iterator[Part], bool]:
    """The first parts, up to SAMPLE_ROWS rows; the parts after them; and whether the sample
    holds every part (one more is read to know)."""
    from itertools import chain

    taken: list[Part] = []
    rows = 0
    for part in parts:
        taken.append(part)
        rows += len(part.rows)
        if rows >= SAMPLE_ROWS:
            after = next(parts, None)
            if after is None:
                return taken, parts, True
            return taken, chain((after,), parts), False
    return taken, parts, True


def write_csv(stream: Stream, out: TextIO) -> None:
    """A header of column keys, then the rows (kgroup/render/csvout.py's cells)."""
    from kgroup.render.csvout import write_csv as write_rows

    sample, parts, complete = _sample(iter(stream.parts))
    columns = stream.columns_for([r for p in sample for r in p.rows], complete)
    write_rows(columns, _rows(sample, parts), out)


def _rows(sample: list[Part], parts: Iterator[Part]) -> Iterator[dict[str, Any]]:
    for part in sample:
        yield from part.rows
    sample.clear()
    for part in parts:
        yield from part.rows


# ------------------------------------------------------------------ table


def write_table(stream: Stream, out: TextIO, *, color: bool, width: int | None) -> None:
    """The table while the parts come, then every part's footer lines."""
    from rich.cells import cell_len

    from kgroup.render.table import column_cell, column_widths

    sample, parts, complete = _sample(iter(stream.parts))
    sample_rows = [r for p in sample for r in p.rows]
    columns = stream.columns_for(sample_rows, complete)
    make_cells = _cell_maker(columns, column_cell)
    cells = [make_cells(row) for row in sample_rows]
    del sample_rows
    gaps = max(len(columns) - 1, 0) * len(GAP)
    _, widths = column_widths(columns, cells, None if width is None else width - gaps)
    table_width = sum(widths) + gaps
    # a terminal's lines (the footer too) wrap at its width, or at the table's when wider
    line_width = None if width is None else max(width, table_width, 1)
    layout = _Layout(columns, widths, width is not None, cell_len)
    footer: list[str] = []
    write = out.write
    rows = 0
    for part in sample:
        footer.extend(part.footer)
    if cells:
        write(layout.header(color))
        for row in cells:
            write(layout.row(row))
        rows = len(cells)
    del cells
    sample.clear()
    lines = layout.lines
    for part in parts:
        if part.rows and not rows:
            write(layout.header(color))
        if part.rows:
            write(lines([make_cells(row) for row in part.rows]))
            rows += len(part.rows)
        footer.extend(part.footer)
    lines = [] if rows else [stream.empty_message or "(none)"]
    for line in [*lines, *footer]:
        write(_wrapped(terminal_safe(line), line_width))


def _cell_maker(
    columns: Sequence[Column], column_cell: Callable[[Column, Any], str]
) -> Callable[[dict[str, Any]], list[str]]:
    """A function giving a row's cells (kgroup/render/table.py's `column_cell`), fast for
    numbers, and with the cells of repeated text (groups, topics, hosts) remembered."""
    keys = [c.key for c in columns]
    plain = [c.display is None for c in columns]
    caches: list[dict[str, str]] = [{} for _ in columns]  # a column's text -> its cell
    number = int.__repr__

    def text(column: Column, cache: dict[str, str], value: str) -> str:
        if len(cache) > 65536:
            cache.clear()
        cell = cache[value] = column_cell(column, value)
        return cell

    def cells(row: dict[str, Any]) -> list[str]:
        # one comprehension a row: no Python-level loop step or call for a number, None or a
        # remembered text (10 cells a row, 100,000 rows a fleet)
        return [
            number(value)
            if value.__class__ is int and bare
            else (cache.get(value) or text(column, cache, value))
            if value.__class__ is str
            else "-"
            if value is None
            else column_cell(column, value)
            for value, column, bare, cache in zip(
                map(row.get, keys), columns, plain, caches, strict=True
            )
        ]

    return cells


def _wrapped(line: str, width: int | None) -> str:
    """A line as a terminal of `width` shows it, wrapped at blanks (rich's word wrap)."""
    if width is None or len(line) <= width:
        return line + "\n"
    return "".join(part.rstrip() + "\n" for part in _fold(line, width))


def _fold(text: str, width: int) -> list[str]:
    """`text` wrapped at blanks, words longer than `width` folded (rich's "fold")."""
    return textwrap.wrap(text, max(width, 1), break_on_hyphens=False) or [""]


class _Layout:
    """Fixed column widths: the header, and a row as one line or several where cells wrap."""

    def __init__(
        self,
        columns: Sequence[Column],
        widths: list[int],
        terminal: bool,
        cell_len: Callable[[str], int],
    ) -> None:
        self.columns = columns
        self.widths = widths
        self.cell_len = cell_len
        self.right = [c.justify == "right" for c in columns]
        # on a terminal, a free-text cell wider than its column wraps, or is cut with `…`
        self.fits = [terminal and c.role == TEXT for c in columns]
        self.cuts = [c.cut == ELLIPSIS for c in columns]
        self.last = len(columns) - 1
        self.any_fits = any(self.fits)
        # a line of ASCII cells in one call: each cell padded (never cut) to its width, as
        # str.ljust / str.rjust do
        self.template = GAP.join(
            ("{:>%d}" if right else "{:<%d}") % width
            for right, width in zip(self.right, widths, strict=True)
        )

    def _width(self, text: str) -> int:
        return len(text) if text.isascii() else self.cell_len(text)

    def _pad(self, i: int, text: str) -> str:
        room = self.widths[i] - self._width(text)
        if room <= 0:
            return text
        return " " * room + text if self.right[i] else text + " " * room

    def line(self, cells: Sequence[str]) -> str:
        text = self.template.format(*cells).rstrip()
        if text.isascii():  # the common case: a character is a cell (the padding is ASCII)
            return text
        return GAP.join([self._pad(i, c) for i, c in enumerate(cells)]).rstrip()

    def header(self, color: bool) -> str:
        titles = [c.title for c in self.columns]
        if not color:
            return self.line(titles) + "\n"
        bold = [f"\x1b[1m{self._pad(i, t)}\x1b[0m" for i, t in enumerate(titles)]
        table_width = sum(self.widths) + len(GAP) * self.last
        return "\x1b[1m \x1b[0m ".join(bold) + "\n" + "─" * table_width + "\n"

    def lines(self, rows: list[list[str]]) -> str:
        """The lines of several rows' cells (`row` of each): when no cell may wrap or be cut
        (a pipe, or no free-text column) and every line is ASCII, one format and one strip a
        line, without `row`'s and `line`'s frames (a fleet's 100,000 rows)."""
        if not self.any_fits:
            form = self.template.format
            text = "\n".join([form(*cells).rstrip() for cells in rows])
            if text.isascii():
                return text + "\n"
        return "".join([self.row(cells) for cells in rows])

    def row(self, cells: list[str]) -> str:
        if not self.any_fits:
            return self.line(cells) + "\n"
        parts: list[list[str]] | None = None
        for i, cell in enumerate(cells):
            if self.fits[i] and self._width(cell) > self.widths[i]:
                if self.cuts[i]:
                    cells[i] = _cut(cell, self.widths[i], self.cell_len)
                    continue
                if parts is None:
                    parts = [[c] for c in cells]
                parts[i] = _fold(cell, self.widths[i])
        if parts is None:
            return self.line(cells) + "\n"
        for i, cell in enumerate(cells):
            if len(parts[i]) == 1:
                parts[i] = [cell]
        height = max(len(p) for p in parts)
        return "".join(
            self.line([p[k] if k < len(p) else "" for p in parts]) + "\n" for k in range(height)
        )


def _cut(text: str, width: int, cell_len: Callable[[str], int]) -> str:
    """`text` cut to `width` cells, its last one a visible `…` (rich's "ellipsis")."""
    from rich.cells import set_cell_size

    if width <= 1:
        return ELLIPSIS_MARK[:width]
    return set_cell_size(text, width - 1) + ELLIPSIS_MARK
