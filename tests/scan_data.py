"""Generated `__consumer_offsets` segments for the scan-engine tests (made by kgroup's encoder).

A few MB over 3 partitions, two segments each: offset commits v1/v3 in batches (none, gzip,
snappy, lz4, zstd), classic group metadata with members, tombstones (an expired offset and a
deleted group), transactional commits that are committed, aborted and left open, and a legacy
magic-1 message set.
"""

from __future__ import annotations

import random
from pathlib import Path

from kgroup.offsets import encode as enc
from kgroup.offsets.replay import partition_for

PARTITIONS = 3
T0 = 1_767_225_600_000
GROUPS = [f"svc-{i:02d}" for i in range(12)]


def _members(group: str, n: int) -> dict:
    members = [
        {
            "member_id": f"{group}-m{i}",
            "group_instance_id": None,
            "client_id": f"{group}-c{i}",
            "client_host": f"/10.0.0.{i}",
            "rebalance_timeout": 300000,
            "session_timeout": 45000,
            "subscription": {
                "version": 3,
                "topics": ["orders"],
                "user_data": None,
                "owned_partitions": [],
                "generation_id": 3,
                "rack_id": None,
            },
            "assignment": {
                "version": 3,
                "assigned_partitions": [{"topic": "orders", "partitions": [i]}],
                "user_data": None,
            },
        }
        for i in range(n)
    ]
    return {
        "protocol_type": "consumer",
        "generation": 3 + n,
        "protocol": "range",
        "leader": members[0]["member_id"],
        "current_state_timestamp": T0,
        "members": members,
    }


def write_segments(root: Path, target_bytes: int = 3 * 1024 * 1024, seed: int = 7) -> Path:
    """A log directory of `__consumer_offsets-N` partitions; returns `root`."""
    rng = random.Random(seed)
    logs: dict[int, list[tuple[int, bytearray]]] = {
        p: [(0, bytearray())] for p in range(PARTITIONS)
    }
    offsets = dict.fromkeys(range(PARTITIONS), 0)
    total = 0
    ts = T0
    step = 0
    while total < target_bytes:
        step += 1
        group = rng.choice(GROUPS)
        p = partition_for(group, PARTITIONS)
        ts += rng.randint(1, 500)
        base = offsets[p]
        kind = rng.random()
        if kind < 0.05:
            value = enc.encode_value(2, 3, _members(group, rng.randint(1, 4)))
            batches = [
                enc.encode_batch(
                    [(enc.encode_key(2, {"group": group}), value)], base_offset=base, timestamp=ts
                )
            ]
            n = 1
        elif kind < 0.07:
            pid = 1000 + step
            n = rng.randint(1, 3)
            commits = [
                enc.offset_commit(group, "refunds", q, rng.randint(0, 10**6), commit_timestamp=ts)
                for q in range(n)
            ]
            batches = [
                enc.encode_batch(
                    commits,
                    base_offset=base,
                    timestamp=ts,
                    producer_id=pid,
                    producer_epoch=0,
                    transactional=True,
                )
            ]
            marker = rng.choice(["COMMIT", "COMMIT", "ABORT", None])
            if marker is not None:
                batches.append(
                    enc.encode_control_batch(
                        marker,
                        base_offset=base + n,
                        timestamp=ts + 1,
                        producer_id=pid,
                        producer_epoch=0,
                        coordinator_epoch=1,
                    )
                )
                n += 1
        elif kind < 0.08:
            key, _ = enc.offset_commit(group, "orders", rng.randint(0, 5), 0)
            batches = [enc.encode_batch([(key, None)], base_offset=base, timestamp=ts)]
            n = 1
        elif kind < 0.082:
            batches = [
                enc.encode_batch(
                    [(enc.encode_key(2, {"group": group}), None)], base_offset=base, timestamp=ts
                )
            ]
            n = 1
        elif kind < 0.085:
            entries = [
                enc.offset_commit(
                    group, "payments", 0, rng.randint(0, 999), version=1, commit_timestamp=ts
                )
            ]
            batches = [
                enc.encode_legacy_set(
                    entries, magic=1, base_offset=base, timestamp=ts, codec_id=rng.choice([0, 1])
                )
            ]
            n = 1
        else:
            n = rng.randint(1, 8)
            commits = [
                enc.offset_commit(
                    group,
                    rng.choice(["orders", "payments"]),
                    q,
                    rng.randint(0, 10**9),
                    commit_timestamp=ts,
                    leader_epoch=rng.randint(0, 9),
                )
                for q in range(n)
            ]
            batches = [
                enc.encode_batch(
                    commits,
                    base_offset=base,
                    timestamp=ts,
                    codec_id=rng.choice([0, 0, 0, 1, 2, 3, 4]),
                )
            ]
        segs = logs[p]
        if len(segs[-1][1]) > target_bytes // (2 * PARTITIONS) and len(segs) < 2:
            segs.append((base, bytearray()))  # roll the segment, named by its base offset
        for b in batches:
            segs[-1][1].extend(b)
            total += len(b)
        offsets[p] += n
    for p, segs in logs.items():
        d = root / f"__consumer_offsets-{p}"
        d.mkdir(parents=True)
        for base, data in segs:
            (d / f"{base:020d}.log").write_bytes(bytes(data))
    return root
