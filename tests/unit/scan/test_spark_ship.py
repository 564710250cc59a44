"""What kgroup ships to a cluster's executors, decided from the probe's report (pure logic;
the cluster tests in tests/integration/spark_cluster run both real paths)."""

from __future__ import annotations

import zipfile

import pytest

from kgroup.scan import spark_ship as sh

VERSION = "0.1.0"
SAME = sh.ext_suffix()
OTHER = ".cpython-399-sparc-sunos.so"


def seen(kgroup_version=None, compiled=False, suffix=SAME, missing=()) -> sh.ExecutorPython:
    return sh.ExecutorPython(
        "/opt/py/bin/python3", "3.11", suffix, kgroup_version, compiled, missing
    )


def test_same_kgroup_with_its_codec_ships_nothing() -> None:
    assert sh.plan(seen(VERSION, True), VERSION, True) == sh.Plan(ship=False, compiled=True)
    line = sh.outcome(seen(VERSION, True), None, 0, VERSION)
    assert line == (
        "spark: the executors' Python (/opt/py/bin/python3, 3.11) imports kgroup 0.1.0 with "
        "its compiled codec: nothing shipped"
    )


@pytest.mark.parametrize(
    "executors",
    [seen(), seen("0.0.9", True), seen(VERSION, False)],
    ids=["no-kgroup", "other-version", "no-codec"],
)
def test_anything_else_ships_this_kgroup_compiled(executors) -> None:
    assert sh.plan(executors, VERSION, True) == sh.Plan(ship=True, compiled=True)


def test_a_foreign_platform_gets_pure_python_and_the_cost_on_stderr() -> None:
    executors = seen(suffix=OTHER)
    assert sh.plan(executors, VERSION, True) == sh.Plan(ship=True, compiled=False)
    after = seen(VERSION, False, OTHER)
    line = sh.outcome(executors, after, 300 * 1024, VERSION)
    assert "has no kgroup: shipped kgroup 0.1.0 (300 KiB, spark.archives) in pure Python" in line
    assert f"built for {SAME}, the executors need {OTHER}" in line
    assert "~31 k records/s per core in pure Python vs 100-140 k" in line
    assert line.endswith(
        "pip install kgroup==0.1.0 into the executors' Python for the compiled codec"
    )


def test_shipped_and_loaded_with_the_codec() -> None:
    line = sh.outcome(seen("0.0.9", True), seen(VERSION, True), 2048, VERSION)
    assert line.endswith(
        "has kgroup 0.0.9: shipped kgroup 0.1.0 (2 KiB, spark.archives) with its compiled codec"
    )


def test_missing_dependencies_are_an_error_with_the_way_out() -> None:
    assert sh.missing_problem(seen()) is None
    problem = sh.missing_problem(seen(missing=("crc32c", "orjson")))
    assert problem == (
        "the executors' Python (/opt/py/bin/python3, 3.11) lacks crc32c, orjson, which kgroup "
        "needs there"
    )
    assert "spark.archives=env.tar.gz#environment" in sh.MISSING_HINT


@pytest.mark.skipif(not sh.local_compiled(), reason="the C extensions are not built here")
@pytest.mark.parametrize("compiled", [True, False])
def test_archive_holds_the_package_with_or_without_its_extensions(tmp_path, compiled) -> None:
    path = sh.make_archive(str(tmp_path), compiled)
    names = zipfile.ZipFile(path).namelist()
    assert "kgroup/__init__.py" in names and "kgroup/offsets/layouts.py" in names
    # the decoders' generated modules, not the JSON declarations they were made from
    assert "kgroup/protocol/generated/declarations/coordinator.py" in names
    assert "kgroup/offsets/generated/programs.py" in names
    assert not any(n.endswith(".json") for n in names)
    assert not any("__pycache__" in n or n.endswith(".c") for n in names)
    so = sorted(n for n in names if n.endswith(SAME))
    expected = sorted(f"kgroup/{p}" for p in sh.local_compiled())
    assert so == (expected if compiled else [])


@pytest.mark.parametrize(
    ("master", "here"),
    [
        ("spark://127.0.0.1:7077", True),
        ("spark://localhost:7077", True),
        ("spark://spark-master.prod:7077", False),
        ("spark://10.0.0.5:7077,10.0.0.6:7077", False),
        ("yarn", False),
    ],
)
def test_loopback_masters_run_executors_on_the_driver_python(master, here) -> None:
    assert sh.loopback(master) is here


def test_executors_without_that_python_get_a_one_line_error() -> None:
    from kgroup.core.errors import UsageError

    text = (
        "An error occurred while calling collect.\n: org.apache.spark.SparkException: Job "
        'aborted\njava.io.IOException: Cannot run program "/nope/python": error=2, No such '
        "file or directory\n\tat java.base/java.lang.ProcessBuilder.start"
    )
    err = sh.probe_error(RuntimeError(text), "/nope/python", None)
    assert isinstance(err, UsageError)
    assert err.message == (
        'the executors cannot start their Python: Cannot run program "/nope/python": error=2, '
        "No such file or directory"
    )
    assert "spark.pyspark.python" in (err.hint or "")


def test_a_cluster_without_room_for_an_executor_is_an_error_not_a_hang() -> None:
    err = sh.probe_error(RuntimeError("Job 0 cancelled part of cancelled job group"), "py", 180)
    assert err.message == "no Spark executor ran kgroup's first task within 180 s"
    assert "spark.executor.memory" in (err.hint or "")
