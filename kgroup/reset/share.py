"""`reset-offsets` for share groups (KIP-932): which strategies Kafka allows, and the writer.

A share group commits no offsets; resetting it sets the start offset of its share partitions
(AlterShareGroupOffsets, `kgroup.core.wire.share_groups`). Kafka's `kafka-share-groups
--reset-offsets` offers `--to-earliest`, `--to-latest` and `--to-datetime` (KIP-932's tool
options); kgroup allows the same three (`--to-timestamp MS` is `--to-datetime` as epoch ms) and
refuses the others with a one-line reason, before the cluster is asked for offsets.

One writer: a share group has no classic membership, so the JoinGroup fence of
`kgroup.core.wire.fence` cannot hold it. Kafka's share coordinator accepts
AlterShareGroupOffsets only while the group has no member (NON_EMPTY_GROUP otherwise), so no
share consumer can join and read between kgroup's check and its write being refused; what it
does not stop is a second administrative writer. kgroup adds the host lock, the compare-and-set
read before the write, the read-back, and a second read 1 s later that reports any change as a
refusal (`fenced: false` in the result).
"""

from __future__ import annotations

from collections.abc import Sequence

from kgroup.core.admin import GroupAdmin
from kgroup.core.errors import UsageError
from kgroup.core.share_groups import share_groups_among
from kgroup.reset.strategy import Strategy, ToEarliest, ToLatest, ToTimestamp

ALLOWED = (ToEarliest, ToLatest, ToTimestamp)


def check_share_strategy(admin: GroupAdmin, group_ids: Sequence[str], strategy: Strategy) -> None:
    """Refuse (usage error, exit 2) a strategy Kafka does not allow for share groups. Learns
    which groups are share groups first, so that their start offsets are read, not
    OffsetFetch's nothing."""
    share = share_groups_among(admin, group_ids)
    if share and not isinstance(strategy, ALLOWED):
        raise UsageError(
            f"{share[0]} is a share group: its start offsets can be reset only to earliest, "
            f"latest or a datetime (as kafka-share-groups allows), not {strategy.describe()}",
            hint="use --to earliest, --to latest or --to-datetime",
        )
