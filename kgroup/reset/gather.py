"""Reading the cluster for a reset plan: every group's committed offsets, the partitions in
scope, their watermarks and offsets at a time, in batches; the planning itself is pure
(`kgroup.reset.planner`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from kgroup.core.acl import missing_groups, require_describable
from kgroup.core.admin import GroupAdmin
from kgroup.core.errors import KgroupError, UsageError
from kgroup.core.models import TopicPartition
from kgroup.reset.from_history import LEFT_OUT_WHY, GroupHistory, check_time, refuse_unreached
from kgroup.reset.guardrails import refuse_empty_plans
from kgroup.reset.model import GroupPlan
from kgroup.reset.planner import (
    GroupInputs,
    TopicSelection,
    parse_topic_option,
    plan_groups,
    resolve_scope,
    selections_for_file,
)
from kgroup.reset.strategy import (
    FromFile,
    GivenOffset,
    Strategy,
    ToCommittedAt,
    ToGroup,
    resolve_timestamp_ms,
)


@dataclass
class ResetScope:
    """Which groups and partitions a reset covers."""

    groups: Sequence[str]
    all_groups: bool = False
    topics: Sequence[str] = ()
    all_topics: bool = False
    # streams groups: internal topics --execute deletes (kgroup.reset.streams)
    delete_all_internal_topics: bool = False
    delete_internal_topics: Sequence[str] = ()


def resolve_groups(admin: GroupAdmin, scope: ResetScope) -> list[str]:
    if bool(scope.groups) == scope.all_groups:
        raise UsageError(
            "name the groups to reset in exactly one way", hint="give GROUP... or --all-groups"
        )
    if scope.groups:
        return list(dict.fromkeys(scope.groups))
    return [g.group_id for g in admin.list_groups()]


def build_plans(
    admin: GroupAdmin,
    scope: ResetScope,
    strategy: Strategy,
    now_ms: int,
    note: Callable[[str], None] = lambda _m: None,
) -> tuple[GroupPlan, ...]:
    """Read the cluster (batched) and plan every group, all or nothing, except a group whose
    offsets cannot be read (its coordinator unreachable until --timeout): that group gets a plan
    without rows saying why (`GroupPlan.error`), in its place, and the others go on."""
    group_ids = resolve_groups(admin, scope)
    if isinstance(strategy, ToCommittedAt):
        strategy = check_time(strategy, now_ms)
    selections: tuple[TopicSelection, ...] = tuple(parse_topic_option(t) for t in scope.topics)
    file_strategy = strategy if isinstance(strategy, FromFile) else None
    if not selections and not scope.all_topics and file_strategy is None:
        raise UsageError(
            "say which partitions to reset", hint="give --topic T (or T:0,2), or --all-topics"
        )
    if selections and scope.all_topics:
        raise UsageError("--topic and --all-topics exclude each other", hint="keep one of them")
    if file_strategy is not None and not file_strategy.groups() and len(group_ids) > 1:
        raise UsageError(
            f"{file_strategy.source} has no group column, so it cannot be "
            "applied to several groups",
            hint="use the group,topic,partition,offset layout, or one group",
        )
    from kgroup.reset.share import check_share_strategy

    check_share_strategy(admin, group_ids, strategy)
    from kgroup.reset.streams import TopicDeletion, read_streams_groups

    deletion = TopicDeletion(scope.delete_all_internal_topics, tuple(scope.delete_internal_topics))
    streams = read_streams_groups(admin, group_ids, deletion)
    topics = admin.topics(include_internal=True)
    # a topic Metadata hides is not authorized, not absent (kgroup.core.acl)
    require_describable(admin, [s.topic for s in selections if s.topic not in topics])
    given, why, histories = _given_offsets(admin, strategy, group_ids, note)
    committed_by_group = admin.committed_offsets_many(group_ids)
    unreadable = {
        g: a
        for g, a in committed_by_group.items()
        if isinstance(a, KgroupError) and a.exit_code != 3
    }
    every_group, group_ids = group_ids, [g for g in group_ids if g not in unreadable]
    scopes: dict[str, tuple[TopicPartition, ...]] = {}
    committed: dict[str, dict] = {}
    refused: dict[str, KgroupError] = {}
    for group in group_ids:
        answer = committed_by_group[group]
        if isinstance(answer, KgroupError):
            answer = {}  # a group that does not exist yet may be given offsets
        committed[group] = answer
        group_selections = selections
        if file_strategy is not None and not selections and not scope.all_topics:
            group_selections = selections_for_file(file_strategy, group)
        known = answer.keys() | given[group].keys() if group in given else answer.keys()
        if scope.all_topics:  # a streams group's input topics (kgroup.reset.streams)
            known = streams.input_offsets(group, known)
        scopes[group] = resolve_scope(
            group_selections, topics, all_topics=scope.all_topics, committed=known
        )
        refusal = streams.scope_refusal(group, scopes[group], answer) if selections else None
        if refusal is not None:
            refused[group] = refusal
            continue
        if histories is not None:
            assert isinstance(strategy, ToCommittedAt)
            refuse_unreached(group, scopes[group], histories[group], strategy.ms)
    group_ids = [g for g in group_ids if g not in refused]
    union = sorted({tp for g in group_ids for tp in scopes[g]})
    watermarks = admin.watermarks(union) if union else {}
    timestamp_ms = resolve_timestamp_ms(strategy, now_ms)
    offsets_for_time = (
        admin.list_offsets(union, timestamp_ms) if timestamp_ms is not None and union else None
    )
    inputs = [
        GroupInputs(
            group,
            scopes[group],
            committed[group],
            {tp: watermarks[tp] for tp in scopes[group]},
            (
                {tp: offsets_for_time[tp] for tp in scopes[group]}
                if offsets_for_time is not None
                else None
            ),
            given=given.get(group),
            left_out_why=why,
            notes=_caveats(histories, group, strategy, scope.all_topics),
        )
        for group in group_ids
    ]
    plans = plan_groups(inputs, strategy, now_ms) if inputs else ()
    if file_strategy is not None and file_strategy.groups():
        others = [g for g in file_strategy.groups() if g not in every_group]
        if others:
            listed = ", ".join(others[:5]) + (
                f" and {len(others) - 5} more" if len(others) > 5 else ""
            )
            plans = tuple(
                replace(
                    p,
                    notes=(
                        *p.notes,
                        f"{file_strategy.source} also has rows for group(s) "
                        f"not named here, ignored: {listed}",
                    ),
                )
                for p in plans
            )
    plans = refuse_empty_plans(
        plans, listed=scope.all_groups, **_empty_reason(scope, file_strategy, group_ids)
    )
    plans = streams.with_deletions(plans, topics)
    return _with_unreadable(
        _mark_missing_groups(admin, plans, committed), every_group, unreadable, strategy, refused
    )


def _with_unreadable(
    plans: tuple[GroupPlan, ...],
    group_ids: Sequence[str],
    unreadable: dict[str, KgroupError],
    strategy: Strategy,
    refused: dict[str, KgroupError] | None = None,
) -> tuple[GroupPlan, ...]:
    """Every group asked, in order: the plans made, and for each group whose offsets could
    not be read, or that a rule refused (`refused`), a plan without rows carrying its error."""
    failed = {
        g: (f"cannot read its committed offsets: {e.one_line()}", e.exit_code)
        for g, e in unreadable.items()
    }
    failed.update({g: (e.one_line(), e.exit_code) for g, e in (refused or {}).items()})
    if not failed:
        return plans
    by_group = {p.group: p for p in plans}
    return tuple(
        by_group[g]
        if g not in failed
        else GroupPlan(g, (), strategy.describe(), error=failed[g][0], error_code=failed[g][1])
        for g in group_ids
        if g in by_group or g in failed
    )


def _given_offsets(
    admin: GroupAdmin, strategy: Strategy, group_ids: Sequence[str], note: Callable[[str], None]
) -> tuple[dict[str, dict[TopicPartition, GivenOffset]], str, dict[str, GroupHistory] | None]:
    """Per group, the offsets `--to-group` / `--to-committed-at` give (empty otherwise), why a
    partition without one is left out, and the histories (to refuse what they cannot tell)."""
    if isinstance(strategy, ToGroup):
        from kgroup.reset.from_group import read_source_group

        copied = read_source_group(admin, strategy)
        why = f"group {strategy.source} has no committed offset there"
        return {g: copied for g in group_ids}, why, None
    if isinstance(strategy, ToCommittedAt):
        from kgroup.reset.from_history import read_history

        histories = read_history(strategy, group_ids, admin=admin, note=note)
        return {g: h.given for g, h in histories.items()}, LEFT_OUT_WHY, histories
    return {}, "", None


def _caveats(
    histories: dict[str, GroupHistory] | None, group: str, strategy: Strategy, all_topics: bool
) -> tuple[str, ...]:
    """What a --to-committed-at plan over --all-topics cannot know (history_choice)."""
    if histories is None or not all_topics or not isinstance(strategy, ToCommittedAt):
        return ()
    from kgroup.reset.history_choice import all_topics_caveat

    caveat = all_topics_caveat(histories[group].coverage, strategy.ms)
    return (caveat,) if caveat else ()


def _empty_reason(
    scope: ResetScope, file_strategy: FromFile | None, group_ids: Sequence[str]
) -> dict[str, str]:
    """Why a group's plan covers no partition, and what to do (refuse_empty_plans)."""
    if file_strategy is not None and not scope.topics and not scope.all_topics:
        others = [g for g in file_strategy.groups() if g not in group_ids]
        only = f" (only for {', '.join(others[:5])})" if others else ""
        return {
            "reason": f"{file_strategy.source} has no rows for it{only}",
            "hint": "name the groups the file holds, or check the file",
        }
    if scope.all_topics:
        return {
            "reason": "it has no committed offset, and --all-topics covers the partitions "
            "with committed offsets",
            "hint": "name the partitions with --topic T (or T:0,2)",
        }
    return {
        "reason": "no partition in scope",
        "hint": "name the partitions with --topic T (or T:0,2)",
    }


def _mark_missing_groups(
    admin: GroupAdmin, plans: tuple[GroupPlan, ...], committed: dict[str, dict]
) -> tuple[GroupPlan, ...]:
    """Flag plans of groups that do not exist: no committed offset in sight, and a Dead or
    unknown group as `kgroup.core.acl.missing_groups` tells it (an Empty group whose offsets are
    all on topics ACLs hide exists)."""
    candidates = [p.group for p in plans if not committed.get(p.group)]
    if not candidates:
        return plans
    described = admin.describe_groups(candidates)
    missing = missing_groups(
        admin, {g: described[g] for g in candidates}, {g: committed.get(g) for g in candidates}
    )
    return tuple(
        replace(
            p,
            exists=False,
            notes=(
                *p.notes,
                f"group {p.group} does not exist (no member, no committed offset): --execute "
                "refuses to create it (exit 3) unless --allow-new-group",
            ),
        )
        if p.group in missing
        else p
        for p in plans
    )
