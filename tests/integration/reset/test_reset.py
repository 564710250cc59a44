"""`kgroup reset-offsets` / `kgroup undo` against the session's real broker.

Every test checks the committed offsets the broker holds afterwards, read back with an
OffsetFetch of its own, not what kgroup printed.
"""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

from tests.helpers import admin_for, commit_offsets, make_topic, run_kgroup, running_member

pytestmark = pytest.mark.integration


def committed(bootstrap: str, group: str) -> dict[tuple[str, int], int]:
    offsets = admin_for(bootstrap).committed_offsets_or_none(group)
    return {(tp.topic, tp.partition): value.offset for tp, value in offsets.items()}


@pytest.fixture()
def group_with_offsets(kafka_broker, unique, isolated_state):
    """Topic with 10, 8, 6 records; an empty group committed at 5, 5, 5."""
    topic = f"reset-{unique}"
    group = f"reset-g-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [10, 8, 6])
    commit_offsets(kafka_broker.bootstrap, group, {(topic, p): 5 for p in range(3)})
    return kafka_broker.bootstrap, topic, group, {"XDG_STATE_HOME": str(isolated_state)}


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        (["--to", "earliest"], {0: 0, 1: 0, 2: 0}),
        (["--to", "latest"], {0: 10, 1: 8, 2: 6}),
        (["--to-offset", "7"], {0: 7, 1: 7, 2: 6}),  # clamped to the log end of partition 2
        (["--shift-by", "-3"], {0: 2, 1: 2, 2: 2}),
        (["--shift-by", "4"], {0: 9, 1: 8, 2: 6}),
        (["--to", "current"], {0: 5, 1: 5, 2: 5}),
    ],
)
def test_each_strategy_commits_exactly_the_plan(group_with_offsets, strategy, expected) -> None:
    bootstrap, topic, group, env = group_with_offsets
    plan = json.loads(
        run_kgroup(
            "-b",
            bootstrap,
            "reset-offsets",
            group,
            "--topic",
            topic,
            *strategy,
            "-o",
            "json",
            env=env,
        ).stdout
    )
    planned = {r["partition"]: r["new_offset"] for r in plan["groups"][0]["partitions"]}
    assert planned == expected
    assert committed(bootstrap, group) == {(topic, p): 5 for p in range(3)}  # dry run: unchanged
    result = json.loads(
        run_kgroup(
            "-b",
            bootstrap,
            "reset-offsets",
            group,
            "--topic",
            topic,
            *strategy,
            "--execute",
            "-o",
            "json",
            env=env,
        ).stdout
    )
    assert result["groups"][0]["status"] == "committed"
    assert committed(bootstrap, group) == {(topic, p): o for p, o in expected.items()}


def test_only_the_partitions_in_scope_change(group_with_offsets) -> None:
    bootstrap, topic, group, env = group_with_offsets
    run_kgroup(
        "-b",
        bootstrap,
        "reset-offsets",
        group,
        "--topic",
        f"{topic}:0,2",
        "--to",
        "earliest",
        "--execute",
        env=env,
    )
    assert committed(bootstrap, group) == {(topic, 0): 0, (topic, 1): 5, (topic, 2): 0}


