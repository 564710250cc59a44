"""Times and durations for timestamp resets: `--to-datetime`, `--to-timestamp`, `--by-duration`.

Sources of truth: RFC 3339 section 5.6 (date-time with a mandatory offset), ISO 8601 durations
(`PnW`, `PnDTnHnMnS`, as Kafka's `--by-duration` takes via `java.time.Duration.parse`), and
Kafka's record timestamps: integer milliseconds since the Unix epoch, UTC (ListOffsets by
timestamp, KIP-79).

Everything is integer arithmetic on UTC milliseconds: no local time, no time zone database,
so no daylight-saving time can enter. Rules:

- A date-time needs a zone (`Z` or `+hh:mm`, `-hh:mm`, `+hhmm`, `+hh`); without one it is
  refused (UsageError), never read as local time or silently as UTC.
- Fractional seconds beyond milliseconds round *up* to the next millisecond: record
  timestamps are whole milliseconds, so "timestamp >= 10.0005 s" means ">= 10.001 s".
- A plain integer is epoch time: below 100,000,000,000 it is seconds, from there on
  milliseconds. 1e11 seconds is the year 5138; 1e11 milliseconds is 1973-03-03T09:46:40Z,
  so the only misreading is a millisecond timestamp before March 1973.
- Durations with years or months are refused (their length depends on the calendar);
  weeks, days, hours, minutes, seconds (fractions allowed) and short forms are accepted.
"""

from __future__ import annotations

import datetime as _dt
import re

from kgroup.core.errors import UsageError
from kgroup.core.timefmt import format_duration_ms, format_utc_ms  # noqa: F401  (their home)

MS_PER_SECOND = 1000
MS_PER_MINUTE = 60 * MS_PER_SECOND
MS_PER_HOUR = 60 * MS_PER_MINUTE
MS_PER_DAY = 24 * MS_PER_HOUR
MS_PER_WEEK = 7 * MS_PER_DAY

#: Plain integers below this are epoch seconds; from here on, epoch milliseconds.
EPOCH_MS_THRESHOLD = 100_000_000_000

_EPOCH_ORDINAL = _dt.date(1970, 1, 1).toordinal()
#: Last millisecond of 9999-12-31, the largest instant RFC 3339 can write.
MAX_MS = (_dt.date(9999, 12, 31).toordinal() - _EPOCH_ORDINAL + 1) * 86_400_000 - 1

_DATETIME_RE = re.compile(
    r"""
    (?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})
    (?:[Tt\ ]
        (?P<hour>\d{2}):(?P<minute>\d{2})
        (?::(?P<second>\d{2})(?:[.,](?P<fraction>\d+))?)?
        (?P<zone>[Zz]|[+-]\d{2}(?::?\d{2})?)?
    )?
    """,
    re.VERBOSE,
)

_ISO_DURATION_RE = re.compile(
    r"""
    P
    (?:(?P<weeks>\d+)W)?
    (?:(?P<days>\d+)D)?
    (?:T
        (?:(?P<hours>\d+)H)?
        (?:(?P<minutes>\d+)M)?
        (?:(?P<seconds>\d+)(?:[.,](?P<fraction>\d+))?S)?
    )?
    """,
    re.VERBOSE | re.IGNORECASE,
)

_SHORT_UNITS = {
    "w": MS_PER_WEEK,
    "d": MS_PER_DAY,
    "h": MS_PER_HOUR,
    "m": MS_PER_MINUTE,
    "s": MS_PER_SECOND,
    "ms": 1,
}
_SHORT_ORDER = ("w", "d", "h", "m", "s", "ms")
_SHORT_PART_RE = re.compile(r"(\d+)(ms|w|d|h|m|s)")

_DATETIME_EXAMPLE = "2026-05-01T10:00:00Z"
_DURATION_HINT = "use an ISO 8601 duration like PT30M or P1DT2H, or 30m, 2h, 1d, 45s, 500ms, 1h30m"


