"""Time formatting shared by every layer, in one place: RFC 3339 UTC instants and short
durations (the reset plans, backups, `decode` tables and `check` notes all print these)."""

from __future__ import annotations

import datetime as _dt

MS_PER_SECOND = 1000
MS_PER_MINUTE = 60 * MS_PER_SECOND
MS_PER_HOUR = 60 * MS_PER_MINUTE
MS_PER_DAY = 24 * MS_PER_HOUR
_EPOCH_ORDINAL = _dt.date(1970, 1, 1).toordinal()
_SHORT_UNITS = (("d", MS_PER_DAY), ("h", MS_PER_HOUR), ("m", MS_PER_MINUTE), ("s", 1000), ("ms", 1))


def format_utc_ms(ms: int) -> str:
    """Epoch milliseconds -> RFC 3339 UTC with milliseconds: 1777629600000 -> ...10:00:00.000Z."""
    days, rest = divmod(ms, MS_PER_DAY)
    date = _dt.date.fromordinal(days + _EPOCH_ORDINAL)
    hour, rest = divmod(rest, MS_PER_HOUR)
    minute, rest = divmod(rest, MS_PER_MINUTE)
    second, milli = divmod(rest, MS_PER_SECOND)
    return (
        f"{date.year:04d}-{date.month:02d}-{date.day:02d}"
        f"T{hour:02d}:{minute:02d}:{second:02d}.{milli:03d}Z"
    )


def format_duration_ms(ms: int) -> str:
    """Milliseconds -> short form, largest units first: 5400000 -> "1h30m", 0 -> "0s"."""
    if ms == 0:
        return "0s"
    out = []
    rest = ms
    for unit, size in _SHORT_UNITS:
        count, rest = divmod(rest, size)
        if count:
            out.append(f"{count}{unit}")
    return "".join(out)
