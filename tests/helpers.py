"""Helpers shared by the CLI and integration tests."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass

# Settings of the test session's broker that every kgroup run needs (conftest.kafka_broker).
KEPT_ENV = ("KGROUP_FENCE_SESSION_TIMEOUT_MS",)


@dataclass
class Result:
    """What a kgroup run printed and returned."""

    code: int
    stdout: str
    stderr: str
    seconds: float


def run_kgroup(
    *args: str,
    env: dict[str, str] | None = None,
    expect: int | None = 0,
    timeout: float = 120,
    input_text: str | None = None,
) -> Result:
    """Run `python -m kgroup ARGS` as a real subprocess.

    Fails the test on an unexpected exit code (pass `expect=None` to accept any).
    """
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("KGROUP_") or k in KEPT_ENV}
    full_env.pop("NO_COLOR", None)
    full_env.update(env or {})
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "kgroup", *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        input=input_text,
    )
    result = Result(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started)
    if expect is not None and proc.returncode != expect:
        raise AssertionError(
            f"kgroup {' '.join(args)} exited {proc.returncode}, expected {expect}"
            f"\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        )
    return result


def admin_for(bootstrap: str, timeout_s: float = 15.0):  # -> GroupAdmin
    from kgroup.core.admin import GroupAdmin
    from kgroup.core.config import ClusterConfig

    return GroupAdmin(ClusterConfig(bootstrap_servers=bootstrap, timeout_s=timeout_s))


def make_topic(
    bootstrap: str,
    topic: str,
    records_per_partition: list[int],
    base_timestamp_ms: int = 1_767_225_600_000,
) -> None:
    """Create `topic` and produce the given number of records to each partition, one per request.

    Record i of partition p has timestamp base + i minutes + p seconds.
    """
    from kgroup.core.clients import SeedRecord, create_topics, produce_one_per_request

    admin = admin_for(bootstrap)
    create_topics(admin, {topic: len(records_per_partition)})
    records = [
        SeedRecord(topic, p, base_timestamp_ms + i * 60_000 + p * 1000, None, b"v%d" % i)
        for p, count in enumerate(records_per_partition)
        for i in range(count)
    ]
    produce_one_per_request(admin, records)


def commit_offsets(bootstrap: str, group: str, offsets: dict[tuple[str, int], int]) -> None:
    """Commit offsets for a group without members (a real OffsetCommit through the admin API)."""
    from kgroup.core.clients import commit_as_empty_group
    from kgroup.core.models import TopicPartition

    commit_as_empty_group(
        admin_for(bootstrap), group, {TopicPartition(t, p): o for (t, p), o in offsets.items()}
    )


@contextmanager
def running_member(broker, group: str, topic: str, commit: dict[int, int]):
    """A real member of `group` (subscribed to `topic`, having committed `commit`) for the
    duration of the block; the session's broker decides the tansu-only timing settings."""
    from kgroup.core.models import TopicPartition
    from kgroup.sandbox.broker import stop_process
    from kgroup.sandbox.seed import start_member

    pid = start_member(
        broker.bootstrap,
        "tansu" if broker.is_tansu else "docker",
        group,
        [topic],
        {TopicPartition(topic, p): o for p, o in commit.items()},
        wait_s=60,
    )
    try:
        yield pid
    finally:
        stop_process(pid, "kgroup.sandbox.member", grace_s=20)
