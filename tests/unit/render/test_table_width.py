"""Pure parts of the narrow-terminal rule (issue 12): column widths and the LAG_MS duration."""

from __future__ import annotations

import io

import pytest

from kgroup.core.timefmt import format_lag_ms
from kgroup.render.output import ELLIPSIS, TEXT, Column, Output
from kgroup.render.table import fit_widths, write_table


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (0, "0ms"),
        (850, "850ms"),
        (12_400, "12s"),
        (192_000, "3m12s"),
        (28_200_000, "7h50m"),
        (187_200_000, "2d4h"),
        (28_247_693_859, "326d22h"),
    ],
)
def test_durations_read_as_people_write_them(ms: int, text: str) -> None:
    assert format_lag_ms(ms) == text


def test_only_text_columns_narrow_widest_first_down_to_their_floor() -> None:
    columns = [Column("group"), Column("lag", justify="right"), Column("a", kind=TEXT)]
    columns.append(Column("value", kind=TEXT))
    # room for all: unchanged
    assert fit_widths(columns, [10, 5, 30, 40], 85, [10, 5, 5, 5]) == [10, 5, 30, 40]
    # 10 too wide: the widest text column gives first; 20: then both evenly
    assert fit_widths(columns, [10, 5, 30, 40], 75, [10, 5, 5, 5]) == [10, 5, 30, 30]
    assert fit_widths(columns, [10, 5, 30, 40], 65, [10, 5, 5, 5]) == [10, 5, 25, 25]
    # then both, down to TEXT_MIN_WIDTH; the group and the lag never shrink
    assert fit_widths(columns, [10, 5, 30, 40], 10, [10, 5, 5, 5]) == [10, 5, 12, 12]
    # a long word (an address) is kept whole up to 24 cells
    assert fit_widths(columns, [10, 5, 30, 40], 10, [10, 5, 18, 60]) == [10, 5, 18, 24]
    # ... unless folding it is what makes the table fit: down to 12, then to the header
    assert fit_widths(columns, [10, 5, 30, 40], 40, [10, 5, 18, 60]) == [10, 5, 12, 13]
    assert fit_widths(columns, [10, 5, 30, 40], 27, [10, 5, 18, 60]) == [10, 5, 6, 6]


def test_a_terminal_too_narrow_gets_a_wider_table_never_a_cut_number() -> None:
    output = Output(
        columns=[Column("topic"), Column("offset", justify="right"), Column("note", kind=TEXT)],
        rows=[{"topic": "orders.created.v1", "offset": 123456789012, "note": "a b c d e f g h"}],
        document={},
    )
    out = io.StringIO()
    write_table(output, out, color=True, width=20)
    text = out.getvalue()
    assert "orders.created.v1" in text and "123456789012" in text and "…" not in text
    cut = Output(
        columns=[Column("topic"), Column("note", kind=TEXT, cut=ELLIPSIS)],
        rows=[{"topic": "t", "note": "word " * 10}],
        document={},
    )
    out = io.StringIO()
    write_table(cut, out, color=False, width=20)
    header, row = out.getvalue().splitlines()
    assert header.split() == ["TOPIC", "NOTE"]
    assert len(row) == 20 and row.startswith("t ") and row.endswith("…")  # one line, marked


def test_cluster_text_is_not_rich_markup() -> None:
    output = Output(columns=[Column("group")], rows=[{"group": "[bold]g[/bold]"}], document={})
    out = io.StringIO()
    write_table(output, out, color=False, width=80)
    assert "[bold]g[/bold]" in out.getvalue()


def test_unknown_kind_or_cut_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="kind"):
        Column("x", kind="wide")
    with pytest.raises(ValueError, match="cut"):
        Column("x", kind=TEXT, cut="hide")
