"""Streamed output (kgroup/render/stream.py): written while the groups come, whole-document
JSON bytes, and widths from the first rows."""

from __future__ import annotations

import enum
import io
import json

from kgroup.render.model import Column
from kgroup.render.stream import SAMPLE_ROWS, Part, Stream, write_stream

COLUMNS = [Column("group"), Column("n", justify="right")]


def parts(count: int, out: io.StringIO, seen: list[int]):
    for i in range(count):
        seen.append(out.getvalue().count('"g0') + out.getvalue().count("\ng0"))  # groups out so far
        yield Part(rows=[{"group": f"g{i:05d}", "n": i}], item={"group": f"g{i:05d}", "n": i},
                   footer=[f"g{i:05d}: done"])  # fmt: skip


def test_each_mode_writes_before_the_last_group_is_made() -> None:
    count = SAMPLE_ROWS * 3
    for mode in ("table", "json", "jsonl", "csv"):
        out = io.StringIO()
        seen: list[int] = []
        write_stream(Stream(parts(count, out, seen), COLUMNS), mode, out)
        # the groups before the last were out before the last was made
        assert seen[-1] >= count - SAMPLE_ROWS, (mode, seen[-1])


def test_json_has_the_bytes_of_the_whole_document() -> None:
    out = io.StringIO()
    head = {"window_ms": 5, "thresholds": {"max_lag": None, "deep": [1, {"a": "ü\n"}]}}
    write_stream(Stream(parts(2500, out, []), COLUMNS, head=head), "json", out)
    items = [{"group": f"g{i:05d}", "n": i} for i in range(2500)]
    whole = {"schema_version": 1, **head, "groups": items}
    assert out.getvalue() == json.dumps(whole, indent=2, ensure_ascii=False) + "\n"


