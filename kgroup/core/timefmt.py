"""Time formatting shared by every layer, in one place (issue #25 point 3): every instant and
duration kgroup prints or writes is formatted here (tests/unit/test_timefmt_home.py fails on
strftime, gmtime, localtime or isoformat anywhere else).

Instants: `format_utc_ms` (RFC 3339 UTC with milliseconds: reset plans, backups, `decode`),
`format_utc_s` (to the second: the `--watch` headers), `format_utc_compact_ms` (backup file
names), `format_local_clock` (a wall-clock time of day), `utc_now_isoformat` (the sandbox's
state file). Durations, two rules on purpose: `format_duration_ms` is exact (every unit, read
back by --by-duration: plans, notes), `format_lag_ms` rounds to the two largest units (table
cells: describe's and check's lag time, headroom, eta).
"""

from __future__ import annotations

import datetime as _dt
import time as _time

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


def format_utc_s(ms: int) -> str:
    """Epoch milliseconds -> RFC 3339 UTC to the second: 1777629600999 -> ...10:00:00Z (the
    headers of `describe --watch` and `check --watch`)."""
    return format_utc_ms(ms - ms % MS_PER_SECOND)[:-5] + "Z"


def format_utc_compact_ms(ms: int) -> str:
    """Epoch milliseconds -> ISO 8601 basic UTC, safe in a file name: 1777629600007 ->
    20260501T100000007Z (backup files, kgroup.reset.backups)."""
    text = format_utc_ms(ms)
    return text[0:4] + text[5:7] + text[8:13] + text[14:16] + text[17:19] + text[20:23] + "Z"


def format_local_clock(epoch_s: float) -> str:
    """Epoch seconds -> the local time of day, HH:MM:SS (`check`'s "done at" note)."""
    return _time.strftime("%H:%M:%S", _time.localtime(epoch_s))


def utc_now_isoformat() -> str:
    """Now as ISO 8601 UTC to the second with its offset, 2026-05-01T10:00:00+00:00 (the
    sandbox's state file)."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def format_duration_ms(ms: int) -> str:
    """Milliseconds -> exact short form, every unit, largest first: 5400000 -> "1h30m", 0 ->
    "0s" (reset plans, --by-duration echoes, check notes and its sampling bar: text that
    --by-duration reads back)."""
    if ms == 0:
        return "0s"
    out = []
    rest = ms
    for unit, size in _SHORT_UNITS:
        count, rest = divmod(rest, size)
        if count:
            out.append(f"{count}{unit}")
    return "".join(out)


def format_lag_ms(ms: int) -> str:
    """Milliseconds -> its two largest units, as people read a lag: `850ms`, `12s`, `3m12s`,
    `7h50m`, `2d4h`, negative with `-` (table cells only: describe's lag time, check's lag time,
    headroom and eta; JSON and CSV keep the milliseconds). Per row of a large fleet: no loop."""
    if ms < 0:
        return f"-{format_lag_ms(-ms)}"
    if ms < 1000:
        return f"{ms}ms"
    seconds = ms // 1000
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds}s"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours}h{minutes}m"
    days, hours = divmod(hours, 24)
    return f"{days}d{hours}h"
