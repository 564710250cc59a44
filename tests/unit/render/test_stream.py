"""Streamed output (kgroup/render/stream.py): written while the groups come, whole-document
JSON bytes, and widths from the first rows."""

from __future__ import annotations

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


def test_indented_json_has_the_standard_library_bytes() -> None:
    from kgroup.render.stream import indented

    values = [
        {"a": [1, 2.5, -0.0, 1e300, float("nan"), float("inf"), True, False, None]},
        {"nested": {"empty_list": [], "empty_dict": {}, "deep": [[{"x": "y"}], []]}},
        {"text": 'tab\t nl\n esc\x1b bidi\u202e ü 注文 "quoted" \\ \x7f'},
        [{"n": 10**30}, "s", (1, 2)],
        {1: "int key", "b": 2},
        "plain",
        3,
        None,
    ]
    for value in values:
        expected = json.dumps(value, indent=2, ensure_ascii=False)
        assert indented(value, 0) == expected
        assert indented(value, 2) == expected.replace("\n", "\n    ")
