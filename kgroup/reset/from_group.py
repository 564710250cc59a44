"""`reset-offsets --to-group G`: another group's committed offsets, read without changing it.

Anchors: Redpanda `rpk group seek G --to-group G2` (only the partitions G2 has) and kafkactl
`clone consumer-group`. Reading is OffsetFetch (and DescribeGroups when G has no offsets, to
tell an empty group from a missing one, `kgroup.core.acl.missing_groups`): nothing is sent
that could change G.
"""

from __future__ import annotations

from collections.abc import Mapping

from kgroup.core.acl import missing_groups
from kgroup.core.admin import GroupAdmin
from kgroup.core.errors import KgroupError, NotFoundError
from kgroup.core.models import CommittedOffset, TopicPartition
from kgroup.reset.strategy import GivenOffset, ToGroup


def given_from_committed(
    source: str, committed: Mapping[TopicPartition, CommittedOffset]
) -> dict[TopicPartition, GivenOffset]:
    """The source group's offsets as the plan's given offsets (pure).

    The offset and its leader epoch (a fact of the partition's log, KIP-320) are copied; the
    metadata string is the source consumer's own and is not.
    """
    out: dict[TopicPartition, GivenOffset] = {}
    for tp, value in committed.items():
        if value is None or value.offset is None or value.offset < 0:
            continue
        epoch = value.leader_epoch
        if epoch is not None and epoch < 0:
            epoch = None
        out[tp] = GivenOffset(value.offset, None, epoch, f"group {source}")
    return out


def read_source_group(admin: GroupAdmin, strategy: ToGroup) -> dict[TopicPartition, GivenOffset]:
    """The committed offsets of `strategy.source`; NotFoundError (exit 3) when it does not exist."""
    source = strategy.source
    answer = admin.committed_offsets_many([source])[source]
    if isinstance(answer, KgroupError):
        if answer.exit_code == 3:
            raise _not_found(source) from None
        raise answer
    if not answer:
        described = admin.describe_groups([source])
        if source in missing_groups(admin, described, {source: answer}):
            raise _not_found(source)
    return given_from_committed(source, answer)


def _not_found(source: str) -> NotFoundError:
    return NotFoundError(
        f"--to-group {source}: group {source} does not exist (no member, no committed offset)",
        hint="check the name with `kgroup list`; nothing was changed",
    )