def test_table_keeps_sampled_widths_and_pushes_a_wider_later_row() -> None:
    def wide():
        for _ in range(SAMPLE_ROWS):
            yield Part(rows=[{"group": "g", "n": 1}])
        yield Part(rows=[{"group": "a-much-longer-group", "n": 2}], footer=["summary"])

    out = io.StringIO()
    write_stream(Stream(wide(), COLUMNS), "table", out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "GROUP  N"
    assert lines[1] == "g      1"
    assert lines[-2] == "a-much-longer-group  2"  # never cut: pushed to the right
    assert lines[-1] == "summary"
    assert len(lines) == SAMPLE_ROWS + 3


class _Level(enum.IntEnum):
    HIGH = 3


class _Text(str):
    pass


def _nested(value: object, depth: int) -> object:
    for _ in range(depth):
        value = [value]
    return value


def test_indented_json_has_the_standard_library_bytes() -> None:
    from kgroup.render.stream import indented

    values = [
        {"a": [1, 2.5, -0.0, 1e300, float("nan"), float("inf"), True, False, None]},
        {"nested": {"empty_list": [], "empty_dict": {}, "deep": [[{"x": "y"}], []]}},
        {"text": 'tab\t nl\n esc\x1b bidi\u202e ü 注文 "quoted" \\ \x7f'},
        [{"n": 10**30}, "s", (1, 2)],
        {1: "int key", "b": 2},
        # rows of scalars (the C encoder's way): every scalar type, keys that are not strings,
        # text with line breaks and quotes, subclasses (the standard library's way)
        {"t": 'a\n"}', "i": -3, "f": 0.1, "b": True, "n": None, "x": float("-inf")},
        {1.5: 1, True: 2, None: 3, 7: [1, "two", None, False, 2.5]},
        [[{"deep": 1}, {"row": "}", "n": 2}], ["a\nb", 1], {}],
        {"enum": _Level.HIGH, "text": _Text("sub")},
        [_Level.HIGH, 1],
        _nested({"row": 1, "of": "scalars"}, 70),  # past the depth the writer indents itself
        "plain",
        3,
        None,
    ]
    for value in values:
        expected = json.dumps(value, indent=2, ensure_ascii=False)
        assert indented(value, 0) == expected
        assert indented(value, 2) == expected.replace("\n", "\n    ")


def test_json_text_safe_escapes_del_in_ascii_text_and_leaves_the_rest() -> None:
    from kgroup.render.safe import json_text_safe

    assert json_text_safe('{"m": "a\x7fb"}') == '{"m": "a\\u007fb"}'
    assert json_text_safe('{"m": "ü\x85\u202e"}') == '{"m": "ü\\u0085\\u202e"}'
    plain = '{"m": "ascii only, tab \\t"}'
    assert json_text_safe(plain) is plain


def test_lazy_parts_make_only_what_the_mode_writes_and_once() -> None:
    from kgroup.render.stream import LazyPart

    made: list[tuple[str, int]] = []

    def lazy(i: int) -> LazyPart:
        def rows() -> list[dict]:
            made.append(("rows", i))
            return [{"group": f"g{i}", "n": i}]

        def item() -> dict:
            made.append(("item", i))
            return {"group": f"g{i}", "n": i}

        return LazyPart(rows, item, [f"g{i}: done"])

    expected = {"table": "rows", "csv": "rows", "json": "item", "jsonl": "item"}
    for mode, kind in expected.items():
        made.clear()
        out = io.StringIO()
        write_stream(Stream((lazy(i) for i in range(SAMPLE_ROWS + 5)), COLUMNS), mode, out)
        assert made == [(kind, i) for i in range(SAMPLE_ROWS + 5)], mode
        eager = io.StringIO()
        parts = (
            Part([{"group": f"g{i}", "n": i}], {"group": f"g{i}", "n": i}, [f"g{i}: done"])
            for i in range(SAMPLE_ROWS + 5)
        )
        write_stream(Stream(parts, COLUMNS), mode, eager)
        assert out.getvalue() == eager.getvalue(), mode


class _Row(dict):  # type: ignore[type-arg]
    pass


def test_indented_json_fast_paths_have_the_standard_library_bytes() -> None:
    """The fast paths for dicts mixing scalars and containers (runs of scalar items in one
    call of the C encoder), floats beside containers, and lists of rows (one C call, its
    separators rewritten): their bytes are json.dumps's, also where text looks like JSON."""
    from kgroup.render.stream import indented

    floats = [0.0, -0.0, 0.1, 1e16, 1e-7, 5e-324, 1.7976931348623157e308, 2.5]
    tricky = ["a},\n{b", "}", "{", '"}', "\\", "},", "]", "[{", ' },\n      {"x": 1']
    values = [
        # check's partition: scalar items (floats among them), then one container
        {
            "topic": "t",
            "partition": 0,
            "complete": 0.5,
            "rate": 12.345,
            "nan": float("nan"),
            "inf": float("inf"),
            "ninf": float("-inf"),
            "none": None,
            "evidence": {
                "commits": [{"timestamp_ms": 1, "offset": 0, "lag": 10}],
                "log_ends": [{"timestamp_ms": 1, "offset": 10}, {"timestamp_ms": 2, "offset": 11}],
            },
        },
        # containers first, between, consecutive and last
        {"l": [1], "a": 1, "d": {"x": [2]}, "e": [], "f": {}, "b": "}", "c": [{"r": 1}]},
        {"x": [{"t": t} for t in tricky], "y": [{"t": t, "n": i} for i, t in enumerate(tricky)]},
        {
            "f": floats,
            "g": [{"v": f} for f in floats],
            **{f"k{i}": f for i, f in enumerate(floats)},
            "z": [],
        },
        # keys that are not strings: in a run of scalars (the C encoder's way), on a container
        {1: "one", 2.5: [1], "s": 1},
        {1: "one", None: 2, "c": [1]},
        # lists that are not lists of rows: an empty dict, a nested value, a subclass, mixed
        [{"a": 1}, {}],
        [{}, {"a": 1}],
        [{"a": 1}, {"b": [1]}],
        [{"a": 1}, {"b": {}}],
        [{"a": 1}, _Row(b=2)],
        [{"a": 1}, 1],
        [{"a": _Level.HIGH}],
        ({"a": 1}, {"b": 2}),
        [{"only": "one"}],
        [{"a": t} for t in tricky] + [{"b": float("nan")}],
        {"d": {"rows": [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]}, "s": "z"},
        # lists of dicts holding containers (check's partitions: one call of the C encoder,
        # each container's mark replaced), also where text holds the mark or a subclass
        [
            {"t": "a", "p": 0, "e": {"c": [{"o": 1}], "l": []}, "z": 2.5},
            {"t": "b", "e": {}, "l": [1, [2]], "n": _Level.HIGH, "s": _Text("sub")},
            {"only": [{"x": None}]},
            {"a": 1},
        ],
        [{"a": "\x00kgroup-nested\x00", "c": [1]}, {"b": {"x": 1}}],
        [{"\x00kgroup-nested\x00": 1, "c": [1]}],
        [{"a": 1, "c": {"\x00kgroup-nested\x00": [2]}}, {"d": ["\x00kgroup-nested\x00"]}],
        {"s": "\x00kgroup-nested\x00", "c": [1]},
        {"\x00kgroup-nested\x00": "x", "c": {"d": [1]}, "e": 1},
        {"g": "x", "p": [{"a": 1, "e": {"c": [{"o": 1}]}}], "m": []},
        # floats one by one (beside a container in a list, and alone)
        [*floats, float("nan"), float("inf"), float("-inf"), [1]],
        *floats,
        float("nan"),
        float("-inf"),
    ]
    for value in values:
        expected = json.dumps(value, indent=2, ensure_ascii=False)
        for level in (0, 1, 3):
            assert indented(value, level) == expected.replace("\n", "\n" + "  " * level), value
