"""The Spark standalone cluster of the `spark_cluster` tests: one master and two 1-core workers
for the whole session (cluster.py), plus the arguments every `kgroup decode` run on it takes."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

FIXTURES = Path("/work/shared/fixtures/consumer-offsets-segments")
FIXTURE_DIRS = sorted(
    str(p) for p in FIXTURES.glob("*/__consumer_offsets-*") if any(p.glob("*.log"))
)


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """A master and two workers (1 core, 1 GB each); stopped at the end of the session."""
    pytest.importorskip("pyspark")
    pytest.importorskip("pyarrow")
    from kgroup.scan.spark import java_problem

    if java_problem():
        pytest.skip(java_problem() or "")
    from tests.integration.spark_cluster.cluster import SparkCluster

    cluster = SparkCluster(tmp_path_factory.mktemp("spark-cluster"))
    try:
        cluster.start(workers=2)
        yield cluster
    finally:
        cluster.stop()


def cluster_args(cluster, *conf: str) -> list[str]:
    """`--engine spark` on the cluster, sized for this 2-core machine (TEST_ENVIRONMENT.md)."""
    args = ["--engine", "spark", "--spark-master", cluster.url]
    for kv in (
        "spark.executor.memory=512m",
        "spark.executor.extraJavaOptions=-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
        *conf,
    ):
        args += ["--spark-conf", kv]
    return args


@pytest.fixture(scope="session")
def small_segments(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The shared real fixtures plus ~3 MB of generated segments (6 files over 3 partitions)."""
    from tests.scan_data import write_segments

    generated = write_segments(tmp_path_factory.mktemp("cluster-small") / "logs")
    return [*FIXTURE_DIRS, str(generated)]


@pytest.fixture(scope="session")
def big_segments(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Generated segments large enough for a job of several seconds on the cluster."""
    from tests.scan_data import write_segments

    return str(write_segments(tmp_path_factory.mktemp("cluster-big") / "logs", 8 * 2**20))


@pytest.fixture(scope="session")
def foreign_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A Python with kgroup's dependencies but without kgroup: a venv of the same interpreter
    whose .pth names this environment's site-packages (whose editable kgroup hook only runs
    from a site directory, so kgroup does not import)."""
    import subprocess
    import sys
    import sysconfig

    root = tmp_path_factory.mktemp("foreign") / "venv"
    base = os.path.join(
        sys.base_prefix, "bin", f"python{sys.version_info[0]}.{sys.version_info[1]}"
    )
    if not os.path.exists(base):
        base = shutil.which(f"python{sys.version_info[0]}.{sys.version_info[1]}") or base
    subprocess.run([base, "-m", "venv", "--without-pip", str(root)], check=True)
    python = str(root / "bin" / "python")
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(site, "kgroup-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # in-process local Spark sessions of earlier tests put kgroup's root on this process's
    # PYTHONPATH (for their executors): the foreign Python must not inherit it
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    probe = subprocess.run(
        [python, "-c", "import kgroup"], capture_output=True, cwd=root, env=clean
    )
    assert probe.returncode != 0, "the foreign Python must not import kgroup"
    return python
