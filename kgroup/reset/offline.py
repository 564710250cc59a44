"""`reset-offsets --to-committed-at TIME --segments DIR` without `--execute`: the plan from a
copy of `__consumer_offsets` alone, with no cluster (to review, or `--export` and apply later
with `--from-file`, which reads the cluster, clamps and executes as every reset does).

Offline there is no metadata: `--topic T` means the partitions of T the group had an offset
for at TIME (name them, `T:0-5`, to have the others checked and listed); `--all-topics` every
partition it had one for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kgroup.core.errors import UsageError
from kgroup.core.models import TopicPartition
from kgroup.reset.from_history import LEFT_OUT_WHY, check_time, read_history, refuse_unreached
from kgroup.reset.history_choice import all_topics_caveat
from kgroup.reset.model import GroupPlan
from kgroup.reset.planner import GroupInputs, parse_topic_option, plan_groups
from kgroup.reset.strategy import ToCommittedAt

if TYPE_CHECKING:
    from kgroup.reset.run import ResetOptions

OFFLINE_MAX_PARTITIONS = 100_000  # partition ids of a named range looked at without metadata


def offline_plans(
    opts: ResetOptions, strategy: ToCommittedAt, now_ms: int, note: Callable[[str], None]
) -> tuple[GroupPlan, ...]:
    """Plan every named group from the segments (no cluster)."""
    if opts.all_groups or not opts.groups:
        raise UsageError(
            "--segments plans named groups: give GROUP... (--all-groups needs the cluster)",
            hint="e.g. kgroup reset-offsets billing --to-committed-at 2h --segments DIR",
        )
    asked = "--delete-all-internal-topics" if opts.delete_all_internal_topics else None
    if opts.delete_internal_topics:
        asked = "--delete-internal-topic"
    if asked is not None:  # the topology is the cluster's: the plan could not list the topics
        raise UsageError(
            f"{asked} needs the cluster (a streams group's topology names its internal topics); "
            "a dry run from --segments reads none",
            hint="run the dry run without --segments (the history is then read live): its plan "
            "lists the topics --execute deletes",
        )
    selections = [parse_topic_option(t) for t in opts.topics]
    if bool(selections) == opts.all_topics:
        raise UsageError(
            "say which partitions to reset: --topic T (or T:0,2), or --all-topics",
            hint="--topic and --all-topics exclude each other",
        )
    resolved = check_time(strategy, now_ms)
    groups = list(dict.fromkeys(opts.groups))
    histories = read_history(resolved, groups, note=note)
    inputs = []
    for group in groups:
        history = histories[group]
        scope: set[TopicPartition] = set()
        if opts.all_topics:
            scope.update(history.given)
        for sel in selections:
            if sel.partitions is None:
                scope.update(tp for tp in history.given if tp.topic == sel.topic)
            else:
                named = sel.partitions.within(OFFLINE_MAX_PARTITIONS)
                scope.update(TopicPartition(sel.topic, p) for p in named)
        partitions = sorted(scope)
        refuse_unreached(group, partitions, history, resolved.ms)
        caveat = all_topics_caveat(history.coverage, resolved.ms) if opts.all_topics else None
        inputs.append(
            GroupInputs(
                group,
                partitions,
                {},
                {},
                given=history.given,
                left_out_why=LEFT_OUT_WHY,
                offline=True,
                notes=(caveat,) if caveat else (),
            )
        )
    return plan_groups(inputs, resolved, now_ms)
