"""Every time rule of kgroup lives in kgroup/core/timefmt.py (issue #25 point 3), each pinned
here by literal bytes, and the places that print them pinned through their own code."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from kgroup.core import timefmt
from kgroup.core.timefmt import (
    format_duration_ms,
    format_lag_ms,
    format_local_clock,
    format_utc_compact_ms,
    format_utc_ms,
    format_utc_s,
    utc_now_isoformat,
)

MAY_1_10H_UTC = 1_777_629_600_000  # 2026-05-01T10:00:00Z


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (MAY_1_10H_UTC, "2026-05-01T10:00:00.000Z"),
        (MAY_1_10H_UTC + 7, "2026-05-01T10:00:00.007Z"),
        (0, "1970-01-01T00:00:00.000Z"),
        (1_709_251_199_999, "2024-02-29T23:59:59.999Z"),
    ],
)
def test_utc_with_milliseconds(ms: int, text: str) -> None:
    assert format_utc_ms(ms) == text


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (MAY_1_10H_UTC, "2026-05-01T10:00:00Z"),
        (MAY_1_10H_UTC + 999, "2026-05-01T10:00:00Z"),  # cut, never rounded up
        (1_709_251_199_999, "2024-02-29T23:59:59Z"),
        (0, "1970-01-01T00:00:00Z"),
    ],
)
def test_utc_to_the_second_for_watch_headers(ms: int, text: str) -> None:
    assert format_utc_s(ms) == text


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (MAY_1_10H_UTC + 7, "20260501T100000007Z"),
        (1_709_251_199_999, "20240229T235959999Z"),
        (0, "19700101T000000000Z"),
    ],
)
def test_utc_compact_for_backup_file_names(ms: int, text: str) -> None:
    assert format_utc_compact_ms(ms) == text


def test_local_clock_is_the_time_of_day_where_kgroup_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    if not hasattr(time, "tzset"):
        pytest.skip("time.tzset is POSIX only")
    monkeypatch.setenv("TZ", "Europe/Paris")
    time.tzset()
    try:
        assert format_local_clock(MAY_1_10H_UTC / 1000) == "12:00:00"  # CEST, UTC+2
        assert format_local_clock(MAY_1_10H_UTC / 1000 + 61.9) == "12:01:01"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_now_for_the_sandbox_state_file() -> None:
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", utc_now_isoformat())


@pytest.mark.parametrize(
    ("ms", "text"),
    [(0, "0s"), (5_400_000, "1h30m"), (93_784_005, "1d2h3m4s5ms"), (500, "500ms")],
)
def test_exact_duration_keeps_every_unit(ms: int, text: str) -> None:
    """Plans and notes: --by-duration reads these back, so nothing is dropped."""
    assert format_duration_ms(ms) == text


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (0, "0ms"),
        (850, "850ms"),
        (12_400, "12s"),
        (192_000, "3m12s"),
        (28_200_000, "7h50m"),
        (93_784_005, "1d2h"),
        (28_247_693_859, "326d22h"),
        (-192_000, "-3m12s"),
    ],
)
def test_lag_duration_keeps_the_two_largest_units(ms: int, text: str) -> None:
    """Table cells: describe's and check's lag time, headroom and eta."""
    assert format_lag_ms(ms) == text


def test_the_two_duration_rules_differ_on_purpose() -> None:
    assert format_duration_ms(0) == "0s" != format_lag_ms(0)
    assert format_duration_ms(93_784_005) == "1d2h3m4s5ms" != format_lag_ms(93_784_005)


def test_the_module_docstring_names_every_rule() -> None:
    rules = [n for n in dir(timefmt) if n.startswith(("format_", "utc_"))]
    assert len(rules) == 7
    for name in rules:
        assert f"`{name}`" in (timefmt.__doc__ or ""), name


# ---------------------------------------------------------------------------------------------
# The places that print these, through their own code: the same bytes as before the move


def test_check_watch_lines_are_stamped_to_the_second_utc() -> None:
    from kgroup.check.model import GroupVerdict, Status
    from kgroup.render.check import status_changes

    verdict = GroupVerdict(group="g", status=Status.WARN, rule="lag", reason="lag 5", source="s")
    lines = status_changes({}, [verdict], MAY_1_10H_UTC + 999)
    assert lines == ["2026-05-01T10:00:00Z g: - -> WARN (lag 5)"]


def test_backup_file_names_carry_the_compact_utc_stamp(tmp_path: Path) -> None:
    from kgroup.reset.backups import choose_backup_path

    path = choose_backup_path("orders", str(tmp_path), True, MAY_1_10H_UTC + 7)
    assert path == tmp_path / "orders-20260501T100000007Z.json"


def test_check_eta_and_describe_lag_cells_keep_the_two_largest_units() -> None:
    from types import SimpleNamespace

    from kgroup.render.check import drain_text
    from kgroup.render.describe import duration_cell

    drain = SimpleNamespace(eta_ms=93_784_005, behind_per_s=None)
    assert drain_text(SimpleNamespace(drain=drain)) == "eta 1d2h"  # type: ignore[arg-type]
    assert duration_cell(192_000) == "3m12s"
    assert duration_cell(None) is None
