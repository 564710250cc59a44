"""--to-datetime, --to-timestamp and --by-duration parsing, and the UTC echo.

Expected epoch values were computed by hand / with `date -u -d ... +%s`, not by the code.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kgroup.core.errors import UsageError
from kgroup.reset.timespec import (
    MAX_MS,
    format_duration_ms,
    format_utc_ms,
    parse_datetime_ms,
    parse_duration_ms,
    parse_timestamp_ms,
)

MAY_1_10H_UTC = 1_777_629_600_000  # 2026-05-01T10:00:00Z


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-05-01T10:00:00Z", MAY_1_10H_UTC),
        ("2026-05-01t10:00:00z", MAY_1_10H_UTC),
        ("2026-05-01 10:00:00Z", MAY_1_10H_UTC),
        ("2026-05-01T15:30:00+05:30", MAY_1_10H_UTC),
        ("2026-05-01T15:30:00+0530", MAY_1_10H_UTC),
        ("2026-05-01T06:00:00-04:00", MAY_1_10H_UTC),
        ("2026-05-01T12:00:00+02", MAY_1_10H_UTC),
        ("2026-05-01T10:00:00-00:00", MAY_1_10H_UTC),
        ("2026-05-01T10:00Z", MAY_1_10H_UTC),
        ("2026-05-01T10:00:00.000Z", MAY_1_10H_UTC),
        ("2026-05-01T10:00:00.5Z", MAY_1_10H_UTC + 500),
        ("2026-05-01T10:00:00,25Z", MAY_1_10H_UTC + 250),
        ("2026-05-01T10:00:00.123Z", MAY_1_10H_UTC + 123),
        ("  2026-05-01T10:00:00Z  ", MAY_1_10H_UTC),
        ("1970-01-01T00:00:00Z", 0),
        ("2000-01-01T00:00:00Z", 946_684_800_000),
        ("2024-02-29T00:00:00Z", 1_709_164_800_000),
    ],
)
def test_rfc3339_with_zone(text: str, expected: int) -> None:
    assert parse_datetime_ms(text) == expected


def test_sub_millisecond_fraction_rounds_up() -> None:
    # Record timestamps are whole ms: ">= 10:00:00.1234" means ">= 10:00:00.124".
    assert parse_datetime_ms("2026-05-01T10:00:00.1234Z") == MAY_1_10H_UTC + 124
    assert parse_datetime_ms("2026-05-01T10:00:00.000000001Z") == MAY_1_10H_UTC + 1
    assert parse_datetime_ms("2026-05-01T10:00:00.123000Z") == MAY_1_10H_UTC + 123


def test_leap_second_is_the_next_second() -> None:
    assert parse_datetime_ms("2016-12-31T23:59:60Z") == 1_483_228_800_000


def test_across_a_dst_change_offsets_are_plain_arithmetic() -> None:
    # Europe/Berlin jumped 02:00 CET -> 03:00 CEST on 2026-03-29; two minutes passed.
    before = parse_datetime_ms("2026-03-29T01:59:00+01:00")
    after = parse_datetime_ms("2026-03-29T03:01:00+02:00")
    assert before == 1_774_745_940_000
    assert after == 1_774_746_060_000
    assert after - before == 2 * 60_000


@pytest.mark.parametrize(
    "text", ["2026-05-01T10:00:00", "2026-05-01T10:00:00.250", "2026-05-01T10:00", "2026-05-01"]
)
def test_zoneless_time_is_refused_with_a_hint(text: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_datetime_ms(text)
    assert err.value.exit_code == 2
    assert "no time zone" in err.value.message
    assert "add Z" in err.value.hint
    assert "+02:00" in err.value.hint


@pytest.mark.parametrize(
    "text",
    [
        "",
        "yesterday",
        "2026-13-01T00:00:00Z",
        "2026-02-29T00:00:00Z",
        "2026-05-01T24:00:00Z",
        "2026-05-01T10:60:00Z",
        "2026-05-01T10:00:61Z",
        "2026-05-01T10:00:00+24:00",
        "2026-05-01T10:00:00+05:60",
        "2026-05-01T10:00:00 UTC",
        "1969-12-31T23:59:59Z",
        "-5",
        "1.5",
    ],
)
def test_bad_datetimes_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError):
        parse_datetime_ms(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1777629600", MAY_1_10H_UTC),  # seconds
        ("1777629600000", MAY_1_10H_UTC),  # milliseconds
        ("0", 0),
        ("99999999999", 99_999_999_999_000),  # last value read as seconds (year 5138)
        ("100000000000", 100_000_000_000),  # first value read as ms (1973-03-03T09:46:40Z)
    ],
)
def test_epoch_seconds_or_milliseconds_by_magnitude(text: str, expected: int) -> None:
    assert parse_datetime_ms(text) == expected


def test_to_timestamp_is_always_milliseconds() -> None:
    assert parse_timestamp_ms("1777629600000") == MAY_1_10H_UTC
    assert parse_timestamp_ms("1777629600") == 1_777_629_600
    for bad in ("-1", "2026-05-01T10:00:00Z", "", "12ms"):
        with pytest.raises(UsageError):
            parse_timestamp_ms(bad)


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (0, "1970-01-01T00:00:00.000Z"),
        (MAY_1_10H_UTC, "2026-05-01T10:00:00.000Z"),
        (MAY_1_10H_UTC + 7, "2026-05-01T10:00:00.007Z"),
        (1_483_228_799_999, "2016-12-31T23:59:59.999Z"),
        (MAX_MS, "9999-12-31T23:59:59.999Z"),
    ],
)
def test_utc_echo(ms: int, text: str) -> None:
    assert format_utc_ms(ms) == text


def test_echo_of_an_offset_time_is_utc() -> None:
    assert format_utc_ms(parse_datetime_ms("2026-05-01T15:30:00+05:30")) == (
        "2026-05-01T10:00:00.000Z"
    )


@given(st.integers(min_value=0, max_value=MAX_MS))
def test_echo_reads_back_to_the_same_instant(ms: int) -> None:
    assert parse_datetime_ms(format_utc_ms(ms)) == ms


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("PT30M", 1_800_000),
        ("P1DT2H", 93_600_000),
        ("P2W", 1_209_600_000),
        ("P1D", 86_400_000),
        ("PT45S", 45_000),
        ("PT0.5S", 500),
        ("PT1H30M15S", 5_415_000),
        ("pt30m", 1_800_000),
        ("PT0S", 0),
        ("30m", 1_800_000),
        ("2h", 7_200_000),
        ("1d", 86_400_000),
        ("45s", 45_000),
        ("500ms", 500),
        ("1h30m", 5_400_000),
        ("1d2h3m4s5ms", 93_784_005),
        ("2w", 1_209_600_000),
        ("90M", 5_400_000),
    ],
)
def test_durations(text: str, expected: int) -> None:
    assert parse_duration_ms(text) == expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("P1M", "months"),
        ("P1Y", "months"),
        ("P1Y2M3D", "months"),
        ("30", "no unit"),
        ("", "empty"),
        ("P", "no amount"),
        ("PT", "no amount"),
        ("P1DT", "no amount"),
        ("-PT1H", "sign"),
        ("+1h", "sign"),
        ("1m1h", "order"),
        ("1h1h", "order"),
        ("1x", "cannot read"),
        ("1.5h", "cannot read"),
        ("1h 30m", "cannot read"),
        ("PT1.5M", "cannot read"),
    ],
)
def test_bad_durations(text: str, why: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_duration_ms(text)
    assert why in err.value.message


@pytest.mark.parametrize(
    ("ms", "text"), [(0, "0s"), (5_400_000, "1h30m"), (93_784_005, "1d2h3m4s5ms"), (500, "500ms")]
)
def test_duration_echo(ms: int, text: str) -> None:
    assert format_duration_ms(ms) == text
