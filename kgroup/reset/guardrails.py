"""Guardrails of offset changes: rewind/skip limits and protected groups (pure, no Kafka I/O).

Source of truth: CLI.md exit codes (2 usage error, 4 safety refusal) and the brief of
`--max-rewind`, `--max-skip` and `--force`. Nothing here talks to Kafka and nothing reads the
clock (`now_ms` is passed in); the config readers read a file and the environment.

Limits
------
`parse_limit("1000", "--max-rewind")` -> a message count; `parse_limit("2h", "--max-skip")` ->
a duration (ISO 8601 `PT30M`, `P1DT2H` or short `30m`, `2h`, `1d`, as `--by-duration`).
`check_limits(plan, max_rewind, max_skip, record_times, now_ms=...)` returns one violation
line per partition that breaks a limit, in plan row order; empty means the plan is within
its limits. A rewind is `new_offset < current_offset`, a skip `new_offset > current_offset`;
rows without both offsets are not limited. A span is exceeded when strictly greater than
the limit (moving back exactly 1000 messages is allowed by `--max-rewind 1000`).

A duration limit is measured with record timestamps: `record_times[(tp, offset)]` is the
timestamp of the record at that offset. An offset at or past the row's log end has no
record: it counts as `now_ms` (so `offsets_needing_times` leaves it out). Any other
timestamp the caller could not give (missing key or None) makes the partition a violation
saying its time span could not be measured: the safe side.

Config files (XDG Base Directory spec; `$XDG_CONFIG_HOME`, default `~/.config`)
-----------------------------------------------------------------------------
`kgroup/protected-groups`: one regex per line; a line whose first non-blank character is
`#` is a comment (only whole-line comments: a regex may contain `#`), blank lines are
ignored, surrounding whitespace is stripped. `KGROUP_PROTECTED_GROUPS` adds regexes
separated by commas; a regex that needs a literal comma (`a{1,3}`, `[,]`) must go in the file.
A pattern protects a group when it matches the whole name (`re.fullmatch`).

`kgroup/reset.properties`: `max.rewind=N|DURATION` and `max.skip=N|DURATION`, `#` comment
lines; defaults the command line overrides.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from kgroup.core.errors import NotFoundError, SafetyRefusal, UsageError
from kgroup.reset.model import GroupPlan, PlanRow, TopicPartition
from kgroup.reset.timespec import (
    MS_PER_DAY,
    MS_PER_HOUR,
    MS_PER_MINUTE,
    MS_PER_SECOND,
    parse_duration_ms,
)

__all__ = [
    "PROTECTED_GROUPS_ENV",
    "Limit",
    "check_limits",
    "config_dir",
    "configured_limits",
    "offsets_needing_times",
    "parse_limit",
    "protected_match",
    "protected_patterns",
    "protection_refusal",
    "refuse_empty_plans",
]

PROTECTED_GROUPS_ENV = "KGROUP_PROTECTED_GROUPS"
PROTECTED_GROUPS_FILE = "protected-groups"
RESET_PROPERTIES_FILE = "reset.properties"
_LIMIT_KEYS = {"max.rewind": "--max-rewind", "max.skip": "--max-skip"}
_LIMIT_HINT = (
    "give a non-negative message count like 1000, or a duration like 30m, 2h, 1d, PT30M, P1DT2H"
)

TimeKey = tuple[TopicPartition, int]


@dataclass(frozen=True, slots=True)
class Limit:
    """A `--max-rewind` / `--max-skip` limit: a message count or a duration (exactly one set).

    `text` is the value as the user wrote it, to echo in violation lines.
    """

    messages: int | None
    duration_ms: int | None
    text: str


def parse_limit(text: str, option: str) -> Limit:
    """`--max-rewind N|DURATION` / `--max-skip N|DURATION` -> Limit; UsageError when bad."""
    value = text.strip()
    if value.isascii() and value.isdigit():
        return Limit(messages=int(value), duration_ms=None, text=value)
    if not value:
        raise UsageError(f"{option} needs a value, got '{text}'", hint=_LIMIT_HINT)
    try:
        duration_ms = parse_duration_ms(value)
    except UsageError as error:
        raise UsageError(
            f"{option} needs a message count or a duration, got '{text}' ({error.message})",
            hint=error.hint or _LIMIT_HINT,
        ) from None
    return Limit(messages=None, duration_ms=duration_ms, text=value)


# ---------------------------------------------------------------------------------------------
# Checking a plan against the limits


def _format_span(ms: int, limit_ms: int) -> str:
    """A span for a violation line, largest units first with spaces: "3h 10m".

    Whole seconds are enough unless rounding down would hide that the span is over the limit.
    """
    whole = ms - ms % MS_PER_SECOND
    shown = ms if ms < MS_PER_SECOND or whole <= limit_ms else whole
    if shown == 0:
        return "0s"
    parts = []
    rest = shown
    for unit, size in (
        ("d", MS_PER_DAY),
        ("h", MS_PER_HOUR),
        ("m", MS_PER_MINUTE),
        ("s", MS_PER_SECOND),
        ("ms", 1),
    ):
        count, rest = divmod(rest, size)
        if count:
            parts.append(f"{count}{unit}")
    return " ".join(parts)


def _limit_for(
    row: PlanRow, max_rewind: Limit | None, max_skip: Limit | None
) -> tuple[str, str, Limit] | None:
    """(verb, option, limit) for a row that moves under a limit, else None."""
    delta = row.delta
    if delta is None or delta == 0:
        return None
    if delta < 0:
        return ("moves back", "--max-rewind", max_rewind) if max_rewind is not None else None
    return ("skips", "--max-skip", max_skip) if max_skip is not None else None


def _past_log_end(row: PlanRow, offset: int) -> bool:
    return row.log_end_offset is not None and offset >= row.log_end_offset


def offsets_needing_times(
    plan: GroupPlan, max_rewind: Limit | None, max_skip: Limit | None
) -> set[TimeKey]:
    """(partition, offset) pairs whose record timestamps the duration limits need.

    Both ends of every rewind (skip) under a duration `max_rewind` (`max_skip`), except
    offsets at or past the row's log end: they have no record and count as now.
    """
    needed: set[TimeKey] = set()
    for row in plan.rows:
        found = _limit_for(row, max_rewind, max_skip)
        if found is None or found[2].duration_ms is None:
            continue
        tp = row.topic_partition
        for offset in (row.current_offset, row.new_offset):
            if offset is not None and not _past_log_end(row, offset):
                needed.add((tp, offset))
    return needed


def check_limits(
    plan: GroupPlan,
    max_rewind: Limit | None,
    max_skip: Limit | None,
    record_times: Mapping[TimeKey, int | None] | None,
    *,
    now_ms: int | None = None,
) -> list[str]:
    """One violation line per partition of `plan` that breaks a limit, in row order.

    `record_times` maps (partition, offset) -> timestamp (ms) of the record at that offset
    (None: no record); only needed for duration limits, see `offsets_needing_times`.
    `now_ms` is the time an offset at or past the log end counts as; without it such a span
    cannot be measured and is reported as a violation.
    """
    times = record_times or {}
    violations = []
    for row in plan.rows:
        found = _limit_for(row, max_rewind, max_skip)
        if found is None:
            continue
        verb, option, limit = found
        assert row.current_offset is not None and row.new_offset is not None
        tp = row.topic_partition
        count = abs(row.new_offset - row.current_offset)
        if limit.messages is not None:
            if count > limit.messages:
                violations.append(f"{tp} {verb} {count} messages (limit {option} {limit.text})")
            continue
        assert limit.duration_ms is not None
        ends = []
        for offset in (row.current_offset, row.new_offset):
            ts = times.get((tp, offset))
            if ts is None and _past_log_end(row, offset):
                ts = now_ms
            ends.append(ts)
        current_ts, new_ts = ends
        if current_ts is None or new_ts is None:
            violations.append(
                f"{tp} {verb} {count} messages whose time span could not be measured "
                f"(limit {option} {limit.text})"
            )
            continue
        span = abs(new_ts - current_ts)
        if span > limit.duration_ms:
            violations.append(
                f"{tp} {verb} {_format_span(span, limit.duration_ms)} of records "
                f"(limit {option} {limit.text})"
            )
    return violations


# ---------------------------------------------------------------------------------------------
# Plans with nothing to do


def refuse_empty_plans(
    plans: Sequence[GroupPlan], *, listed: bool, reason: str, hint: str
) -> tuple[GroupPlan, ...]:
    """Plans covering no partition are refused (NotFoundError, exit 3): nothing to reset was
    found, so nothing is committed, exported or backed up (an empty "success" would say a
    reset happened). With `listed` (--all-groups), such groups are left out, noted on the
    others' plans, and only a plan left with no group at all is refused."""
    empty = [p.group for p in plans if not p.rows]
    if not empty:
        return tuple(plans)
    kept = [p for p in plans if p.rows]
    names = ", ".join(empty[:5]) + (f" and {len(empty) - 5} more" if len(empty) > 5 else "")
    if listed and kept:
        note = f"left out, no partition in scope ({reason}): {names}"
        return tuple(replace(p, notes=(*p.notes, note)) for p in kept)
    raise NotFoundError(
        f"nothing to reset for group(s) {names}: {reason}; nothing was written", hint=hint
    )