def test_to_datetime_uses_the_first_record_at_or_after_the_time(
    kafka_broker, unique, isolated_state
) -> None:
    """Records are produced in two batches a second apart, stamped with the time they are
    sent, so the record timestamps Kafka uses and the write times tansu uses (TEST_ENVIRONMENT.md)
    give the same answer: the first offset of the second batch."""
    from kgroup.core.clients import SeedRecord, create_topics, produce_one_per_request

    topic = f"ts-{unique}"
    group = f"ts-g-{unique}"
    admin = admin_for(kafka_broker.bootstrap)
    create_topics(admin, {topic: 1})
    now = lambda: int(time.time() * 1000)  # noqa: E731
    produce_one_per_request(admin, [SeedRecord(topic, 0, now(), None, b"a") for _ in range(3)])
    time.sleep(1.1)
    cut = now()
    time.sleep(0.1)
    produce_one_per_request(admin, [SeedRecord(topic, 0, now(), None, b"b") for _ in range(2)])
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 5})
    env = {"XDG_STATE_HOME": str(isolated_state)}
    out = json.loads(
        run_kgroup(
            "-b",
            kafka_broker.bootstrap,
            "reset-offsets",
            group,
            "--topic",
            topic,
            "--to-datetime",
            str(cut),
            "-o",
            "json",
            env=env,
        ).stdout
    )
    (entry,) = out["groups"]
    assert entry["timestamp_ms"] == cut
    assert entry["timestamp"].endswith("Z")
    assert entry["partitions"][0]["new_offset"] == 3
    run_kgroup(
        "-b",
        kafka_broker.bootstrap,
        "reset-offsets",
        group,
        "--topic",
        topic,
        "--to-datetime",
        str(cut),
        "--execute",
        env=env,
    )
    assert committed(kafka_broker.bootstrap, group) == {(topic, 0): 3}


def test_zoneless_datetime_is_refused(group_with_offsets) -> None:
    bootstrap, topic, group, env = group_with_offsets
    result = run_kgroup(
        "-b",
        bootstrap,
        "reset-offsets",
        group,
        "--topic",
        topic,
        "--to-datetime",
        "2026-05-01T10:00:00",
        env=env,
        expect=2,
    )
    assert "has no time zone" in result.stderr and "add Z for UTC" in result.stderr


def test_to_none_fails_without_committing_anything(group_with_offsets) -> None:
    bootstrap, topic, group, env = group_with_offsets
    other = f"{group}-partial"
    commit_offsets(bootstrap, other, {(topic, 0): 4})  # partitions 1 and 2 have no offset
    result = run_kgroup(
        "-b",
        bootstrap,
        "reset-offsets",
        other,
        "--topic",
        topic,
        "--to",
        "none",
        "--execute",
        env=env,
        expect=5,
    )
    assert f"{topic}:1" in result.stderr and f"{topic}:2" in result.stderr
    assert committed(bootstrap, other) == {(topic, 0): 4}


def test_unknown_topic_exits_3(group_with_offsets) -> None:
    bootstrap, topic, group, env = group_with_offsets
    result = run_kgroup(
        "-b",
        bootstrap,
        "reset-offsets",
        group,
        "--topic",
        f"{topic}:7",
        "--to",
        "earliest",
        env=env,
        expect=3,
    )
    assert f"{topic}:7" in result.stderr


def test_active_group_is_refused_and_unchanged(kafka_broker, unique, isolated_state) -> None:
    topic = f"active-{unique}"
    group = f"active-g-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [4])
    with running_member(kafka_broker, group, topic, {0: 2}):
        env = {"XDG_STATE_HOME": str(isolated_state)}
        result = run_kgroup(
            "-b",
            kafka_broker.bootstrap,
            "reset-offsets",
            group,
            "--topic",
            topic,
            "--to",
            "earliest",
            "--execute",
            env=env,
            expect=4,
        )
        assert "active member" in result.stderr and "stop the consumers" in result.stderr
        assert committed(kafka_broker.bootstrap, group) == {(topic, 0): 2}
        assert not (isolated_state / "kgroup" / "backups").exists()


def test_commit_between_plan_and_execute_is_refused(group_with_offsets) -> None:
    from kgroup.core.errors import SafetyRefusal
    from kgroup.reset.apply import execute_plan
    from kgroup.reset.gather import ResetScope, build_plans
    from kgroup.reset.strategy import parse_to

    bootstrap, topic, group, _env = group_with_offsets
    admin = admin_for(bootstrap)
    now_ms = int(time.time() * 1000)
    (plan,) = build_plans(admin, ResetScope([group], topics=[topic]), parse_to("earliest"), now_ms)
    commit_offsets(bootstrap, group, {(topic, 1): 7})  # someone commits in between
    with pytest.raises(SafetyRefusal) as refused:
        execute_plan(admin, plan, backup=None, several=False, now_ms=now_ms)
    assert f"{topic}:1 (planned from 5, now 7)" in refused.value.message
    assert committed(bootstrap, group) == {(topic, 0): 5, (topic, 1): 7, (topic, 2): 5}


