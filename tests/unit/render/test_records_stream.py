"""The decode record writers (kgroup/render/records_stream.py): the compiled/pyarrow CSV path
writes the bytes of the Python path, hostile text included; JSON stays one valid document."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from kgroup.offsets import encode as enc
from kgroup.render import records_stream as rs
from kgroup.scan.local import DecodeFilter, LocalEngine, find_segments

FIXTURES = Path("/work/shared/fixtures/consumer-offsets-segments")
HOSTILE = [
    "plain",
    "=cmd|' /C calc'!A0",
    "+1",
    "-2",
    "@SUM(A1)",
    'quote " and, comma',
    "line\nbreak",
    "cr\rhere",
    "esc \x1b[2J",
    "del \x7f",
    "c1 \x85 and \x9b",
    "bidi \u202e txt",
    "ünïcødé 東京",
    "",
]


def _records(tmp_path: Path) -> list:
    d = tmp_path / "__consumer_offsets-3"
    d.mkdir()
    batches = []
    for i, text in enumerate(HOSTILE):
        group = text or "g"
        batches.append(
            enc.encode_batch(
                [enc.offset_commit(group, text or "t", i, i, commit_timestamp=1, metadata=text)],
                base_offset=i,
                timestamp=1000 + i,
            )
        )
    (d / "00000000000000000000.log").write_bytes(b"".join(batches))
    inputs = find_segments([str(d)])
    if FIXTURES.is_dir():  # real segments too: group metadata, transactions, Kafka's layouts
        inputs += find_segments(sorted(str(p) for p in FIXTURES.iterdir() if p.is_dir()))
    eng = LocalEngine(DecodeFilter())
    return list(eng.plain(eng.segment_records(inputs)))


def _csv(recs: list, *, native: bool) -> str:
    out = io.StringIO()
    assert rs.write_csv(iter(recs), out, native=native) == len(recs)
    return out.getvalue()


def test_csv_paths_write_the_same_bytes(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    from kgroup.scan.rows import RowBuilder

    if not RowBuilder().compiled:
        pytest.skip("the compiled row builder is not built")
    recs = _records(tmp_path)
    assert _csv(recs, native=True) == _csv(recs, native=False)


def test_csv_cells_are_safe_and_parse_back(tmp_path: Path) -> None:
    recs = _records(tmp_path)[: len(HOSTILE)]
    text = _csv(recs, native=False)
    assert "\x1b" not in text and "\u202e" not in text and "\x85" not in text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == len(HOSTILE)
    by_offset = {int(r["offset"]): r for r in rows}
    assert by_offset[1]["metadata"] == "'=cmd|' /C calc'!A0"
    assert by_offset[3]["metadata"] == "'-2"
    assert by_offset[5]["metadata"] == 'quote " and, comma'
    assert by_offset[6]["metadata"] == "line\\x0abreak"
    assert by_offset[13]["metadata"] == "" and by_offset[13]["expire_timestamp"] == ""
    for offset, original in enumerate(HOSTILE):
        # the JSON cells are the same JSON values, only with controls written as escapes
        assert json.loads(by_offset[offset]["value_json"])["metadata"] == original


def test_json_text_safe_keeps_the_json_value() -> None:
    text = json.dumps({"m": "a\x7fb\x85c\u202ed\u2066"}, ensure_ascii=False)
    safe = rs.json_text_safe(text)
    assert safe.isascii() and json.loads(safe) == json.loads(text)


def test_json_document_streams_with_and_without_records(tmp_path: Path) -> None:
    recs = _records(tmp_path)[:3]
    for given in (recs, []):
        out = io.StringIO()
        n = rs.write_json(iter(given), out, lambda g=given: {"summary": {"records": len(g)}})
        doc = json.loads(out.getvalue())
        assert n == len(given)
        assert doc == {
            "schema_version": 1,
            "records": [r.to_dict() for r in given],
            "summary": {"records": len(given)},
        }


def test_table_on_a_terminal_wraps_text_and_never_cuts_keys(tmp_path: Path) -> None:
    recs = _records(tmp_path)[: len(HOSTILE)]
    out = io.StringIO()
    result = rs.write_table(iter(recs), out, color=False, width=100, footer=lambda n: [f"{n} r"])
    lines = out.getvalue().splitlines()
    assert result.records == len(HOSTILE) and not result.cut
    assert lines[-1] == f"{len(HOSTILE)} r"
    assert "\x1b" not in out.getvalue() and "\\x1b[2J" in out.getvalue()
    assert any("東京" in line for line in lines)
