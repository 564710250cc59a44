"""Concurrent `reset-offsets --execute` runs on one group: never two claims of success that
overwrite each other (one writer per group: host lock + broker-side fence).

Every run's claim is checked against the backups and the offsets the broker holds at the end:
the runs that say `committed` must form one chain, each having replaced exactly what the one
before it committed (a lost update shows as two runs that both replaced the same offsets).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import admin_for, commit_offsets, make_topic, run_kgroup

pytestmark = pytest.mark.integration

PARTITIONS = 2
START = 2
WAVE = 12  # racing processes alive at once (CI: 2 cores)
RUN_TIMEOUT_S = 120  # per process, from its wave's start: a run that hangs fails the test


def _committed(bootstrap: str, group: str) -> dict[int, int]:
    offsets = admin_for(bootstrap).committed_offsets_or_none(group)
    return {tp.partition: value.offset for tp, value in offsets.items()}


def _launch(bootstrap: str, group: str, target: int, state: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGROUP_")}
    if "KGROUP_FENCE_SESSION_TIMEOUT_MS" in os.environ:
        env["KGROUP_FENCE_SESSION_TIMEOUT_MS"] = os.environ["KGROUP_FENCE_SESSION_TIMEOUT_MS"]
    env["XDG_STATE_HOME"] = str(state)
    command = [sys.executable, "-m", "kgroup", "-b", bootstrap, "reset-offsets", group]
    command += ["--all-topics", "--to-offset", str(target), "--execute", "-o", "json"]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _previous_offsets(backup: str) -> dict[int, int | None]:
    """What a run replaced: the backup's offsets to restore (new_offset in backup rows)."""
    document = json.loads(Path(backup).read_text())
    rows = document["groups"][0]["partitions"]
    return {row["partition"]: row["new_offset"] for row in rows}


def test_concurrent_pairs_and_triples_never_lose_an_update(kafka_broker, unique, tmp_path) -> None:
    bootstrap = kafka_broker.bootstrap
    topic = f"race-{unique}"
    make_topic(bootstrap, topic, [20] * PARTITIONS)
    # 20 groups raced by pairs and 6 by triples; in half of them the runs share a state
    # directory (same host: the lock decides), in the others each has its own (other hosts:
    # only the broker-side fence can decide). The races run in waves of at most WAVE processes
    # (a race's runs always start together): CI has 2 cores, and each run is a Python process
    # importing kgroup and librdkafka (130 at once took 145 s on a loaded 2-core machine).
    races: list[tuple[str, int, bool]] = []
    races += [(f"race-{unique}-p{i}", 2, i % 2 == 0) for i in range(20)]
    races += [(f"race-{unique}-t{i}", 3, i % 2 == 0) for i in range(6)]
    for group, _runs, _shared in races:
        commit_offsets(bootstrap, group, {(topic, p): START for p in range(PARTITIONS)})

    claims: dict[str, list[dict]] = {}
    waves: list[list[tuple[int, str, int, bool]]] = [[]]
    for index, (group, runs, shared) in enumerate(races):
        if sum(r for _i, _g, r, _s in waves[-1]) + runs > WAVE:
            waves.append([])
        waves[-1].append((index, group, runs, shared))
    launched = 0
    started = time.monotonic()
    slowest = 0.0
    for wave in waves:
        wave_started = time.monotonic()
        processes: list[tuple[str, int, subprocess.Popen]] = []
        for index, group, runs, shared in wave:
            for run in range(runs):
                state = tmp_path / (f"host-{index}" if shared else f"host-{index}-{run}")
                target = START + 1 + run * 4 + (index % 3)  # distinct per run of a race
                processes.append((group, target, _launch(bootstrap, group, target, state)))
        launched += len(processes)
        for group, target, process in processes:
            left = max(1.0, RUN_TIMEOUT_S - (time.monotonic() - wave_started))
            stdout, stderr = process.communicate(timeout=left)
            assert process.returncode in (0, 4, 8), (group, process.returncode, stderr)
            document = json.loads(stdout) if stdout.strip() else None
            assert document is not None, (group, stderr)
            outcome = document["groups"][0]
            # exit 4 says nothing was written (the chain below checks it against the broker); a
            # commit that landed is committed (0) or committed_at_risk (8), never refused
            expected_status = {0: "committed", 4: "refused", 8: "committed_at_risk"}
            assert outcome["status"] == expected_status[process.returncode], outcome
            claims.setdefault(group, []).append({"target": target, **outcome})
        slowest = max(slowest, time.monotonic() - wave_started)
    elapsed = time.monotonic() - started

    committed_runs = 0
    for group, runs in claims.items():
        final = _committed(bootstrap, group)
        winners = [c for c in runs if c["status"] in ("committed", "committed_at_risk")]
        committed_runs += len(winners)
        # The committed runs form one chain from START to the final offsets: each replaced
        # what the one before it left. Two runs that replaced the same offsets = a lost update.
        previous = {c["target"]: _previous_offsets(c["backup"]) for c in winners}
        expected = {p: START for p in range(PARTITIONS)}
        chain = list(winners)
        while chain:
            nxt = [c for c in chain if previous[c["target"]] == expected]
            assert len(nxt) == 1, f"{group}: runs {nxt} both replaced {expected}: {runs}"
            chain.remove(nxt[0])
            expected = {p: min(nxt[0]["target"], 20) for p in range(PARTITIONS)}
        assert final == expected, f"{group}: final {final}, claims {runs}"
    print(
        f"{launched} racing runs on {len(races)} groups in {len(waves)} waves: "
        f"{committed_runs} committed, {launched - committed_runs} refused, {elapsed:.1f} s "
        f"(slowest wave {slowest:.1f} s)"
    )
    # Most races end with one winner; all refusing is allowed (e.g. the fence lost mid-way).
    assert committed_runs >= len(races) // 2, claims


