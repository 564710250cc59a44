"""The real `__consumer_offsets` segments in shared/fixtures: the facts their README states."""

from __future__ import annotations

import io
import json
import os
import struct
from collections import Counter
from pathlib import Path

import crc32c
import pytest

from kgroup.offsets import segments as seg
from kgroup.offsets.decode import decode_kv
from kgroup.offsets.records import Batch
from kgroup.offsets.replay import partition_for
from kgroup.scan.local import DecodeFilter, LocalEngine, find_segments
from tests.helpers import run_kgroup

FIXTURES = Path(__file__).resolve().parents[4] / "shared" / "fixtures" / "consumer-offsets-segments"
if not FIXTURES.is_dir():  # worktrees live beside shared/
    FIXTURES = Path("/work/shared/fixtures/consumer-offsets-segments")

pytestmark = pytest.mark.skipif(not FIXTURES.is_dir(), reason="shared fixtures not present")

PARTITION_DIRS = sorted(p.parent for p in FIXTURES.glob("*/__consumer_offsets-*/*.log"))


def _batches(directory: Path) -> list[Batch]:
    out = []
    for name in seg.log_files_in_order(os.listdir(directory)):
        with open(directory / name, "rb") as fh:
            for entry in seg.read_batches(fh.read, name):
                assert not isinstance(entry, seg.Problem), entry.describe()
                out.append(entry)
    return out


def _records(directory: Path):
    return list(LocalEngine().segment_records(find_segments([str(directory)])))


