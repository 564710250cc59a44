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
