"""History mode: commits read from `__consumer_offsets` (constructed records here, since the
test broker has none) become Burrow windows with their commit times and the log end at each
time; the whole check runs against a scripted admin."""

from __future__ import annotations

import pytest

from kgroup.check import history
from kgroup.check.model import Thresholds
from kgroup.check.run import CheckOptions, check, retention_of
from kgroup.core.models import (
    CommittedOffset,
    GroupDescription,
    GroupListing,
    MemberDescription,
    NextRecord,
    OffsetAtTime,
    TopicMetadata,
    TopicPartition,
    Watermarks,
)
from kgroup.offsets.encode import encode_key, encode_value
from kgroup.offsets.replay import partition_for

T0 = TopicPartition("orders", 0)
NOW = 1_800_000_000_000


def commit_record(group: str, tp: TopicPartition, offset: int, ts: int) -> tuple[bytes, bytes]:
    key = encode_key(1, {"group": group, "topic": tp.topic, "partition": tp.partition})
    value = encode_value(
        1, 3, {"offset": offset, "leader_epoch": -1, "metadata": "", "commit_timestamp": ts}
    )
    assert value is not None
    return key, value


def test_commits_of_the_asked_groups_in_the_window_only() -> None:
    records = [
        commit_record("g", T0, 5, 1000),  # before the window
        commit_record("g", T0, 6, 2000),
        commit_record("other", T0, 9, 2500),
        (encode_key(1, {"group": "g", "topic": "orders", "partition": 0}), None),  # tombstone
        commit_record("g", T0, 7, 3000),
    ]
    found = history.commits_from_records(records, {"g"}, since_ms=1500)
    assert found == {("g", T0): [(2000, 6), (3000, 7)]}


