"""The in-process scan engine: segment files (or live messages) -> filtered decoded records.

Source of truth for the meaning of the records: `kgroup.offsets` (OFFSETS_FORMAT.md). This
module adds the edges: finding segment files on disk, reading them in bounded chunks, filters
applied as early as possible (timestamp before the key, key before the value), the compacted
(`--latest`) and `--as-of` views through `offsets.replay`, and problem reporting.

Streaming: in the plain mode nothing is kept per record, so memory stays flat whatever the
input size; the latest/as-of views keep one record per distinct key.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgroup.core.errors import CorruptInputError, NotFoundError, UsageError
from kgroup.offsets import decode as dec
from kgroup.offsets import replay as rp
from kgroup.offsets import segments as seg
from kgroup.offsets import share_state
from kgroup.offsets.records import Batch, BatchError, Record
from kgroup.offsets.schema import RECORD_TYPES, RecordType

if TYPE_CHECKING:  # for annotations only: the engine does not import the Kafka client side
    from kgroup.core.topic_reader import RawMessage

OFFSET_TYPES = frozenset({0, 1})
GROUP_TYPES = frozenset(t for t in RECORD_TYPES if t not in OFFSET_TYPES)
NAME_TYPES = frozenset({4, 9, 15, 18})  # values that pair topic ids with names
SCAN_RUN = 256  # records per call of the compiled scanner: short runs let records die young


def type_ids_for(kind: str) -> frozenset[int] | None:
    """`--type` value -> record type ids (None = all): offset, group, all, or a record_type."""
    kind = kind.strip().lower().replace("-", "_")
    if kind == "all":
        return None
    if kind in ("offset", "offsets", "offset_commit"):
        return OFFSET_TYPES
    if kind in ("group", "groups"):
        return GROUP_TYPES
    ids = frozenset(t for t, rt in RECORD_TYPES.items() if rt.name == kind)
    if not ids:
        names = sorted({rt.name for rt in RECORD_TYPES.values()})
        raise UsageError(
            f"unknown record type {kind!r}",
            hint="use offset, group, all or one of: " + ", ".join(names),
        )
    return ids


@dataclass(frozen=True)
class DecodeFilter:
    """Which records to keep. None means "no restriction"."""

    groups: frozenset[str] | None = None
    topics: frozenset[str] | None = None
    type_ids: frozenset[int] | None = None
    since: int | None = None
    until: int | None = None

    @property
    def wants_control(self) -> bool:
        """Transaction markers belong to no group or topic: shown only in unfiltered output."""
        return self.groups is None and self.topics is None and self.type_ids is None

    @property
    def wants_unknown(self) -> bool:
        return self.groups is None and self.topics is None and self.type_ids is None

    def time_ok(self, ts: int) -> bool:
        return (self.since is None or ts >= self.since) and (self.until is None or ts <= self.until)

    def key_ok(self, key_type: int, key: dict) -> bool:
        if self.type_ids is not None and key_type not in self.type_ids:
            return False
        if self.groups is not None:
            g = key.get("group")
            if g is None:
                g = key.get("group_id")
            if g not in self.groups:
                return False
        return self.topics is None or (key_type in OFFSET_TYPES and key.get("topic") in self.topics)


@dataclass(frozen=True)
class SegmentInput:
    """One segment file to read, with the name shown in output and its partition if known.

    `topic` is the topic its partition directory names (`__share_group_state-N` is decoded with
    the share coordinator's records; anything else as `__consumer_offsets`)."""

    path: str
    source: str
    partition: int | None
    size: int
    topic: str = "__consumer_offsets"


@dataclass
class ScanStats:
    files: int = 0
    bytes: int = 0
    batches: int = 0
    records: int = 0
    emitted: int = 0
    problems: list[seg.Problem] = field(default_factory=list)
    open_transactions: list[tuple[object, int, int]] = field(default_factory=list)


_NOT_REGULAR = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _stat(path: str, shown: str) -> os.stat_result:
    """`path`'s status (following links), without opening it: opening a FIFO for reading
    blocks until a writer comes. Missing paths exit 3, unreadable ones 2 (README's exit codes:
    a file named for reading that cannot be read is a bad argument)."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise NotFoundError(f"no such file or directory: {shown}") from None
    except OSError as exc:
        raise _unreadable(shown, exc) from None


def _unreadable(shown: str, exc: OSError) -> UsageError:
    reason = "permission denied" if isinstance(exc, PermissionError) else exc.strerror or str(exc)
    return UsageError(
        f"cannot read {shown}: {reason}",
        hint="give a path this user can read (check the permissions of it and of the "
        "directories above it), or run kgroup as a user who can",
    )


def _listdir(path: str, shown: str) -> list[str]:
    """The names in directory `path`; one it cannot list is a usage error (exit 2)."""
    try:
        return os.listdir(path)
    except OSError as exc:
        raise _unreadable(shown, exc) from None


def _check_readable(path: str, shown: str) -> None:
    """Open regular file `path` for reading and close it: one this user cannot read is a usage
    error now, not an unexpected failure in the middle of the decode."""
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise _unreadable(shown, exc) from None


def _not_segment(shown: str, mode: int) -> UsageError:
    kind = next((name for test, name in _NOT_REGULAR if test(mode)), "a special file")
    piped = " (save a stream to a file first)" if stat.S_ISFIFO(mode) else ""
    return UsageError(
        f"{shown} is {kind}, not a regular file or directory",
        hint="give .log segment files, __consumer_offsets-N directories or a Kafka log "
        f"directory{piped}",
    )


def _segment_size(path: str, shown: str) -> int:
    """The size of segment file `path`; a usage error when it is not a regular file or cannot
    be read."""
    mode = _stat(path, shown)
    if not stat.S_ISREG(mode.st_mode):
        raise _not_segment(shown, mode.st_mode)
    _check_readable(path, shown)
    return mode.st_size


def find_segments(paths: Iterable[str]) -> list[SegmentInput]:
    """Expand files, partition directories and log directories into ordered segment files.

    Only regular files and directories qualify: a FIFO, device or socket (`/dev/stdin`,
    `/dev/zero`) is refused by its type, never opened."""
    out: list[SegmentInput] = []
    for raw in paths:
        path = os.path.abspath(os.path.expanduser(raw))
        mode = _stat(path, raw).st_mode
        if stat.S_ISREG(mode):
            _check_readable(path, raw)
            parent = os.path.basename(os.path.dirname(path))
            part = seg.partition_of_dir(parent)
            out.append(
                SegmentInput(
                    path,
                    f"{parent}/{os.path.basename(path)}",
                    part[1] if part else None,
                    _segment_size(path, raw),
                    _topic(part),
                )
            )
            continue
        if not stat.S_ISDIR(mode):
            raise _not_segment(raw, mode)
        names = _listdir(path, raw)
        logs = seg.log_files_in_order(names)
        if logs:
            out.extend(_partition_dir(path))
            continue
        subdirs = sorted(
            (p, n)
            for n in names
            if os.path.isdir(os.path.join(path, n))
            and (p := seg.partition_of_dir(n)) is not None
            and p[0] in _TOPICS
        )
        if not subdirs:
            raise UsageError(  # exists, so not "not found": the wrong directory (exit 2)
                f"{raw} is not a segment directory: no .log files, __consumer_offsets-N or "
                "__share_group_state-N directories in it",
                hint="give .log files, __consumer_offsets-N or __share_group_state-N directories "
                "or a Kafka log directory",
            )
        for _p, n in subdirs:
            out.extend(_partition_dir(os.path.join(path, n)))
    return out


_TOPICS = ("__consumer_offsets", share_state.TOPIC)


def _topic(part: tuple[str, int] | None) -> str:
    """The topic a segment is decoded as: `__share_group_state` when its directory says so."""
    return share_state.TOPIC if part is not None and part[0] == share_state.TOPIC else _TOPICS[0]


def _partition_dir(path: str) -> list[SegmentInput]:
    name = os.path.basename(path)
    part = seg.partition_of_dir(name)
    return [
        SegmentInput(
            os.path.join(path, n),
            f"{name}/{n}",
            part[1] if part else None,
            _segment_size(os.path.join(path, n), os.path.join(path, n)),
            _topic(part),
        )
        for n in seg.log_files_in_order(_listdir(path, path))
    ]


class LocalEngine:
    """Decode, filter and (optionally) replay records in this process.

    `on_problem` receives every problem; a fatal one raises CorruptInputError unless
    `skip_corrupt`. `on_progress(n)` is called with the bytes read since the last call.
    """

    def __init__(
        self,
        flt: DecodeFilter | None = None,
        *,
        skip_corrupt: bool = False,
        on_problem: Callable[[seg.Problem], None] | None = None,
        on_progress: Callable[[int], None] | None = None,
        topic_names: dict[str, str] | None = None,
        chunk_size: int = seg.CHUNK_SIZE,
    ) -> None:
        self.filter = flt or DecodeFilter()
        self.skip_corrupt = skip_corrupt
        self.on_problem = on_problem
        self.on_progress = on_progress
        self.topic_names = dict(topic_names or {})
        self.chunk_size = chunk_size
        self.stats = ScanStats()

    # ------------------------------------------------------------ problems

    def _problem(self, problem: seg.Problem) -> None:
        self.stats.problems.append(problem)
        if problem.fatal and not self.skip_corrupt:
            raise CorruptInputError(
                f"corrupt input: {problem.describe()}",
                hint="pass --skip-corrupt to report bad batches and continue",
                source=problem.source,
                position=problem.position,
            )
        if self.on_problem is not None:
            self.on_problem(problem)

    # ------------------------------------------------------------ segment input

    def segment_records(self, inputs: Iterable[SegmentInput]) -> Iterator[dec.DecodedRecord]:
        """Decoded records of the segment files that pass the filter (control records too)."""
        for item in inputs:
            self.stats.files += 1
            for chunk in self.segment_range_chunks(item, 0, None):
                yield from chunk

    def segment_range_records(
        self, item: SegmentInput, start: int, end: int
    ) -> Iterator[dec.DecodedRecord]:
        """Like `segment_records` for the batches in bytes [start, end) of one file.

        `start` must be a batch boundary (the Spark engine splits large segments at boundaries
        found by `kgroup.scan.ranges`); positions stay those of the whole file.
        """
        for chunk in self.segment_range_chunks(item, start, end):
            yield from chunk

    def segment_range_chunks(
        self, item: SegmentInput, start: int, end: int | None
    ) -> Iterator[list[dec.DecodedRecord]]:
        """`segment_range_records` as lists (the compiled scanner's runs of batches, one list
        per batch otherwise), for consumers that take records in bulk. `end` None: to the end
        of the file as it is when read (a segment still being written included)."""
        with open(item.path, "rb") as fh:
            fh.seek(start)
            left = -1 if end is None else end - start

            def read(n: int) -> bytes:
                nonlocal left
                chunk = fh.read(n if left < 0 else min(n, left))
                if left >= 0:
                    left -= len(chunk)
                if self.on_progress is not None:
                    self.on_progress(len(chunk))
                return chunk

            # the compiled scanner knows __consumer_offsets' record ids only
            share = item.topic == share_state.TOPIC
            scanner = None if share else dec.native_scanner()
            fast = None if scanner is None else self._fast_hook(scanner, item)
            entries = seg.read_batches(
                read,
                item.source,
                chunk_size=self.chunk_size,
                fast=fast,
                resync=self.skip_corrupt,
                start=start,
            )
            for entry in entries:
                if type(entry) is tuple:  # the batches the C scanner took
                    batches, read_count, recs = entry
                    self.stats.batches += batches
                    self.stats.records += read_count
                    yield recs
                    continue
                if isinstance(entry, seg.Problem):
                    self._problem(entry)
                    continue
                if share:
                    yield list(self._share_batch_records(entry, item))
                else:
                    yield list(self._batch_records(entry, item))
        self.stats.bytes += (item.size if end is None else end) - start

    def _fast_hook(self, scanner: Any, item: SegmentInput) -> seg.FastHook:
        """`read_batches`' hook: the compiled scanner takes runs of ordinary batches (offset
        commits and group metadata, uncompressed, no control records) with this engine's
        filter; it stops at anything else, which `_batch_records` reads. `read_batches` may
        drop a run (offsets going back) and take it again shorter: the counts travel with
        the records, added to the stats only when yielded."""
        flt = self.filter
        keyed = bool(flt.type_ids or flt.groups or flt.topics)  # as _batch_records' key_filter
        args = (
            item.source,
            item.partition,
            flt.since,
            flt.until,
            flt.type_ids if keyed else None,
            flt.groups if keyed else None,
            flt.topics if keyed else None,
        )
        scan = scanner.scan

        def fast(buf: bytes, p: int, base: int) -> tuple[int, tuple[int, int, list[Any]]] | None:
            after, batches, read, recs = scan(buf, p, base, SCAN_RUN, *args)
            if after == p:
                return None
            return after, (batches, read, recs)  # counted when read_batches yields it

        return fast

    def _raw_records(self, batch: Batch, item: SegmentInput) -> list[Record] | None:
        """`batch`'s records, counting the batch; None (a CORRUPT problem) when unreadable."""
        self.stats.batches += 1
        try:
            return batch.records()
        except BatchError as exc:
            self._problem(seg.Problem(item.source, batch.position, seg.CORRUPT, exc.reason))
            return None

    def _batch_records(self, batch: Batch, item: SegmentInput) -> Iterator[dec.DecodedRecord]:
        raw_records = self._raw_records(batch, item)
        if raw_records is None:
            return
        flt = self.filter
        has_time = flt.since is not None or flt.until is not None
        control = batch.control
        transactional = batch.transactional
        producer_id = batch.producer_id
        producer_epoch = batch.producer_epoch
        position = batch.position
        source = item.source
        partition = item.partition
        decode_key = dec.decode_key
        key_cache_get = dec._KEY_CACHE.get
        record = dec.DecodedRecord
        names = self.topic_names
        key_filter = flt.key_ok if flt.type_ids or flt.groups or flt.topics else None
        wants_unknown = flt.wants_unknown
        self.stats.records += len(raw_records)
        for offset, ts, key, value, _headers in raw_records:
            if has_time and not control and not flt.time_ok(ts):
                continue
            rt = None
            if not control and key is not None:
                hit = key_cache_get(key)  # decode_key's own cache, looked up inline: hot loop
                key_type, rt, key_fields, _error = hit if hit is not None else decode_key(key)
            if rt is None:  # a control record, or a key of no known record type
                if control or wants_unknown:
                    rec = record(
                        source,
                        partition,
                        position,
                        offset,
                        ts,
                        producer_id,
                        producer_epoch,
                        transactional,
                    )
                    if control:
                        yield dec.decode_control(key, value, rec)
                    else:
                        yield dec.decode_kv(key, value, rec)
                continue
            if key_type in NAME_TYPES and value is not None:
                self._learn_names(rt, value)
            if key_filter is not None and not key_filter(key_type, key_fields):  # type: ignore[arg-type]
                continue
            rec = record(
                source, partition, position, offset, ts, producer_id, producer_epoch, transactional
            )
            rec.key_type = key_type
            rec.key = key_fields
            if value is None:
                rec.record_type = rt.name
            else:
                rec._record_type = rt.name  # rec.defer_value(rt, value), inlined: hot loop
                rec._pending = (rt, value)
                if key_type >= 3:  # type: ignore[operator]
                    self._topic_names(rec, names)
            yield rec

    def _share_batch_records(self, batch: Batch, item: SegmentInput) -> Iterator[dec.DecodedRecord]:
        """`_batch_records` for a `__share_group_state` segment: every value decoded at once
        (share records are few and small), filtered by time and `--group` only."""
        raw_records = self._raw_records(batch, item)
        if raw_records is None:
            return
        flt = self.filter
        self.stats.records += len(raw_records)
        for offset, ts, key, value, _headers in raw_records:
            if not batch.control and not flt.time_ok(ts):
                continue
            rec = dec.DecodedRecord(
                item.source,
                item.partition,
                batch.position,
                offset,
                ts,
                batch.producer_id,
                batch.producer_epoch,
                batch.transactional,
            )
            if batch.control:
                yield dec.decode_control(key, value, rec)
                continue
            share_state.decode_share_kv(key, value, rec)
            if rec.key is None:
                if flt.wants_unknown:
                    yield rec
            elif flt.groups is None or rec.group in flt.groups:
                yield rec

    def _learn_names(self, rt: RecordType, value: bytes) -> None:
        """Topic id -> name pairs from records that carry both (even when filtered out)."""
        probe = dec.DecodedRecord()
        probe.key_type = rt.type_id
        probe.defer_value(rt, value)
        dec.learn_topic_names(probe, self.topic_names)

    @staticmethod
    def _topic_names(rec: dec.DecodedRecord, names: dict[str, str]) -> None:
        if names and rec.value is not None:
            dec.resolve_topic_ids(rec.value, names)

    # ------------------------------------------------------------ live input

    def live_records(self, messages: Iterable[RawMessage]) -> Iterator[dec.DecodedRecord]:
        """Decoded records of consumed messages (read_committed: no markers, no aborted data;
        no batch headers: control records never arrive)."""
        flt = self.filter
        names = self.topic_names
        for msg in messages:
            self.stats.records += 1
            if (flt.since is not None or flt.until is not None) and not flt.time_ok(msg.timestamp):
                continue
            rec = dec.DecodedRecord(
                f"{msg.topic}-{msg.partition}", msg.partition, None, msg.offset, msg.timestamp
            )
            dec.decode_kv(msg.key, msg.value, rec)
            if rec.key_type in NAME_TYPES and rec.value is not None:
                dec.learn_topic_names(rec, names)
            if rec.key is None:
                if flt.wants_unknown:
                    yield rec
                continue
            if rec.key_type is None or not flt.key_ok(rec.key_type, rec.key):
                continue
            if rec.key_type is not None and rec.key_type >= 3:
                self._topic_names(rec, names)
            yield rec

    # ------------------------------------------------------------ views

    def plain(self, recs: Iterable[dec.DecodedRecord]) -> Iterator[dec.DecodedRecord]:
        """Every record that passes the filter, in log order."""
        wants_control = self.filter.wants_control
        emitted = 0
        try:
            for rec in recs:
                if rec.control and not wants_control:
                    continue
                emitted += 1
                yield rec
        finally:
            self.stats.emitted += emitted

    def latest(self, recs: Iterable[dec.DecodedRecord]) -> list[dec.DecodedRecord]:
        """The compacted view: the last materialised value per key (transactions replayed)."""
        replay = rp.Replay()
        replay.apply_all(recs)
        self.stats.open_transactions = replay.open_transactions()
        out = replay.latest()
        self.stats.emitted += len(out)
        return out

    def as_of(self, recs: Iterable[dec.DecodedRecord], when: int) -> list[dec.DecodedRecord]:
        """Committed offsets at `when` (ms): replay of everything written up to that time."""
        replay = rp.Replay()
        replay.apply_all(r for r in recs if r.timestamp <= when)
        self.stats.open_transactions = replay.open_transactions()
        out = [r for r in replay.latest() if r.key_type in OFFSET_TYPES]
        self.stats.emitted += len(out)
        return out
