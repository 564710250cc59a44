"""Getting kgroup onto a Spark cluster's executors, with its compiled codec where it can load.

Source of truth: PySpark's "Python Package Management" guide: Python code with native parts
reaches executors through `spark.archives` (an archive unpacked in each executor's working
directory, here added with `SparkContext.addArchive`) put on the Python workers' path, or by
being installed in the executors' Python already. `addPyFile` zips cannot load extension
modules (zipimport), which left executors on the pure-Python codec.

What `start_session` does on a cluster master (`ship`):
1. A probe task reports what the executors' Python imports (`probe_task`): kgroup's version,
   whether its compiled extensions load, its extension suffix, kgroup's missing dependencies.
2. The same kgroup with its compiled codec there (same environment, or kgroup installed on
   the executors): nothing is shipped.
3. Otherwise this kgroup package is zipped (with its compiled extensions when the executors'
   Python has this one's extension suffix) and added as an archive, first on the workers'
   PYTHONPATH; a second probe confirms what the executors now load. Without a loadable
   compiled codec they decode in pure Python, and stderr says what that costs.
One line on stderr says which path was taken. The probe runs on one executor: a cluster's
executors are taken to share one Python setup, as Spark's own Python settings assume.
"""

from __future__ import annotations

import os
import re
import sysconfig
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kgroup.core.errors import KgroupError, UsageError

SHIP_DIR = "kgroup-shipped"  # the archive's directory in each executor's working directory
# kgroup's imports on the executors besides the standard library (pyproject dependencies the
# scan needs; pyarrow comes with PySpark's Arrow support)
EXECUTOR_DEPS = ("pyarrow", "confluent_kafka", "crc32c", "cramjam", "orjson")
PURE_RATE = "~31 k records/s per core in pure Python vs 100-140 k with the compiled codec"


@dataclass(frozen=True)
class ExecutorPython:
    """What a Python worker on an executor reported (`probe_task`)."""

    executable: str
    version: str
    ext_suffix: str
    kgroup_version: str | None
    compiled: bool
    missing: tuple[str, ...]

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> ExecutorPython:
        return cls(
            str(doc["executable"]),
            str(doc["version"]),
            str(doc["ext_suffix"]),
            doc.get("kgroup_version"),
            bool(doc.get("compiled")),
            tuple(doc.get("missing") or ()),
        )


@dataclass(frozen=True)
class Plan:
    """What to ship: nothing, or this kgroup with (or without) its compiled extensions."""

    ship: bool
    compiled: bool


def loopback(master: str) -> bool:
    """True for a master on this machine's loopback address (`spark://127.0.0.1:7077`): its
    executors run here, so they get the driver's Python unless PYSPARK_PYTHON or
    spark.pyspark.python say otherwise. Elsewhere PySpark's default (`python3`) applies."""
    from urllib.parse import urlsplit

    host = urlsplit(master.split(",")[0]).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


def probe_task() -> Callable[[Any], dict[str, Any]]:
    """The probe's task function. Defined inside a function, so cloudpickle sends it by value:
    it must run where kgroup does not import, so it refers to nothing of kgroup's."""
    deps = EXECUTOR_DEPS

    def probe(_n: Any) -> dict[str, Any]:
        import importlib
        import sys as _sys
        import sysconfig as _sc

        doc: dict[str, Any] = {
            "executable": _sys.executable,
            "version": f"{_sys.version_info[0]}.{_sys.version_info[1]}",
            "ext_suffix": _sc.get_config_var("EXT_SUFFIX") or "",
            "kgroup_version": None,
            "compiled": False,
            "missing": [],
        }
        for dep in deps:
            try:
                importlib.import_module(dep)
            except ImportError:
                doc["missing"].append(dep)
        try:
            kgroup = importlib.import_module("kgroup")
            doc["kgroup_version"] = getattr(kgroup, "__version__", "?")
            importlib.import_module("kgroup.offsets._speedups")
            importlib.import_module("kgroup.scan._arrow_rows")
            doc["compiled"] = True
        except ImportError:
            pass
        return doc

    return probe


PROBE_TIMEOUT_S = 180.0
_PROBE_GROUP = "kgroup-probe"


def run_probe(spark: Any, timeout_s: float | None = None) -> ExecutorPython:
    """Run the probe as one task on an executor.

    A cluster that gives the application no executor would leave the job waiting forever
    (Spark only logs "Initial job has not accepted any resources"): after `timeout_s` the
    probe is cancelled and that is the error.
    """
    import threading

    timeout_s = PROBE_TIMEOUT_S if timeout_s is None else timeout_s
    sc = spark.sparkContext
    expired = threading.Event()

    def cancel() -> None:
        expired.set()
        sc.cancelJobGroup(_PROBE_GROUP)

    timer = threading.Timer(timeout_s, cancel)
    timer.daemon = True
    sc.setJobGroup(_PROBE_GROUP, "kgroup: what the executors' Python imports")
    timer.start()
    try:
        doc = sc.parallelize([0], 1).map(probe_task()).collect()[0]
    except Exception as exc:
        raise probe_error(exc, sc.pythonExec, timeout_s if expired.is_set() else None) from exc
    finally:
        timer.cancel()
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)
    return ExecutorPython.from_dict(doc)