class ScriptedAdmin:
    """Answers as a cluster whose group `g` (one member owning orders:0) committed offset
    50 every 10 s of the last minute while the log grew by 100 every 10 s, to 700 now."""

    timeout_s = 5.0

    wire = object()  # a wire client: retention.bytes sizes could be asked (none here)

    @staticmethod
    def describe_topic_configs(topics):
        return {t: {"retention.ms": "3600000", "cleanup.policy": "delete"} for t in topics}

    def __init__(self) -> None:
        self.list_offsets_calls: list[object] = []

    def list_groups(self):
        return [GroupListing("g", "Stable", "classic")]

    def topics(self, include_internal=False):
        return {
            "orders": TopicMetadata("orders", 1),
            "__consumer_offsets": TopicMetadata("__consumer_offsets", 50),
        }

    def describe_groups(self, ids):
        member = MemberDescription("m-1", client_id="app", host="/10.0.0.1", assignment=(T0,))
        return {"g": GroupDescription("g", "Stable", members=(member,))}

    def committed_offsets_many(self, ids):
        return {"g": {T0: CommittedOffset(50)}}

    def list_offsets(self, tps, spec):
        self.list_offsets_calls.append(spec)
        tps = list(tps)
        if spec == "latest":
            return {tp: OffsetAtTime(10**6) for tp in tps}
        if tps and tps[0].topic == "__consumer_offsets":
            return {tp: OffsetAtTime(0) for tp in tps}
        # the log end at a time: 100 more records every 10 s up to 700 now
        return {tp: OffsetAtTime(max(0, 700 - (NOW - spec) // 10_000 * 100)) for tp in tps}

    def watermarks(self, tps):
        return {tp: Watermarks(0, 700) for tp in tps}

    def next_records(self, positions):
        return {pos: NextRecord(True, NOW - 90_000) for pos in positions}


@pytest.fixture()
def stalled_history(monkeypatch):
    commits = [commit_record("g", T0, 50, NOW - 60_000 + i * 10_000) for i in range(6)]

    def fake_read(admin, ranges):
        assert list(ranges) == [partition_for("g", 50)]  # only the group's partition
        yield from commits

    monkeypatch.setattr(history, "_read", fake_read)
    monkeypatch.setattr("time.time", lambda: NOW / 1000)
    return commits


def test_history_window_gives_stall_with_commit_times(stalled_history) -> None:
    admin = ScriptedAdmin()
    result = check(
        admin, CheckOptions(groups=["g"], window_ms=60_000, samples=6, thresholds=Thresholds())
    )
    (group,) = result.groups
    assert result.source == "history"
    (p0,) = group.partitions
    assert (p0.status.name, p0.rule) == ("STALL", "stalled")
    assert [o.timestamp_ms for o in p0.observations] == [
        NOW - 60_000 + i * 10_000 for i in range(6)
    ]
    # each commit's lag is against the log end known at its time
    assert [o.lag for o in p0.observations] == [50, 150, 250, 350, 450, 550]
    assert p0.lag == 650
    assert (group.status.name, group.members[0].total_lag) == ("ERR", 650)
    # the log end at six times across the window: six ListOffsets rounds, whatever the
    # number of groups, plus the offsets topic's window start and ends
    by_time = [c for c in admin.list_offsets_calls if isinstance(c, int) and c != NOW - 60_000]
    assert len(by_time) == 5
    assert p0.lag_ms == 90_000
    assert p0.headroom_ms == 3_600_000 - 90_000


def test_retention_settings_from_topic_configs() -> None:
    r = retention_of(
        {"retention.ms": "3600000", "retention.bytes": "-1", "cleanup.policy": "delete"}
    )
    assert (r.retention_ms, r.retention_bytes, r.delete_policy) == (3_600_000, -1, True)
    compacted = retention_of({"cleanup.policy": "compact"})
    assert (compacted.retention_ms, compacted.delete_policy) == (None, False)
    assert retention_of({"cleanup.policy": "compact,delete"}).delete_policy


class FleetAdmin(ScriptedAdmin):
    """ScriptedAdmin with groups g0..g4, each as `g` is (one member owning orders:0), and a
    log of what was asked."""

    GROUPS = tuple(f"g{i}" for i in range(5))

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def list_groups(self):
        return [GroupListing(g, "Stable", "classic") for g in self.GROUPS]

    def describe_groups(self, ids):
        self.asked.append("describe " + " ".join(ids))
        member = MemberDescription("m-1", client_id="app", host="/10.0.0.1", assignment=(T0,))
        return {g: GroupDescription(g, "Stable", members=(member,)) for g in ids}

    def committed_offsets_many(self, ids):
        return {g: {T0: CommittedOffset(50)} for g in ids}


def test_history_evaluates_a_chunk_before_describing_the_next(monkeypatch) -> None:
    # issue #29: the commits are read once for every group, then groups are described and
    # evaluated CHUNK_GROUPS at a time (2 here): a chunk's verdicts before the next is described
    from kgroup.check import run

    commits = [
        commit_record(g, T0, 50, NOW - 60_000 + i * 10_000)
        for i in range(6)
        for g in FleetAdmin.GROUPS
    ]
    reads = []

    def fake_read(admin, ranges):
        reads.append(dict(ranges))
        yield from commits

    monkeypatch.setattr(history, "_read", fake_read)
    monkeypatch.setattr("time.time", lambda: NOW / 1000)
    monkeypatch.setattr(run, "CHUNK_GROUPS", 2, raising=False)
    admin = FleetAdmin()
    result = check(admin, CheckOptions(groups=[], all_groups=True, window_ms=60_000, samples=6))
    seen = []
    for verdict in result:
        seen.append((verdict.group, verdict.partitions[0].rule, list(admin.asked)))
    chunks = ["describe g0 g1", "describe g2 g3", "describe g4"]
    assert seen == [
        ("g0", "stalled", chunks[:1]),
        ("g1", "stalled", chunks[:1]),
        ("g2", "stalled", chunks[:2]),
        ("g3", "stalled", chunks[:2]),
        ("g4", "stalled", chunks[:3]),
    ]
    assert len(reads) == 1  # the offsets topic read once, for the whole fleet
    assert result.source == "history"


class NamedFleetAdmin(FleetAdmin):
    """FleetAdmin where `nosuch` does not exist (DescribeGroups: Dead, no offsets)."""

    def describe_groups(self, ids):
        found = super().describe_groups(ids)
        if "nosuch" in found:
            found["nosuch"] = GroupDescription("nosuch", "Dead")
        return found

    def committed_offsets_many(self, ids):
        self.asked.append("fetch " + " ".join(ids))
        return {g: {} if g == "nosuch" else {T0: CommittedOffset(50)} for g in ids}


def test_history_describes_named_groups_beyond_one_chunk_once(monkeypatch) -> None:
    # named groups, more than one chunk (2 here): the commits are read for every named group,
    # then each chunk is described and its offsets fetched once, when its turn comes (the
    # later chunks were looked up before the history and again in their turn); a missing
    # group of a later chunk is NOTFOUND in its place and the run ends as not found
    from kgroup.check import run
    from kgroup.core.errors import NotFoundError

    names = ["g0", "g1", "g2", "nosuch", "g3"]
    commits = [commit_record(g, T0, 50, NOW - 60_000 + i * 10_000) for i in range(6) for g in names]
    monkeypatch.setattr(history, "_read", lambda admin, ranges: iter(commits))
    monkeypatch.setattr("time.time", lambda: NOW / 1000)
    monkeypatch.setattr(run, "CHUNK_GROUPS", 2, raising=False)
    admin = NamedFleetAdmin()
    result = check(admin, CheckOptions(groups=names, window_ms=60_000, samples=6))
    got = [(v.group, v.status.name, v.rule) for v in result]
    assert result.source == "history"
    assert got == [
        (g, "NOTFOUND", "not-found") if g == "nosuch" else (g, "ERR", "stalled") for g in names
    ]
    assert admin.asked == [
        "describe g0 g1", "fetch g0 g1", "describe g2 nosuch", "fetch g2 nosuch",
        "describe g3", "fetch g3",
    ]  # fmt: skip
    with pytest.raises(NotFoundError, match=r"^1 of 5 groups not found: nosuch$"):
        result.raise_outcome()