# ---------------------------------------------------------------------------------------------
# Configuration: protected groups and limit defaults


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """kgroup's config directory: `$XDG_CONFIG_HOME/kgroup`, default `~/.config/kgroup`.

    A relative XDG_CONFIG_HOME is ignored, as the XDG Base Directory spec says.
    """
    environ = os.environ if env is None else env
    base = environ.get("XDG_CONFIG_HOME") or ""
    if not os.path.isabs(base):
        home = environ.get("HOME") or os.path.expanduser("~")
        base = os.path.join(home, ".config")
    return Path(base) / "kgroup"


def _read_lines(path: Path) -> list[str] | None:
    """The lines of a settings file, None when it does not exist; UsageError (exit 2) when it
    is not a regular file, too large, unreadable or not UTF-8 (kgroup.core.files)."""
    from kgroup.core.files import SETTINGS, read_text

    if not os.path.lexists(path):
        return None
    return read_text(path, SETTINGS, hint="fix or remove the file").splitlines()


def _compile(regex: str, where: str, hint: str) -> re.Pattern[str]:
    try:
        return re.compile(regex)
    except re.error as error:
        raise UsageError(f"{where}: bad regex '{regex}': {error}", hint=hint) from None


def protected_patterns(env: Mapping[str, str] | None = None) -> list[re.Pattern[str]]:
    """Protected-group regexes: KGROUP_PROTECTED_GROUPS (comma-separated), then the file.

    `env` defaults to `os.environ` (also where XDG_CONFIG_HOME and HOME are read). A bad
    regex is a UsageError naming the variable or `file:line`.
    """
    environ = os.environ if env is None else env
    patterns = []
    for item in (environ.get(PROTECTED_GROUPS_ENV) or "").split(","):
        regex = item.strip()
        if regex:
            patterns.append(
                _compile(
                    regex,
                    PROTECTED_GROUPS_ENV,
                    "separate regexes with commas; put a regex with a literal comma in "
                    f"{config_dir(env) / PROTECTED_GROUPS_FILE}",
                )
            )
    path = config_dir(env) / PROTECTED_GROUPS_FILE
    for number, line in enumerate(_read_lines(path) or (), start=1):
        regex = line.strip()
        if regex and not regex.startswith("#"):
            patterns.append(_compile(regex, f"{path}:{number}", "one Python regex per line"))
    return patterns