def probe_error(exc: BaseException, python: str, expired_after: float | None) -> KgroupError:
    """The one-line error of a probe that failed: no executor in time, or no Python there."""
    if expired_after is not None:
        return KgroupError(
            f"no Spark executor ran kgroup's first task within {expired_after:.0f} s",
            hint="check that the cluster has free cores and memory for spark.executor.memory "
            "(the master's web UI lists its workers and applications)",
        )
    text = str(exc)
    cause = re.search(r"Cannot run program [^\n]*", text)
    if cause:
        return UsageError(
            f"the executors cannot start their Python: {cause.group(0)[:200]}",
            hint="set PYSPARK_PYTHON (or --spark-conf spark.pyspark.python=PATH) to a Python "
            "that exists on every worker",
        )
    first = text.strip().splitlines()[0][:300] if text.strip() else type(exc).__name__
    return KgroupError(f"the executors could not run kgroup's probe task: {first}")


def local_compiled() -> list[str]:
    """This kgroup's compiled extension files (package-relative paths), if built."""
    root = package_dir()
    found = []
    for folder, _dirs, files in os.walk(root):
        for name in files:
            if name.endswith(ext_suffix()):
                found.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(found)


def package_dir() -> str:
    import kgroup

    return os.path.dirname(os.path.abspath(kgroup.__file__))


def ext_suffix() -> str:
    return sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def plan(seen: ExecutorPython, version: str, compiled_here: bool) -> Plan:
    """Ship or not, from what the executors have (pure logic)."""
    if seen.kgroup_version == version and seen.compiled:
        return Plan(ship=False, compiled=True)
    return Plan(ship=True, compiled=compiled_here and seen.ext_suffix == ext_suffix())


def missing_problem(seen: ExecutorPython) -> str | None:
    """Why kgroup cannot run on the executors whatever is shipped (its dependencies), or None."""
    if not seen.missing:
        return None
    return (
        f"the executors' Python ({seen.executable}, {seen.version}) lacks "
        f"{', '.join(seen.missing)}, which kgroup needs there"
    )


MISSING_HINT = (
    "pip install kgroup (with its dependencies) into the executors' Python, or pack an "
    "environment (venv-pack -o env.tar.gz) and pass --spark-conf "
    "spark.archives=env.tar.gz#environment --spark-conf "
    "spark.pyspark.python=./environment/bin/python"
)


def outcome(seen: ExecutorPython, shipped: ExecutorPython | None, size: int, version: str) -> str:
    """The stderr line saying which path was taken (pure logic)."""
    where = f"the executors' Python ({seen.executable}, {seen.version})"
    if shipped is None:
        return f"spark: {where} imports kgroup {version} with its compiled codec: nothing shipped"
    had = (
        "has no kgroup"
        if seen.kgroup_version is None
        else f"has kgroup {seen.kgroup_version}"
        + ("" if seen.compiled else " without its compiled codec")
    )
    sent = f"shipped kgroup {version} ({size / 1024:,.0f} KiB, spark.archives)"
    if shipped.kgroup_version == version and shipped.compiled:
        return f"spark: {where} {had}: {sent} with its compiled codec"
    why = (
        f"its extensions are built for {ext_suffix()}, the executors need {seen.ext_suffix}"
        if seen.ext_suffix != ext_suffix()
        else "its compiled codec did not load there"
    )
    return (
        f"spark: {where} {had}: {sent} in pure Python ({why}); executors decode {PURE_RATE}: "
        f"pip install kgroup=={version} into the executors' Python for the compiled codec"
    )


def make_archive(folder: str, compiled: bool) -> str:
    """Zip this kgroup package (its sources, plus its compiled extensions when `compiled`) into
    `folder`; the archive's path. The JSON message declarations stay behind: they are build
    input, and the executors' decoders run the generated modules."""
    root = package_dir()
    base = os.path.dirname(root)
    path = os.path.join(folder, f"{SHIP_DIR}.zip")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for dirpath, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                keep = name.endswith(".py") or (compiled and name.endswith(ext_suffix()))
                if keep or name == "py.typed":
                    full = os.path.join(dirpath, name)
                    zf.write(full, os.path.relpath(full, base))
    return path


def ship(spark: Any, workdir: str, note: Callable[[str], None]) -> ExecutorPython:
    """Make kgroup importable on the executors (see the module docstring); what they load.

    Raises UsageError when the executors' Python lacks kgroup's dependencies.
    """
    import kgroup

    seen = run_probe(spark)
    problem = missing_problem(seen)
    if problem:
        raise UsageError(problem, hint=MISSING_HINT)
    decided = plan(seen, kgroup.__version__, bool(local_compiled()))
    if not decided.ship:
        note(outcome(seen, None, 0, kgroup.__version__))
        return seen
    archive = make_archive(workdir, decided.compiled)
    sc = spark.sparkContext
    sc.addArchive(f"{archive}#{SHIP_DIR}")
    # relative to the executor's working directory, where archives are unpacked (as the
    # guide's ./environment/bin/python); ahead of the executors' own site-packages
    path = sc.environment.get("PYTHONPATH")
    sc.environment["PYTHONPATH"] = SHIP_DIR + (os.pathsep + path if path else "")
    shipped = run_probe(spark)
    note(outcome(seen, shipped, os.path.getsize(archive), kgroup.__version__))
    return shipped
