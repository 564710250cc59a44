"""The local engine's views of `__share_group_state` segments: the record stream, `--latest`
(per share-partition, its last ShareSnapshot and the ShareUpdates after it) and `--summary`
(per share-partition, its start offset and epochs), replayed by `kgroup.offsets.share_state`.

The compiled scanner knows `__consumer_offsets`' record ids only; on Spark the same code runs
once per partition (`kgroup.scan.share_spark`).
"""

from __future__ import annotations

from typing import Any

from kgroup.core.errors import UsageError
from kgroup.offsets.decode import DecodedRecord, jsonable
from kgroup.offsets.share_state import TOPIC, ShareReplay
from kgroup.scan.api import LocalScan
from kgroup.scan.local import ScanStats


class ShareViews:
    """`--latest`, `--as-of` and `--summary` of `__share_group_state`, once for both engines:
    an engine gives `_replay(view)` (the replayed state; `view` is "latest" or "summary") and
    `stats`; the views count what they emit."""

    share = True
    stats: ScanStats

    def _replay(self, view: str) -> ShareReplay:
        raise NotImplementedError

    def latest(self) -> list[DecodedRecord]:
        out = self._replay("latest").latest()
        self.stats.emitted += len(out)
        return out

    def as_of(self, when: int) -> list[DecodedRecord]:
        raise UsageError(
            f"--as-of replays offset commits; {TOPIC} holds none",
            hint="use --latest or --summary for share-group state",
        )

    def summary(self) -> list[dict[str, Any]]:
        rows = [jsonable(r) for r in self._replay("summary").rows()]
        self.stats.emitted += len(rows)
        return rows


class ShareScan(ShareViews, LocalScan):
    """`LocalScan` over `__share_group_state` segments."""

    def _replay(self, view: str) -> ShareReplay:
        replay = ShareReplay(keep_records=view == "latest")
        replay.apply_all(self.engine.plain(self.source()))
        self.stats.emitted = 0  # plain() counted the records read; the view counts its own
        return replay