def test_backup_and_undo_restore_the_previous_offsets(group_with_offsets, tmp_path) -> None:
    bootstrap, topic, group, env = group_with_offsets
    commit_offsets(bootstrap, group, {(topic, 0): 9, (topic, 1): 3, (topic, 2): 1})
    result = json.loads(
        run_kgroup(
            "-b",
            bootstrap,
            "reset-offsets",
            group,
            "--topic",
            topic,
            "--to",
            "latest",
            "--execute",
            "-o",
            "json",
            env=env,
        ).stdout
    )
    backup = result["groups"][0]["backup"]
    assert backup.startswith(env["XDG_STATE_HOME"]) and os.path.exists(backup)
    assert oct(os.stat(backup).st_mode & 0o777) == "0o600"
    assert committed(bootstrap, group) == {(topic, 0): 10, (topic, 1): 8, (topic, 2): 6}
    dry = json.loads(run_kgroup("-b", bootstrap, "undo", group, "-o", "json", env=env).stdout)
    assert {r["partition"]: r["new_offset"] for r in dry["groups"][0]["partitions"]} == {
        0: 9,
        1: 3,
        2: 1,
    }
    assert committed(bootstrap, group) == {(topic, 0): 10, (topic, 1): 8, (topic, 2): 6}
    run_kgroup("-b", bootstrap, "undo", group, "--execute", env=env)
    assert committed(bootstrap, group) == {(topic, 0): 9, (topic, 1): 3, (topic, 2): 1}


def test_undo_refuses_when_offsets_moved_since_the_reset(group_with_offsets) -> None:
    bootstrap, topic, group, env = group_with_offsets
    run_kgroup(
        "-b",
        bootstrap,
        "reset-offsets",
        group,
        "--topic",
        topic,
        "--to",
        "earliest",
        "--execute",
        env=env,
    )
    commit_offsets(bootstrap, group, {(topic, 2): 4})
    result = run_kgroup("-b", bootstrap, "undo", group, "--execute", env=env, expect=4)
    assert f"{topic}:2" in result.stderr
    assert committed(bootstrap, group)[(topic, 2)] == 4


def test_export_plan_round_trips_through_from_file(group_with_offsets, tmp_path) -> None:
    bootstrap, topic, group, env = group_with_offsets
    csv_path = tmp_path / "plan.csv"
    run_kgroup(
        "-b",
        bootstrap,
        "reset-offsets",
        group,
        "--topic",
        topic,
        "--shift-by",
        "2",
        "--export",
        str(csv_path),
        env=env,
    )
    assert csv_path.read_text().splitlines() == [
        f"{group},{topic},0,7",
        f"{group},{topic},1,7",
        f"{group},{topic},2,6",
    ]
    run_kgroup(
        "-b", bootstrap, "reset-offsets", group, "--from-file", str(csv_path), "--execute", env=env
    )
    assert committed(bootstrap, group) == {(topic, 0): 7, (topic, 1): 7, (topic, 2): 6}