def _ceil_ms_of_fraction(digits: str) -> int:
    """Milliseconds of a decimal fraction of a second, rounded up: "5" -> 500, "0001" -> 1."""
    numerator = int(digits)
    denominator = 10 ** len(digits)
    return -(-numerator * MS_PER_SECOND // denominator)


def _days_from_civil(year: int, month: int, day: int, text: str) -> int:
    try:
        return _dt.date(year, month, day).toordinal() - _EPOCH_ORDINAL
    except ValueError as e:
        raise UsageError(f"invalid date in '{text}': {e}", hint=f"e.g. {_DATETIME_EXAMPLE}") from e


def _zone_offset_ms(zone: str, text: str) -> int:
    """Offset of the zone east of UTC in milliseconds: "+05:30" -> 19,800,000."""
    if zone in ("Z", "z"):
        return 0
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    hours = int(digits[:2])
    minutes = int(digits[2:]) if len(digits) > 2 else 0
    if hours > 23 or minutes > 59:
        raise UsageError(
            f"invalid zone offset '{zone}' in '{text}'", hint="offsets run -23:59..+23:59"
        )
    return sign * (hours * MS_PER_HOUR + minutes * MS_PER_MINUTE)


def _non_blank(text: str, what: str, hint: str) -> str:
    """`text` without surrounding blanks; a UsageError `empty WHAT` when nothing is left."""
    value = text.strip()
    if not value:
        raise UsageError(f"empty {what}", hint=hint)
    return value


def parse_epoch(text: str) -> int:
    """Epoch seconds or milliseconds (by magnitude, see EPOCH_MS_THRESHOLD) -> epoch ms."""
    value = text.strip()
    if not value.isdigit() or not value.isascii():
        raise UsageError(f"'{text}' is not an epoch time", hint="give a non-negative integer")
    number = int(value)
    return _check_range(number if number >= EPOCH_MS_THRESHOLD else number * MS_PER_SECOND, text)


def _check_range(ms: int, text: str) -> int:
    if ms < 0:
        raise UsageError(
            f"'{text}' is before 1970-01-01T00:00:00Z", hint="Kafka timestamps start at the epoch"
        )
    if ms > MAX_MS:
        raise UsageError(f"'{text}' is after the year 9999", hint=f"e.g. {_DATETIME_EXAMPLE}")
    return ms


def parse_datetime_ms(text: str) -> int:
    """`--to-datetime`: an RFC 3339 date-time with a zone, or epoch s/ms -> epoch ms UTC.

    >>> parse_datetime_ms("2026-05-01T10:00:00Z")
    1777629600000
    >>> parse_datetime_ms("2026-05-01T15:30:00.250+05:30")
    1777629600250
    """
    value = _non_blank(text, "date-time", f"e.g. {_DATETIME_EXAMPLE}")
    if value.isdigit():
        return parse_epoch(value)
    match = _DATETIME_RE.fullmatch(value)
    if match is None:
        raise UsageError(
            f"cannot read '{text}' as a date-time",
            hint=f"use RFC 3339 with a zone, e.g. {_DATETIME_EXAMPLE} or 2026-05-01T12:00:00+02:00,"
            " or epoch seconds/milliseconds",
        )
    if match["hour"] is None or match["zone"] is None:
        shown = value if match["hour"] is not None else f"{value}T00:00:00"
        raise UsageError(
            f"'{text}' has no time zone; kgroup does not guess local time or UTC",
            hint=f"add Z for UTC or an offset like +02:00, e.g. {shown}Z",
        )
    year, month, day = int(match["year"]), int(match["month"]), int(match["day"])
    hour, minute = int(match["hour"]), int(match["minute"])
    second = int(match["second"] or 0)
    if hour > 23 or minute > 59 or second > 60:
        raise UsageError(f"invalid time of day in '{text}'", hint=f"e.g. {_DATETIME_EXAMPLE}")
    days = _days_from_civil(year, month, day, text)
    # RFC 3339 allows a leap second (:60); epoch time has none, so it is the next second.
    ms = (
        days * MS_PER_DAY
        + hour * MS_PER_HOUR
        + minute * MS_PER_MINUTE
        + second * MS_PER_SECOND
        + (_ceil_ms_of_fraction(match["fraction"]) if match["fraction"] else 0)
        - _zone_offset_ms(match["zone"], text)
    )
    return _check_range(ms, text)


def parse_timestamp_ms(text: str) -> int:
    """`--to-timestamp`: epoch milliseconds, as Kafka record timestamps are (no guessing)."""
    value = text.strip()
    if not value.isdigit() or not value.isascii():
        raise UsageError(
            f"'{text}' is not a timestamp in epoch milliseconds",
            hint="give a non-negative integer, or use --to-datetime for a date-time",
        )
    return _check_range(int(value), text)


def parse_duration_ms(text: str) -> int:
    """`--by-duration`: ISO 8601 (`PT30M`, `P1DT2H`, `P2W`) or short (`1h30m`, `500ms`) -> ms.

    >>> parse_duration_ms("P1DT2H")
    93600000
    >>> parse_duration_ms("1h30m")
    5400000
    """
    value = _non_blank(text, "duration", _DURATION_HINT)
    if value[0] in "+-":
        raise UsageError(
            f"duration '{text}' has a sign; it is always counted back from now",
            hint=_DURATION_HINT,
        )
    if value[0] in "Pp":
        return _parse_iso_duration(value, text)
    return _parse_short_duration(value, text)


def _parse_iso_duration(value: str, text: str) -> int:
    match = _ISO_DURATION_RE.fullmatch(value)
    if match is None:
        date_part = value[1:].upper().split("T", 1)[0]
        if re.search(r"\d+[YM]", date_part):
            raise UsageError(
                f"duration '{text}' has years or months, whose length depends on the calendar",
                hint="count in days or weeks instead, e.g. P30D",
            )
        raise UsageError(f"cannot read '{text}' as a duration", hint=_DURATION_HINT)
    parts = match.groupdict()
    time_given = "T" in value.upper()
    time_parts = (parts["hours"], parts["minutes"], parts["seconds"])
    if all(p is None for p in parts.values()) or (
        time_given and all(p is None for p in time_parts)
    ):
        raise UsageError(f"duration '{text}' has no amount", hint=_DURATION_HINT)
    total = 0
    for name, unit in (
        ("weeks", MS_PER_WEEK),
        ("days", MS_PER_DAY),
        ("hours", MS_PER_HOUR),
        ("minutes", MS_PER_MINUTE),
        ("seconds", MS_PER_SECOND),
    ):
        if parts[name] is not None:
            total += int(parts[name]) * unit
    if parts["fraction"]:
        total += _ceil_ms_of_fraction(parts["fraction"])
    return total


def _parse_short_duration(value: str, text: str) -> int:
    lowered = value.lower()
    position = 0
    total = 0
    last_rank = -1
    for match in _SHORT_PART_RE.finditer(lowered):
        if match.start() != position:
            break
        unit = match[2]
        rank = _SHORT_ORDER.index(unit)
        if rank <= last_rank:
            raise UsageError(
                f"duration '{text}' repeats a unit or has them out of order",
                hint="write units from largest to smallest, each once, e.g. 1d2h30m",
            )
        last_rank = rank
        total += int(match[1]) * _SHORT_UNITS[unit]
        position = match.end()
    if position != len(lowered) or position == 0:
        if lowered.isdigit():
            raise UsageError(f"duration '{text}' has no unit", hint=_DURATION_HINT)
        raise UsageError(f"cannot read '{text}' as a duration", hint=_DURATION_HINT)
    return total
