"""Checks of command-line values shared by several commands, run before any broker is asked."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from kgroup.core.errors import UsageError

T = TypeVar("T")


def option_value(parse: Callable[[str], T], text: str, option: str) -> T:
    """`parse(text)` for the value of `option`; a UsageError it raises names the option first."""
    try:
        return parse(text)
    except UsageError as exc:
        raise UsageError(f"{option}: {exc.message}", hint=exc.hint) from None


def check_group_names(names: Iterable[str] | str | None, *, option: str | None = None) -> None:
    """Refuse (exit 2) an empty or whitespace-only group name.

    Such a name is almost always an unset shell variable rather than a real group, and
    `reset-offsets ""` would otherwise plan and commit offsets for it.
    `option` names the option the value came from (`--from-group`), for the message.
    """
    if names is None:
        return
    where = f"{option}: " if option else ""
    for name in [names] if isinstance(names, str) else names:
        if name == "":
            raise UsageError(
                f"{where}group name must not be empty",
                hint="is a shell variable unset? quote the group name you mean",
            )
        if not name.strip():
            raise UsageError(
                f"{where}group name {name!r} is blank (only whitespace)",
                hint="is a shell variable unset? quote the group name you mean",
            )


def groups_given(positional: list[str] | None, option: list[str] | None) -> list[str]:
    """The groups named positionally and with `--group` (Kafka's spelling), in order, once each.

    Both sources pass `check_group_names`, the `--group` values named as such in the message.
    """
    check_group_names(positional)
    check_group_names(option, option="--group")
    return list(dict.fromkeys([*(positional or []), *(option or [])]))


def positive_duration_ms(text: str, option: str) -> int:
    """A DURATION option's value (1m, 30s, PT5M) in ms, longer than 0; a signed or zero value is
    one line naming the option and the value as given."""
    from kgroup.reset.timespec import parse_duration_ms

    if text.strip()[:1] in ("-", "+"):
        raise UsageError(
            f"{option} {text}: a duration is a length of time, without a sign",
            hint=f"e.g. {option} 5m",
        )
    ms = option_value(parse_duration_ms, text, option)
    if ms <= 0:
        raise UsageError(f"{option} must be longer than 0, got {text!r}", hint=f"e.g. {option} 5m")
    return ms