def test_a_run_meeting_another_hosts_fence_refuses_and_names_it(
    kafka_broker, unique, tmp_path
) -> None:
    """A run on another host while kgroup holds the group: refused, naming the holder."""
    from kgroup.core.wire.fence import GroupFence

    bootstrap = kafka_broker.bootstrap
    topic = f"fence-{unique}"
    group = f"fence-g-{unique}"
    make_topic(bootstrap, topic, [10])
    commit_offsets(bootstrap, group, {(topic, 0): 3})
    admin = admin_for(bootstrap)
    with GroupFence(admin.wire, group):
        result = run_kgroup(
            "-b",
            bootstrap,
            "reset-offsets",
            group,
            "--all-topics",
            "--to-offset",
            "8",
            "--execute",
            env={"XDG_STATE_HOME": str(tmp_path / "other-host")},
            expect=4,
        )
        assert "another kgroup run" in result.stderr
        assert _committed(bootstrap, group) == {0: 3}
    assert _committed(bootstrap, group) == {0: 3}
    run_kgroup(
        "-b",
        bootstrap,
        "reset-offsets",
        group,
        "--all-topics",
        "--to-offset",
        "8",
        "--execute",
        env={"XDG_STATE_HOME": str(tmp_path / "other-host")},
    )
    assert _committed(bootstrap, group) == {0: 8}


def test_the_fence_is_left_even_when_its_connection_died(kafka_broker, unique) -> None:
    """Ctrl-C or a timeout mid-call closes the fence's connection: release() still leaves the
    group (on a fresh connection), so it is Empty at once, not after the session expires."""
    from kgroup.core.wire.fence import GroupFence

    bootstrap = kafka_broker.bootstrap
    topic, group = f"leave-{unique}", f"leave-g-{unique}"
    make_topic(bootstrap, topic, [3])
    commit_offsets(bootstrap, group, {(topic, 0): 1})
    admin = admin_for(bootstrap)
    fence = GroupFence(admin.wire, group, session_ms=8_000)  # expiry would take 8 s
    fence.acquire()
    assert [m.member_id for m in admin.describe_groups([group])[group].members]
    fence._connection.close()  # as an interrupted call leaves it
    fence.release()
    described = admin.describe_groups([group])[group]
    assert described.members == () and described.state == "Empty"
