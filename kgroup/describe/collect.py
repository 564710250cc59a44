"""Gather what `kgroup describe` shows: the I/O edge of the describe engine.

Calls the core in batches (describe all groups, fetch all committed offsets, one ListOffsets
round per spec for every partition of every group), then hands the data to the pure engine.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kgroup.core.admin import GroupAdmin
from kgroup.core.errors import (
    KgroupError,
    NotFoundError,
    UsageError,
    failed_groups_error,
    timed_out,
)
from kgroup.core.models import GroupDescription, TopicMetadata
from kgroup.core.topic_names import missing_topics, require_topics
from kgroup.describe.engine import (
    GroupInput,
    GroupLag,
    build_group_lag,
    lagging_positions,
    partitions_in_view,
    tp_order,
)

# ListGroups types describe and check handle (KIP-848 consumer, KIP-932 share, KIP-1071
# streams); a listed group of another type (one a later Kafka adds) is left out, said once.
HANDLED_TYPES = ("classic", "consumer", "share", "streams")


@dataclass(frozen=True)
class Selection:
    """The groups a command works on, and what the cluster listed that it leaves out."""

    ids: list[str]
    listed: bool  # chosen from the cluster's list (--all-groups, --match), not named
    skipped: dict[str, int] = field(default_factory=dict)  # type -> listed groups left out

    def skipped_note(self, command: str) -> str | None:
        """One line saying which listed groups were left out and why, or None."""
        if not self.skipped:
            return None
        counts = ", ".join(
            f"{n} {kind} group{'s' if n != 1 else ''}" for kind, n in sorted(self.skipped.items())
        )
        return f"{command} skips {counts}: it does not handle groups of that type yet"


def select_groups(
    admin: GroupAdmin, names: Sequence[str], all_groups: bool, match: str | None
) -> Selection:
    """The groups to work on: named ones (in the order given, deduplicated), all, or matching;
    listed groups of a type not in HANDLED_TYPES are left out (counted in `skipped`)."""
    chosen = [bool(names), all_groups, match is not None]
    if sum(chosen) != 1:
        raise UsageError(
            "name the groups to describe in exactly one way",
            hint="give GROUP..., or --all-groups, or --match REGEX",
        )
    if names:
        return Selection(list(dict.fromkeys(names)), listed=False)
    pattern = None
    if match is not None:
        try:
            pattern = re.compile(match)
        except re.error as exc:
            raise UsageError(
                f"--match {match!r} is not a valid regular expression: {exc}",
                hint="e.g. --match '^payments-'",
            ) from None
    listings = admin.list_groups()
    if pattern is not None:
        listings = [g for g in listings if pattern.search(g.group_id)]
        if not listings:
            # nothing to describe is a lookup that failed (exit 3), as a named group that does
            # not exist is, not an empty success
            raise NotFoundError(
                f"no group matches {match}",
                hint="check the pattern against the group ids `kgroup list` shows",
            )
    skipped: dict[str, int] = {}
    ids = []
    for listing in listings:
        if listing.type not in HANDLED_TYPES:
            skipped[listing.type] = skipped.get(listing.type, 0) + 1
        else:
            ids.append(listing.group_id)
    return Selection(sorted(ids), listed=True, skipped=skipped)


def resolve_group_ids(
    admin: GroupAdmin, names: Sequence[str], all_groups: bool, match: str | None
) -> list[str]:
    """The ids `select_groups` chooses."""
    return select_groups(admin, names, all_groups, match).ids


def raise_for_failed_groups(
    groups: Sequence[Any], *, all_groups: bool, match: str | None, verb: str
) -> None:
    """Raise the error a multi-group run ends with when some of `groups` (each with `group`,
    `error` and `error_kind`) failed; return when none did.

    Groups chosen as `resolve_group_ids` does with --all-groups or --match were listed by the
    cluster: one that could not then be handled (deleted meanwhile, ...) is one failed group
    among others, not a failed lookup.
    """
    error = failed_groups_error(
        [(g.group, g.error_kind) for g in groups if g.error],
        len(groups),
        listed=all_groups or match is not None,
        verb=verb,
    )
    if error is not None:
        raise error


def collect_inputs(
    admin: GroupAdmin, group_ids: Sequence[str], offsets: Mapping[str, Any] | None = None
) -> dict[str, GroupInput]:
    """Describe the groups and fetch their committed offsets, both batched (`offsets`: the
    committed offsets just read, group -> offsets or KgroupError, instead of asking again)."""
    from kgroup.core.acl import missing_groups

    descriptions = admin.describe_groups(group_ids)
    if offsets is None:
        offsets = admin.committed_offsets_many(group_ids)
    missing = missing_groups(admin, descriptions, offsets)
    inputs: dict[str, GroupInput] = {}
    for group_id in group_ids:
        description = descriptions.get(group_id) or GroupDescription(group_id, "Unknown")
        committed = offsets.get(group_id, {})
        if description.error is not None:
            kind = "not_found" if description.error_code == "GROUP_ID_NOT_FOUND" else "error"
            kind = "unreachable" if description.unreachable else kind
            inputs[group_id] = GroupInput(description, {}, description.error, kind)
        elif isinstance(committed, KgroupError):
            kind = "not_found" if isinstance(committed, NotFoundError) else "error"
            kind = "unreachable" if timed_out(committed) else kind
            inputs[group_id] = GroupInput(description, {}, committed.one_line(), kind)
        elif group_id in missing:
            inputs[group_id] = GroupInput(
                description, {}, f"group {group_id} does not exist", "not_found"
            )
        else:
            inputs[group_id] = GroupInput(description, committed)
    return inputs


def collect(
    admin: GroupAdmin,
    group_ids: Sequence[str],
    *,
    topics: Mapping[str, Container[int] | None] | None = None,
    read_committed: bool = False,
    lag_time: bool = False,
    now_ms: int | None = None,
    metadata: Mapping[str, TopicMetadata] | None = None,
) -> list[GroupLag]:
    """Everything the offsets view needs, for every group, in a fixed number of request rounds.
    `metadata` (the cluster's topics, internal ones included) is asked for when not given."""
    from kgroup.core.acl import hidden_offsets_message, hidden_topics, require_describable
    from kgroup.core.notes import note

    inputs = collect_inputs(admin, group_ids)
    if metadata is None:
        metadata = admin.topics(include_internal=True)
    hidden = hidden_topics(
        admin, {g: i.description for g, i in inputs.items() if not i.error}, metadata
    )
    for gid, names in hidden.items():
        note(hidden_offsets_message(gid, names))
    counts = {name: topic.partitions for name, topic in metadata.items()}
    unlisted = missing_topics(topics or (), counts)
    if unlisted:  # --topic naming a topic Metadata does not list (issue #24)
        require_describable(admin, unlisted)  # hidden by an ACL: exit 1 naming it
        require_topics(unlisted, counts)  # no such topic: exit 3 naming it
    views = {
        gid: (
            [tp for tp in partitions_in_view(gi, counts, topics) if tp.topic not in hidden[gid]]
            if gid in hidden  # most groups: no topic hidden, no partition to filter
            else partitions_in_view(gi, counts, topics)
        )
        for gid, gi in inputs.items()
    }
    # the groups share their partitions' objects (kgroup.core.wire.convert.partition_of):
    # distinct objects first, by identity (hashed in C), then distinct partitions among those
    # few hundred (TopicPartition's __hash__ runs in Python; 100,000 rows a fleet)
    distinct = {id(tp): tp for tps in views.values() for tp in tps}
    existing = sorted(
        {tp for tp in distinct.values() if tp.partition < counts.get(tp.topic, 0)},
        key=tp_order,
    )
    del distinct
    watermarks = admin.watermarks(existing, read_committed=read_committed) if existing else {}
    results = []
    for gid in group_ids:
        results.append(
            build_group_lag(inputs[gid], views[gid], watermarks, read_committed=read_committed)
        )
    if lag_time or read_committed:
        # One bounded fetch per lagging (partition, committed offset): the first unconsumed
        # record's timestamp for --lag-time, and whether anything is left to consume at all
        # for --read-committed (transaction markers alone are not).
        positions = lagging_positions(results)
        peeked = admin.next_records(sorted(positions), read_committed=read_committed)
        results = [
            build_group_lag(
                inputs[gid],
                views[gid],
                watermarks,
                read_committed=read_committed,
                next_records=peeked,
                now_ms=now_ms if lag_time else None,
            )
            for gid in group_ids
        ]
    return [_note_missing_topics(group, counts) for group in results]


def partition_counts(admin: GroupAdmin) -> dict[str, int]:
    """Topic -> its partition count, internal topics included (one Metadata request)."""
    return {name: t.partitions for name, t in admin.topics(include_internal=True).items()}


def _note_missing_topics(group: GroupLag, counts: Mapping[str, int]) -> GroupLag:
    missing = sorted({r.topic for r in group.rows if r.partition >= counts.get(r.topic, 0)})
    if not missing or group.error:
        return group
    names = ", ".join(missing)
    return dataclasses.replace(
        group,
        error=f"committed offsets for topic(s) that no longer exist: {names}",
        error_kind="error",
    )
