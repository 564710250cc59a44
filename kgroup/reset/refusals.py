"""Why `reset-offsets --execute` refuses a group before touching it: active members (Kafka
refuses too), another kgroup run holding it, a protected group, a group that does not exist, a
move beyond --max-rewind/--max-skip; and --wait-empty's polling."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from kgroup.core.admin import GroupAdmin
from kgroup.core.errors import KgroupError, NotFoundError, SafetyRefusal
from kgroup.core.models import GroupDescription
from kgroup.reset.model import GroupPlan

ACTIVE_STATES = {"Stable", "PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling"}


@dataclass(frozen=True)
class Guards:
    """The operator's guardrails for --execute (and the checks a dry run reports)."""

    allow_new_group: bool = False
    force: bool = False
    max_rewind: object = None  # guardrails.Limit | None
    max_skip: object = None  # guardrails.Limit | None


def guard_refusal(
    admin: GroupAdmin, plan: GroupPlan, guards: Guards, now_ms: int
) -> KgroupError | None:
    """Why --execute would refuse this plan before touching the group, or None:
    a protected group, a group that does not exist, a move beyond --max-rewind/--max-skip."""
    from kgroup.reset import guardrails

    refusal = guardrails.protection_refusal(
        plan.group, guardrails.protected_patterns(), force=guards.force
    )
    if refusal is not None:
        return refusal
    if not plan.exists and not guards.allow_new_group:
        return NotFoundError(
            f"group {plan.group} does not exist (no member, no committed offset); "
            "a reset would create it",
            hint="check the group name (kgroup list); to create it with these offsets, add "
            "--allow-new-group",
        )
    if guards.force:
        return None
    violations = limit_violations(admin, plan, guards, now_ms)
    if violations:
        more = f" and {len(violations) - 3} more" if len(violations) > 3 else ""
        return SafetyRefusal(
            f"group {plan.group}: the plan goes beyond the limits: "
            f"{'; '.join(violations[:3])}{more}",
            hint="check the plan; add --force to execute it anyway",
        )
    return None


def limit_violations(admin: GroupAdmin, plan: GroupPlan, guards: Guards, now_ms: int) -> list[str]:
    """One line per partition of `plan` beyond --max-rewind/--max-skip (reads record times for
    duration limits); empty when within the limits or when there are none."""
    from kgroup.reset import guardrails

    if guards.max_rewind is None and guards.max_skip is None:
        return []
    needed = guardrails.offsets_needing_times(plan, guards.max_rewind, guards.max_skip)
    times: dict = {}
    if needed:
        found = admin.next_records(sorted(needed))
        times = {key: (rec.timestamp if rec.consumable else None) for key, rec in found.items()}
    return guardrails.check_limits(plan, guards.max_rewind, guards.max_skip, times, now_ms=now_ms)


def mark_forced(
    admin: GroupAdmin, plans: Sequence[GroupPlan], guards: Guards, now_ms: int
) -> tuple[GroupPlan, ...]:
    """With --force, each plan carries the limit violations --force overrides (`forced`), so
    the plan, the result, the JSON and the backup say so; without --force, the plans as given."""
    if not guards.force:
        return tuple(plans)
    return tuple(
        replace(plan, forced=tuple(violations))
        if (violations := limit_violations(admin, plan, guards, now_ms))
        else plan
        for plan in plans
    )


def wait_until_empty(admin: GroupAdmin, groups: Sequence[str], timeout_s: float, note=None) -> None:
    """--wait-empty: poll until every group has no member, or refuse (exit 4) at the timeout."""
    deadline = time.monotonic() + timeout_s
    while True:
        described = admin.describe_groups(list(groups))
        busy = {g: d for g, d in described.items() if active_member_refusal(d) is not None}
        if not busy:
            return
        if time.monotonic() >= deadline:
            names = ", ".join(
                f"{g} ({d.state}, {len(d.members)} member(s))" for g, d in busy.items()
            )
            raise SafetyRefusal(
                f"still not empty after {timeout_s:g} s: {names}",
                hint="stop the group's consumers, or wait longer with --wait-empty",
            )
        if note is not None:
            note(f"waiting for {', '.join(sorted(busy))} to become empty")
        time.sleep(min(2.0, max(0.1, deadline - time.monotonic())))


def active_member_refusal(description: GroupDescription) -> SafetyRefusal | None:
    """Why offsets cannot be changed now, or None when the group is inactive."""
    if description.error is not None and description.error_code != "GROUP_ID_NOT_FOUND":
        return SafetyRefusal(
            f"cannot tell whether group {description.group_id} is active: {description.error}",
            hint="retry when the group can be described",
        )
    fences = [m for m in description.members if _is_kgroup_fence(m.member_id, m.client_id)]
    if fences and len(fences) == len(description.members):
        return SafetyRefusal(
            f"another kgroup run is changing the offsets of group {description.group_id} "
            f"right now (member {fences[0].member_id})",
            hint="wait for it to finish, then make a new plan and check it",
        )
    if description.members:
        names = ", ".join(
            m.member_id + (f" (client {m.client_id}, host {m.host})" if m.client_id else "")
            for m in description.members[:5]
        )
        more = f" and {len(description.members) - 5} more" if len(description.members) > 5 else ""
        return SafetyRefusal(
            f"group {description.group_id} has {len(description.members)} active member(s): "
            f"{names}{more}",
            hint="stop the consumers of this group first (Kafka refuses offset changes while "
            "members are active)",
        )
    if description.state in ACTIVE_STATES or description.state == "Unknown":
        return SafetyRefusal(
            f"group {description.group_id} is {description.state}; offsets can only change "
            "while it is Empty",
            hint="stop the consumers of this group first, then retry",
        )
    return None


def _is_kgroup_fence(member_id: str, client_id: str | None) -> bool:
    from kgroup.core.wire.fence import CLIENT_ID_PREFIX

    return member_id.startswith(CLIENT_ID_PREFIX) or (client_id or "").startswith(CLIENT_ID_PREFIX)
