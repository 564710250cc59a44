"""Every output mode for one constructed Output: the same data, each format's rules."""

from __future__ import annotations

import csv
import io
import json

from kgroup.render import Column, Output, render

ROWS = [
    {"group": "g1", "topic": "orders", "partition": 0, "lag": 5},
    {"group": "g1", "topic": "orders", "partition": 1, "lag": None},
]
OUTPUT = Output(
    columns=[
        Column("group"),
        Column("topic"),
        Column("partition", justify="right"),
        Column("lag", justify="right"),
    ],
    rows=ROWS,
    document={"groups": [{"group": "g1", "rows": ROWS}]},
    footer=["total lag 5"],
)


def rendered(mode: str, output: Output = OUTPUT) -> str:
    buffer = io.StringIO()
    render(output, mode, stream=buffer)
    return buffer.getvalue()


def test_table_has_headers_rows_dash_for_null_and_footer() -> None:
    lines = rendered("table").splitlines()
    assert lines[0].split() == ["GROUP", "TOPIC", "PARTITION", "LAG"]
    assert lines[1].split() == ["g1", "orders", "0", "5"]
    assert lines[2].split() == ["g1", "orders", "1", "-"]
    assert lines[-1] == "total lag 5"
    assert "\x1b[" not in rendered("table")


def test_json_document_carries_schema_version() -> None:
    document = json.loads(rendered("json"))
    assert document == {"schema_version": 1, "groups": [{"group": "g1", "rows": ROWS}]}


def test_jsonl_one_object_per_line() -> None:
    lines = rendered("jsonl").splitlines()
    assert [json.loads(line) for line in lines] == ROWS


def test_csv_header_and_empty_field_for_null() -> None:
    rows = list(csv.reader(io.StringIO(rendered("csv"))))
    assert rows == [
        ["group", "topic", "partition", "lag"],
        ["g1", "orders", "0", "5"],
        ["g1", "orders", "1", ""],
    ]


def test_empty_results() -> None:
    empty = Output(
        columns=[Column("group")], rows=[], document={"groups": []}, empty_message="No groups."
    )
    assert rendered("table", empty).strip() == "No groups."
    assert json.loads(rendered("json", empty)) == {"schema_version": 1, "groups": []}
    assert rendered("jsonl", empty) == ""
    assert rendered("csv", empty) == "group\n"


def test_csv_cells_of_every_kind() -> None:
    """Numbers as Python writes them, booleans as JSON does, None blank, text escaped and
    kept from reading as a spreadsheet formula; repeated text the same each time."""
    from kgroup.render.csvout import write_csv

    class Level(int):
        def __str__(self) -> str:
            return "level"

    columns = [Column(k) for k in ("a", "b", "c")]
    rows = [
        {"a": 10**20, "b": -1.5, "c": True},
        {"a": None, "b": False, "c": "=SUM(A1)"},
        {"a": "-3", "b": "esc\x1b[2J", "c": 'q"uote,d'},
        {"a": "=SUM(A1)", "b": Level(3), "c": float("nan")},
        {"b": "\u202e", "c": "plain"},
    ]
    out = io.StringIO()
    write_csv(columns, rows, out)
    assert out.getvalue() == (
        "a,b,c\n"
        "100000000000000000000,-1.5,true\n"
        ",false,'=SUM(A1)\n"
        '\'-3,esc\\x1b[2J,"q""uote,d"\n'
        "'=SUM(A1),level,nan\n"
        ",\\u202e,plain\n"
    )