def test_a_group_that_does_not_exist_is_refused_unless_allowed(
    kafka_broker, unique, isolated_state
) -> None:
    """A typo must not create a group: the plan says so, --execute refuses (exit 3) and
    commits nothing; --allow-new-group pre-creates it, as Kafka allows."""
    topic = f"pre-{unique}"
    group = f"pre-g-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [3, 3])
    args = [
        "-b",
        kafka_broker.bootstrap,
        "reset-offsets",
        group,
        "--topic",
        topic,
        "--to",
        "latest",
    ]
    env = {"XDG_STATE_HOME": str(isolated_state)}
    dry = run_kgroup(*args, env=env, expect=3)
    assert f"group {group} does not exist" in dry.stdout + dry.stderr
    assert "--execute would refuse" in dry.stderr
    refused = run_kgroup(*args, "--execute", "-o", "json", env=env, expect=3)
    outcome = json.loads(refused.stdout)["groups"][0]
    assert outcome["status"] == "refused" and "--allow-new-group" in outcome["error"]
    assert committed(kafka_broker.bootstrap, group) == {}
    run_kgroup(*args, "--execute", "--allow-new-group", env=env)
    assert committed(kafka_broker.bootstrap, group) == {(topic, 0): 3, (topic, 1): 3}


_FROZEN_COMMIT = """
import json, os, signal, sys, time
from kgroup.core.errors import UnreachableError
from kgroup.reset.apply import execute_plan
from kgroup.reset.gather import ResetScope, build_plans
from kgroup.reset.strategy import parse_to
from tests.helpers import admin_for

bootstrap, pid, topic, group, backup = sys.argv[1:6]
admin = admin_for(bootstrap, timeout_s=2)
now_ms = int(time.time() * 1000)
(plan,) = build_plans(admin, ResetScope([group], topics=[topic]), parse_to("latest"), now_ms)
from kgroup.core.wire.fence import GroupFence
real_commit = GroupFence.commit

def freeze_then_commit(*args, **kwargs):  # the commit goes through the group's fence
    os.kill(int(pid), signal.SIGSTOP)
    return real_commit(*args, **kwargs)

GroupFence.commit = freeze_then_commit
started = time.monotonic()
try:
    execute_plan(admin, plan, backup=backup, several=False, now_ms=now_ms)
    outcome = {"error": None}
except UnreachableError as exc:
    outcome = {"error": "UnreachableError", "exit_code": exc.exit_code, "message": exc.message}
outcome["seconds"] = time.monotonic() - started
print(json.dumps(outcome), flush=True)
os._exit(0)  # as the CLI ends here: no time for librdkafka to see the late answer
"""


