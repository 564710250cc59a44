"""`kgroup.offsets.share_state`: the earlier ShareSnapshotValue layout and the replay rules of
`ShareCoordinatorShard` (bytes written here from Kafka's JSON, not by kgroup's encoder)."""

from __future__ import annotations

import dataclasses
import struct

from kgroup.offsets.share_state import ShareReplay, decode_share_kv

TOPIC_ID = bytes(range(16))


def _key(api_key: int, group: str = "sg", partition: int = 2) -> bytes:
    g = group.encode()
    return struct.pack(">hh", api_key, len(g)) + g + TOPIC_ID + struct.pack(">i", partition)


def test_early_trunk_snapshot_layout_is_read_and_labelled() -> None:
    """apache/kafka 03176af's ShareSnapshotValue: SnapshotEpoch uint16, no timestamps."""
    value = struct.pack(">hHiiq", 0, 65535, 3, 1, 42) + b"\x01" + b"\x00"  # [] and no tags
    rec = decode_share_kv(_key(0), value)
    assert rec.record_type == "share_snapshot"
    assert rec.layout == "kafka-early"
    assert rec.value == {
        "snapshot_epoch": 65535,
        "state_epoch": 3,
        "leader_epoch": 1,
        "start_offset": 42,
        "state_batches": [],
    }


def test_unknown_type_and_trailing_bytes_stay_raw() -> None:
    rec = decode_share_kv(_key(5), b"\x00\x00")
    assert rec.record_type == "unknown" and "record type 5" in (rec.error or "")
    rec = decode_share_kv(_key(1) + b"x", None)
    assert rec.record_type == "unknown" and "1 bytes after" in (rec.error or "")


def _update(offset: int, leader: int, start: int) -> object:
    value = struct.pack(">hiiq", 0, 0, leader, start) + b"\x01" + b"\x00"
    rec = decode_share_kv(_key(1), value)
    rec.offset = offset
    return rec


def test_update_without_snapshot_starts_a_state_and_minus_one_keeps_fields() -> None:
    replay = ShareReplay().apply_all([_update(0, 4, 100), _update(1, -1, -1)])  # type: ignore[list-item]
    [row] = replay.rows()
    assert (row["start_offset"], row["leader_epoch"], row["state_epoch"]) == (100, 4, None)
    assert row["updates_since_snapshot"] == 2
    assert [r.offset for r in replay.latest()] == [0, 1]


def _type_with_a_v0_only_earlier_layout() -> object:
    """A share record type whose newest value layout is GroupMetadataValue (v0-4) and whose one
    earlier layout is OffsetCommitValue declared for v0 only (readers exist for its v0-4, so
    only the declared range keeps it from reading a v1 value)."""
    from kgroup.offsets.schema import RECORD_TYPES
    from kgroup.offsets.share_state import ShareRecordType

    early = dataclasses.replace(RECORD_TYPES[0].value, valid=(0, 0))
    rt = ShareRecordType(0, "ShareSnapshot")
    rt.__dict__.update(value=RECORD_TYPES[2].value, alternates=(("v0-only", early),))
    return rt


def test_an_earlier_layout_reads_only_the_versions_it_declares() -> None:
    """The chooser of `kgroup.offsets.decode` (`earlier_layout`) decides for share records too:
    before, share_state's own loop read a v1 value with a layout declared for v0 only."""
    from kgroup.offsets.share_state import decode_share_value

    rt = _type_with_a_v0_only_earlier_layout()
    v1 = struct.pack(">hqh", 1, 42, 2) + b"md" + struct.pack(">qq", 1000, 2000)
    version, fields, error, layout = decode_share_value(rt, v1)  # type: ignore[arg-type]
    assert (version, fields, layout) == (1, None, None)
    assert error is not None and "GroupMetadataValue v1" in error
    # within its versions the earlier layout still reads the value, and says so
    v0 = struct.pack(">hqh", 0, 42, 2) + b"md" + struct.pack(">q", 1000)
    version, fields, error, layout = decode_share_value(rt, v0)  # type: ignore[arg-type]
    assert (version, error, layout) == (0, None, "v0-only")
    assert fields == {"offset": 42, "metadata": "md", "commit_timestamp": 1000}
