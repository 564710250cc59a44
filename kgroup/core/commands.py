"""The kgroup commands that messages tell the user to run, written so that a POSIX shell runs
them as printed, whatever the group is named (`a b`, `x;rm`, `-dash`)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence


def group_command(words: str, group: str, options: Sequence[str] = ()) -> str:
    """`kgroup WORDS GROUP OPTIONS...`: the group and the options quoted, and a group starting
    with `-` last, after `--` (so it is not read as an option). `words` is kgroup's own text
    (the command and its flags), not quoted."""
    quoted = [shlex.quote(o) for o in options]
    if group.startswith("-"):
        return " ".join(["kgroup", words, *quoted, "--", shlex.quote(group)])
    return " ".join(["kgroup", words, shlex.quote(group), *quoted])