@pytest.mark.parametrize("directory", PARTITION_DIRS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_invariants_magic2_crc_hash_offsets_counts(directory: Path) -> None:
    partition = int(directory.name.rsplit("-", 1)[1])
    last = -1
    for batch in _batches(directory):
        assert batch.magic == 2
        assert batch.codec == 0
        batch.check_crc()  # raises on mismatch
        records = batch.records()
        assert len(records) == batch.records_count
        for offset, _ts, key, value, _h in records:
            assert offset > last
            last = offset
            rec = decode_kv(key, value)
            assert rec.error is None
            assert partition_for(rec.group, 50) == partition, rec.group


def test_daniel_partition_0_stable_empty_tombstone() -> None:
    recs = _records(FIXTURES / "DanielMorales9_kafkafun" / "__consumer_offsets-0")
    assert len(_batches(FIXTURES / "DanielMorales9_kafkafun" / "__consumer_offsets-0")) == 3
    assert [(r.record_type, r.value_version) for r in recs] == [
        ("group_metadata", 3),
        ("group_metadata", 3),
        ("group_metadata", None),
    ]
    stable, empty, tomb = recs
    assert stable.value["members"] and stable.value["protocol"] is not None
    assert empty.value["members"] == [] and empty.value["protocol"] is None
    assert tomb.tombstone and tomb.group == stable.group == empty.group


def test_daniel_partition_13_counts_and_groups() -> None:
    directory = FIXTURES / "DanielMorales9_kafkafun" / "__consumer_offsets-13"
    batches = _batches(directory)
    assert len(batches) == 110
    assert any(b.records_count > 1 for b in batches)
    recs = _records(directory)
    kinds = Counter((r.record_type, r.value_version) for r in recs if not r.tombstone)
    assert kinds[("offset_commit", 3)] == 216
    group_records = [r for r in recs if r.record_type == "group_metadata"]
    assert len(group_records) == 7
    assert {r.group for r in recs} == {"my-first-app", "console-consumer-24394"}


def test_daniel_empty_producer_snapshot() -> None:
    raw = (
        FIXTURES
        / "DanielMorales9_kafkafun"
        / "__consumer_offsets-1"
        / "00000000000000000003.snapshot"
    ).read_bytes()
    assert len(raw) == 10
    version, crc, count = struct.unpack(">hIi", raw)
    assert (version, count) == (1, 0)
    assert crc == crc32c.crc32c(raw[6:])


def test_bheem_console_consumer_and_its_empty_record() -> None:
    recs = _records(FIXTURES / "Bheem6005_kafka" / "__consumer_offsets-0")
    assert len(recs) == 2
    first, second = recs
    assert first.group == "console-consumer-14897"
    member = first.value["members"][0]
    assert member["subscription"]["version"] == 1
    assert member["subscription"]["user_data"] is None
    assert member["assignment"]["version"] == 1
    assert second.value["generation"] == 2
    assert second.value["protocol"] is None and second.value["leader"] is None
    assert second.value["members"] == []


def test_mario_kafkajs_roundrobin_group() -> None:
    recs = _records(FIXTURES / "marioBarbozaA_AIBulb" / "__consumer_offsets-0")
    kinds = Counter((r.record_type, r.value_version) for r in recs)
    assert kinds == {("group_metadata", 3): 15, ("offset_commit", 3): 13}
    assert {r.group for r in recs} == {"my-app"}
    stable = [r for r in recs if r.record_type == "group_metadata" and r.value["members"]]
    assert stable
    for r in stable:
        assert r.value["protocol"] == "RoundRobinAssigner"
        assert r.value["members"][0]["subscription"]["version"] == 0


def test_mario_java_v3_subscription_with_null_rack_then_tombstone() -> None:
    recs = _records(FIXTURES / "marioBarbozaA_AIBulb" / "__consumer_offsets-28")
    subs = [m["subscription"] for r in recs if r.value for m in r.value["members"]]
    assert subs and all(s["version"] == 3 and s["rack_id"] is None for s in subs)
    assigns = [m["assignment"] for r in recs if r.value for m in r.value["members"]]
    assert all(a["version"] == 3 for a in assigns)
    assert recs[-1].tombstone


def test_zeydozer_kafkajs_subscription_v1() -> None:
    recs = _records(FIXTURES / "zeydozer_go-case" / "__consumer_offsets-45")
    groups = [r for r in recs if r.record_type == "group_metadata"]
    assert {r.group for r in recs} == {"node-api-group"}
    member = groups[0].value["members"][0]
    assert groups[0].value["protocol"] == "RoundRobinAssigner"
    # KafkaJS writes subscription "v1" without ownedPartitions: Kafka's ConsumerProtocol fails on
    # it (buffer underflow), so its bytes are kept raw with the reason (issue #13)
    assert member["subscription"]["raw_base64"][:2] == b"\x00\x01"
    assert "ownedPartitions" in member["subscription"]["error"]
    assert member["assignment"]["version"] == 1


def test_zeydozer_subscription_error_reads_as_before_the_switch_to_kgroup_protocol() -> None:
    """The reason `kgroup decode` prints for KafkaJS's short subscription is the one it printed
    before the consumer protocol was read by kgroup.protocol's generic reader (issue #16)."""
    result = run_kgroup(
        "-o",
        "jsonl",
        "decode",
        "--segments",
        str(FIXTURES / "zeydozer_go-case" / "__consumer_offsets-45"),
        "--type",
        "group",
    )
    members = [
        m for line in result.stdout.splitlines() for m in json.loads(line)["value"]["members"]
    ]
    assert [m["subscription"] for m in members] == [
        {
            "raw_base64": "AAEAAAABAAtpdGVtLWV2ZW50cwAAAAA=",
            "error": "ownedPartitions: truncated length at byte 23",
        }
    ]


def test_ravi_stock_service_counts() -> None:
    recs = _records(FIXTURES / "RaviAzzuraPutra_LATIHAN-MICROSERVICE-NEW" / "__consumer_offsets-0")
    kinds = Counter((r.record_type, r.value_version) for r in recs)
    assert kinds == {("group_metadata", 3): 4, ("offset_commit", 3): 2}
    assert {r.group for r in recs} == {"stock-service-group"}


def test_whole_fixture_tree_decodes_with_positions_and_sources() -> None:
    inputs = find_segments([str(d) for d in PARTITION_DIRS])
    engine = LocalEngine()
    recs = list(engine.plain(engine.segment_records(inputs)))
    assert len(recs) == 3 + 223 + 2 + 28 + 4 + 4 + 6
    assert engine.stats.problems == []
    first = recs[0].to_dict()
    assert first["source"].endswith("__consumer_offsets-0/00000000000000000000.log")
    assert first["position"] == 0
    assert all(r.position is not None and r.position >= 0 for r in recs)


def test_latest_view_of_partition_13_keeps_one_record_per_key() -> None:
    engine = LocalEngine(DecodeFilter(groups=frozenset({"my-first-app"})))
    inputs = find_segments([str(FIXTURES / "DanielMorales9_kafkafun" / "__consumer_offsets-13")])
    latest = engine.latest(engine.segment_records(inputs))
    offsets = [r for r in latest if r.record_type == "offset_commit"]
    keys = [(r.key["topic"], r.key["partition"]) for r in offsets]
    assert len(keys) == len(set(keys))
    every = [
        r
        for r in LocalEngine().segment_records(inputs)
        if r.record_type == "offset_commit" and r.group == "my-first-app"
    ]
    for r in offsets:  # the latest is the last commit for that key in log order
        last = [e for e in every if e.key == r.key][-1]
        assert r.offset == last.offset


def test_snapshot_bytes_read_like_a_segment_are_reported_not_raised() -> None:
    raw = (
        FIXTURES
        / "DanielMorales9_kafkafun"
        / "__consumer_offsets-1"
        / "00000000000000000003.snapshot"
    ).read_bytes()
    entries = list(seg.read_batches(io.BytesIO(raw).read, "x.snapshot"))
    assert len(entries) == 1 and isinstance(entries[0], seg.Problem)
