"""The Spark engine's views of `__share_group_state` segments (KIP-932): one Spark task per
partition of the topic, each decoding and replaying its partition's segments with the local
engine's code (`kgroup.offsets.share_state`), the driver merging the partitions' answers.

Why per partition: the share coordinator keeps a share-partition's state in one partition of
`__share_group_state` (`ShareCoordinatorService.partitionFor(SharePartitionKey)`), replayed in
log order, so partitions replay independently, like `__consumer_offsets`' groups. A key found in
several partitions (copies of several clusters mixed) keeps the state of the partition read
last, as the local replay does. Results: the record stream in input order, `--latest` sorted
by (partition, offset) and `--summary` by (group, topic id, partition), as the local engine
gives them; `--out` writes JSON Lines, as the local engine (the Parquet layouts are
`__consumer_offsets`').

The tasks run through `SparkContext.parallelize(...).map(...)`: a partition's records come
back pickled, which for this topic (a few records per share-partition) costs less than the
Arrow path of `kgroup.scan.spark` needs to set up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING, Any

from kgroup.offsets import segments as seg
from kgroup.offsets.decode import DecodedRecord
from kgroup.offsets.share_state import ShareReplay
from kgroup.scan.local import DecodeFilter, ScanStats, SegmentInput
from kgroup.scan.share_scan import ShareViews

if TYPE_CHECKING:
    from kgroup.scan.spark_jobs import TaskReport


def partition_groups(inputs: list[SegmentInput]) -> list[list[SegmentInput]]:
    """The inputs by partition directory, partitions in the order of their first file."""
    groups: dict[Any, list[SegmentInput]] = {}
    for item in inputs:
        key = item.partition if item.partition is not None else item.source
        groups.setdefault(key, []).append(item)
    return list(groups.values())


def run_partition(
    items: list[SegmentInput], flt: DecodeFilter, skip_corrupt: bool, view: str
) -> dict[str, Any]:
    """One task: decode (and for `latest`/`summary` replay) one partition's segments. Returns
    the view's rows, the problems and the counts of the local engine's stats."""
    from kgroup.scan.local import LocalEngine

    eng = LocalEngine(flt, skip_corrupt=skip_corrupt)
    recs = eng.plain(eng.segment_records(items))
    out: dict[str, Any] = {}
    if view == "records":
        out["records"] = list(recs)
    else:
        replay = ShareReplay(keep_records=view == "latest").apply_all(recs)
        out["states"] = replay.states
        out["since_snapshot"] = replay.since_snapshot
    stats = eng.stats
    out["stats"] = (stats.files, stats.bytes, stats.batches, stats.records)
    out["problems"] = list(stats.problems)
    return out


@dataclass(eq=False)
class ShareSparkScan(ShareViews):
    """`Scan` over `__share_group_state` segments on Spark (see the module's docstring)."""

    spark: Any
    flt: DecodeFilter
    _: KW_ONLY
    inputs: list[SegmentInput]
    skip_corrupt: bool = False
    on_problem: Callable[[seg.Problem], None] | None = None
    tasks: TaskReport | None = None  # where Spark's finished tasks are reported
    stats: ScanStats = field(init=False, default_factory=ScanStats)

    def _run(self, view: str) -> list[dict[str, Any]]:
        from kgroup.scan.spark_jobs import TaskProgress, spark_errors

        groups = partition_groups(self.inputs)
        if not groups:
            return []
        flt, skip = self.flt, self.skip_corrupt
        rdd = self.spark.sparkContext.parallelize(groups, len(groups))
        with spark_errors(), TaskProgress(self.spark, self.tasks):
            answers = rdd.map(lambda items: run_partition(items, flt, skip, view)).collect()
        for answer in answers:
            files, size, batches, records = answer["stats"]
            self.stats.files += files
            self.stats.bytes += size
            self.stats.batches += batches
            self.stats.records += records
            for problem in answer["problems"]:
                self.stats.problems.append(problem)
                if self.on_problem is not None:
                    self.on_problem(problem)
        return answers

    def records(self) -> Iterator[DecodedRecord]:
        for answer in self._run("records"):
            for rec in answer["records"]:
                self.stats.emitted += 1
                yield rec

    def _replay(self, view: str) -> ShareReplay:
        """The partitions' replays as one (a later partition's key replaces an earlier one)."""
        merged = ShareReplay(keep_records=view == "latest")
        for answer in self._run(view):
            for pk, state in answer["states"].items():
                merged.states.pop(pk, None)
                merged.states[pk] = state
            for pk, recs in answer["since_snapshot"].items():
                merged.since_snapshot.pop(pk, None)
                merged.since_snapshot[pk] = recs
        return merged

    def write(self, out: str, view: str, as_of: int | None = None) -> str:
        """`--out DIR`: JSON Lines as the local engine writes them (DIR/part-00000.jsonl)."""
        import json

        from kgroup.decode.run import write_jsonl_dir

        if view == "summary":
            return write_jsonl_dir(out, (json.dumps(r) for r in self.summary()))
        if view == "as_of":
            self.as_of(as_of or 0)
        recs = self.latest() if view == "latest" else list(self.records())
        return write_jsonl_dir(out, (r.to_json() for r in recs))