def protected_match(group: str, patterns: Iterable[re.Pattern[str]]) -> str | None:
    """The text of the first pattern matching the whole group name, or None."""
    for pattern in patterns:
        if pattern.fullmatch(group):
            return pattern.pattern
    return None


def protection_refusal(
    group: str, patterns: Iterable[re.Pattern[str]], *, force: bool = False
) -> SafetyRefusal | None:
    """Why a protected group may not be deleted (without --force), or None."""
    if force:
        return None
    pattern = protected_match(group, patterns)
    if pattern is None:
        return None
    return SafetyRefusal(
        f"group {group} is protected (matches protected-group pattern '{pattern}')",
        hint="pass --force to override the protection",
    )


def configured_limits(
    env: Mapping[str, str] | None = None,
) -> tuple[Limit | None, Limit | None]:
    """(max_rewind, max_skip) defaults from `$XDG_CONFIG_HOME/kgroup/reset.properties`.

    Missing file or key: None. Unknown keys, lines without `=`, repeated keys and bad
    values are UsageErrors naming `file:line`.
    """
    path = config_dir(env) / RESET_PROPERTIES_FILE
    known = ", ".join(_LIMIT_KEYS)
    found: dict[str, tuple[Limit, int]] = {}
    for number, line in enumerate(_read_lines(path) or (), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        where = f"{path}:{number}"
        key, sep, value = stripped.partition("=")
        key = key.strip()
        if not sep:
            raise UsageError(
                f"{where}: expected key=value, got '{stripped}'", hint=f"keys: {known}"
            )
        if key not in _LIMIT_KEYS:
            raise UsageError(f"{where}: unknown key '{key}'", hint=f"known keys: {known}")
        if key in found:
            raise UsageError(
                f"{where}: '{key}' is already set on line {found[key][1]}",
                hint="keep one line per key",
            )
        try:
            limit = parse_limit(value, key)
        except UsageError as error:
            raise UsageError(f"{where}: {error.message}", hint=error.hint) from None
        found[key] = (limit, number)
    rewind = found.get("max.rewind")
    skip = found.get("max.skip")
    return (rewind[0] if rewind else None, skip[0] if skip else None)
