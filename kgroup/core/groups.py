"""Group listing with the state and member count ListGroups alone does not give reliably.

Deleting groups and committed offsets, with kgroup's safety policy, is the run layer
`kgroup.delete.groups`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kgroup.core.admin import GROUP_STATES, GROUP_TYPES, GroupAdmin
from kgroup.core.errors import UsageError


def parse_state_filter(values: Iterable[str]) -> set[str]:
    """Kafka state names from user input (case-insensitive); unknown names are usage errors."""
    by_lower = {s.lower(): s for s in GROUP_STATES}
    chosen = set()
    for value in values:
        for item in filter(None, (v.strip() for v in value.split(","))):
            if item.lower() not in by_lower:
                raise UsageError(
                    f"unknown group state {item!r}", hint=f"use one of {', '.join(GROUP_STATES)}"
                )
            chosen.add(by_lower[item.lower()])
    return chosen


def parse_type_filter(value: str | None) -> set[str]:
    if not value:
        return set()
    chosen = {v.strip().lower() for v in value.split(",") if v.strip()}
    unknown = chosen - set(GROUP_TYPES)
    if unknown:
        raise UsageError(
            f"unknown group type {sorted(unknown)[0]!r}",
            hint=f"use one of {', '.join(GROUP_TYPES)}",
        )
    return chosen


def list_groups_with_state(
    admin: GroupAdmin, *, states: set[str] | None = None, types: set[str] | None = None
) -> list[dict[str, Any]]:
    """Rows `group state type protocol_type members`, sorted by group.

    ListGroups gives ids and types; DescribeGroups gives the state and members (some brokers,
    tansu among them, report every listed state as Unknown). Filters apply to the described state.
    """
    listings = admin.list_groups()
    if types:
        listings = [g for g in listings if g.type in types]
    described = admin.describe_groups([g.group_id for g in listings])
    rows = []
    for listing in listings:
        description = described.get(listing.group_id)
        state = listing.state
        members: int | None = None
        protocol_type = listing.protocol_type
        if description is not None and description.error is None:
            if description.state != "Unknown" or state == "Unknown":
                state = description.state
            members = len(description.members)
        rows.append(
            {
                "group": listing.group_id,
                "state": state,
                "type": listing.type,
                "protocol_type": protocol_type,
                "members": members,
            }
        )
    if states:
        rows = [r for r in rows if r["state"] in states]
    return sorted(rows, key=lambda r: r["group"])