def test_broker_stopping_during_execute_exits_6_and_keeps_the_backup(
    unique, tmp_path, monkeypatch
) -> None:
    """A private broker is frozen (SIGSTOP) just before the commit is sent: the commit times
    out (exit 6), the backup written before it remains, and once the broker runs again the
    group holds either the whole plan or none of it, never a part.

    The reset runs in a child process that ends right after the error, as `kgroup
    reset-offsets --execute` does: librdkafka can abort a process that is still running when
    the resumed broker answers the coordinator request it gave up on
    (confluentinc/librdkafka#4605; fix pending in #5397)."""
    import json
    import subprocess
    import sys

    from kgroup.reset.planfile import read_plan_file
    from kgroup.sandbox.broker import start_tansu, stop_process
    from tests.conftest import broker_choice

    if broker_choice()[0] != "tansu":
        pytest.skip("freezes a private tansu broker; the session broker is not tansu")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    state = start_tansu()
    try:
        topic, group = f"stop-{unique}", f"stop-g-{unique}"
        make_topic(state.bootstrap, topic, [5, 5])
        commit_offsets(state.bootstrap, group, {(topic, 0): 1, (topic, 1): 2})
        backup = tmp_path / "backup.json"
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
        child = subprocess.run(
            [
                sys.executable,
                "-c",
                _FROZEN_COMMIT,
                state.bootstrap,
                str(state.pid),
                topic,
                group,
                str(backup),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=root,
            env={
                **os.environ,
                "PYTHONPATH": root,
                "XDG_STATE_HOME": str(tmp_path / "state"),
                # tansu holds a join for half the session timeout: the session broker fixture
                # shortens it for the whole run, this private broker must too (alone or first)
                "KGROUP_FENCE_SESSION_TIMEOUT_MS": "2000",
            },
        )
        assert child.returncode == 0, child.stderr
        outcome = json.loads(child.stdout)
        assert outcome["error"] == "UnreachableError", (outcome, child.stderr)
        assert outcome["exit_code"] == 6
        assert outcome["seconds"] < 2 + 3
        assert str(backup) in outcome["message"]
        saved = read_plan_file(backup).plans[0]
        assert {(r.topic, r.partition): r.new_offset for r in saved.rows} == {
            (topic, 0): 1,
            (topic, 1): 2,
        }
        os.kill(state.pid, signal.SIGCONT)
        after = committed(state.bootstrap, group)
        assert after in ({(topic, 0): 1, (topic, 1): 2}, {(topic, 0): 5, (topic, 1): 5})
    finally:
        try:
            os.kill(state.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
        stop_process(state.pid, state.binary)


def test_several_groups_are_separate_units(kafka_broker, unique, isolated_state) -> None:
    """One group is refused (its offsets moved after planning would be stale: here it has an
    active member); the other is committed; the summary says which, and the exit code is 4."""
    topic = f"multi-{unique}"
    calm, busy = f"multi-calm-{unique}", f"multi-busy-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [6])
    commit_offsets(kafka_broker.bootstrap, calm, {(topic, 0): 2})
    with running_member(kafka_broker, busy, topic, {0: 1}):
        env = {"XDG_STATE_HOME": str(isolated_state)}
        result = run_kgroup(
            "-b",
            kafka_broker.bootstrap,
            "reset-offsets",
            calm,
            busy,
            "--topic",
            topic,
            "--to",
            "latest",
            "--execute",
            "-o",
            "json",
            env=env,
            expect=4,
        )
        status = {g["group"]: g["status"] for g in json.loads(result.stdout)["groups"]}
        assert status == {calm: "committed", busy: "refused"}
        assert committed(kafka_broker.bootstrap, calm) == {(topic, 0): 6}
        assert committed(kafka_broker.bootstrap, busy) == {(topic, 0): 1}


def test_commit_goes_in_one_offset_commit_request(group_with_offsets) -> None:
    """The reset's commit is one OffsetCommit to the coordinator through kgroup's own client
    (not librdkafka's AlterConsumerGroupOffsets, which can abort the process on a late
    answer, librdkafka#4605), and it lands."""
    from kgroup.core.models import CommittedOffset, TopicPartition

    bootstrap, topic, group, _env = group_with_offsets
    admin = admin_for(bootstrap)
    admin.alter_offsets(
        group, {TopicPartition(topic, p): CommittedOffset(offset=p + 1) for p in range(3)}
    )
    assert admin.wire is not None and admin.wire.request_counts["OffsetCommit"] == 1
    assert committed(bootstrap, group) == {(topic, 0): 1, (topic, 1): 2, (topic, 2): 3}


def test_execute_waits_out_the_join_delay_beyond_timeout(
    kafka_broker, unique, isolated_state
) -> None:
    """The coordinator may hold the fence's JoinGroup for its rebalance delay (Kafka:
    group.initial.rebalance.delay.ms, 3 s; tansu: half the session timeout, 3 s at 6 s): the
    join waits for it as Kafka's own consumer does (AbstractCoordinator: rebalance timeout + 5 s),
    so a --timeout shorter than the delay does not fail the reset."""
    topic, group = f"delay-{unique}", f"delay-g-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [4])
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 1})
    env = {"XDG_STATE_HOME": str(isolated_state), "KGROUP_FENCE_SESSION_TIMEOUT_MS": "6000"}
    args = ["-b", kafka_broker.bootstrap, "--timeout", "2", "reset-offsets", group]
    run_kgroup(*args, "--topic", topic, "--to", "latest", "--execute", env=env)
    assert committed(kafka_broker.bootstrap, group) == {(topic, 0): 4}
