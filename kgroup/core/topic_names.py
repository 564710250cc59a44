"""Topics a command names (`--topic`) that the cluster does not have: exit 3 naming them.

The rule for `describe --topic` (issue #24 item 9); `reset-offsets` and `delete-offsets` check
topics and partitions together in `kgroup.reset.planner.resolve_scope` (exit 3 as well). Pure:
the caller passes the names the cluster's Metadata listed.

A topic the principal may not Describe is left out of an all-topics Metadata answer just like a
topic that does not exist: callers first ask for the unlisted names by name
(`kgroup.core.acl.require_describable`: TOPIC_AUTHORIZATION_FAILED is exit 1 naming the ACL),
then apply this rule to what is left.
"""

from __future__ import annotations

from collections.abc import Container, Iterable

from kgroup.core.errors import NotFoundError


class TopicsNotFound(NotFoundError):
    """Named topics the cluster does not have; `topics` lists them (exit 3)."""

    def __init__(self, topics: Iterable[str], hint: str | None = None) -> None:
        self.topics = tuple(sorted(set(topics)))
        names = ", ".join(self.topics)
        noun = "topic" if len(self.topics) == 1 else "topics"
        verb = "does" if len(self.topics) == 1 else "do"
        super().__init__(f"{noun} {names} {verb} not exist", hint)


def missing_topics(named: Iterable[str], listed: Container[str]) -> list[str]:
    """The names in `named` that are not in `listed`, sorted, each once."""
    return sorted({name for name in named if name not in listed})


def require_topics(
    named: Iterable[str], listed: Container[str], *, hint: str | None = None
) -> None:
    """Raise TopicsNotFound (exit 3) naming every topic of `named` not in `listed`."""
    missing = missing_topics(named, listed)
    if missing:
        raise TopicsNotFound(
            missing, hint or "check the name (`kgroup describe GROUP` lists a group's topics)"
        )
