"""Starting Spark for kgroup: a quiet SparkSession with kgroup's data sources registered.

Java is checked first (`java_problem`). The JVM's output goes to a log file named only when
start-up fails; the JVM maps Spark's classes from a class-data-sharing archive made by the first
run (`cds_archive_path`). A local or loopback master gets this Python for its executors; on a
cluster master (`spark://...`), `start_session` makes sure the executors import this kgroup
with its compiled codec (`kgroup.scan.spark_ship`: nothing shipped when their Python has it,
else the package as a `spark.archives` zip), and says on stderr which path it took.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import sys
import tempfile
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

from kgroup.core.errors import UsageError
from kgroup.core.notes import note
from kgroup.scan import spark_ship
from kgroup.scan.spark_jobs import spark_errors
from kgroup.scan.spark_sources import SegmentSource, TopicSource

LOG4J = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""

QUIET_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
}


def _kgroup_root() -> str:
    import kgroup

    return os.path.dirname(os.path.dirname(os.path.abspath(kgroup.__file__)))


@contextlib.contextmanager
def _jvm_output_to(path: str) -> Iterator[None]:
    """The JVM inherits fds 1 and 2 at launch: point them at a log file meanwhile.

    Spark's banner, JVM warnings and Python worker output then never reach the user's stdout
    (nor stderr); the log file is named when something fails.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for f in (*saved, fd):
            os.close(f)


def start_session(
    master: str | None = None, conf: Iterable[tuple[str, str]] = (), app_name: str = "kgroup"
) -> Any:
    """A quiet SparkSession with kgroup's data sources registered.

    `master` defaults to `local[*]`; `conf` pairs are applied last (so they override kgroup's
    defaults). Java is checked first. A local or loopback master gets SPARK_LOCAL_IP=127.0.0.1
    and this Python for its executors (unless PYSPARK_PYTHON or spark.pyspark.python say
    otherwise); on a cluster master kgroup is then made importable on the executors
    (`spark_ship.ship`, one line on stderr).
    """
    problem = java_problem()
    if problem:
        raise UsageError(problem)
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    master = master or "local[*]"
    local = master.startswith("local")
    executors_python = dict(conf).get("spark.pyspark.python")
    if executors_python:  # PySpark takes the executors' Python from the driver's environment
        os.environ["PYSPARK_PYTHON"] = executors_python
    elif (local or spark_ship.loopback(master)) and not os.environ.get("PYSPARK_PYTHON"):
        os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if local or spark_ship.loopback(master):  # executors here reach the driver on loopback
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    if local:
        root = _kgroup_root()
        path = os.environ.get("PYTHONPATH", "")
        if root not in path.split(os.pathsep):
            os.environ["PYTHONPATH"] = root + (os.pathsep + path if path else "")
    logdir = tempfile.mkdtemp(prefix="kgroup-spark-")
    log4j = os.path.join(logdir, "log4j2.properties")
    with open(log4j, "w", encoding="utf-8") as fh:
        fh.write(LOG4J)
    settings = dict(QUIET_CONF)
    settings.update(conf)
    java_opts = "spark.driver.extraJavaOptions"
    archive = None
    if java_opts not in dict(conf):  # the user's own JVM options are taken as they are
        archive = cds_archive_path()
    record_archive = archive is not None and not os.path.exists(archive)
    if archive is not None:
        settings[java_opts] += (
            " -XX:+RecordDynamicDumpInfo"
            if record_archive
            else f" -XX:SharedArchiveFile={archive} -Xshare:auto"
        )
    settings[java_opts] = f"{settings[java_opts]} -Dlog4j2.configurationFile=file:{log4j}".strip()

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName(app_name)
    for k, v in settings.items():
        builder = builder.config(k, v)
    log = os.path.join(logdir, "spark.log")
    try:
        with _jvm_output_to(log):
            spark = builder.getOrCreate()
    except Exception as exc:
        raise UsageError(
            f"Spark did not start ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})",
            hint=f"Spark's log: {log}",
        ) from exc
    spark.sparkContext.setLogLevel("ERROR")
    atexit.register(shutil.rmtree, logdir, True)  # the log matters only when start-up fails
    if record_archive and archive is not None:
        atexit.register(_dump_cds_archive, spark, archive)
    if not local:
        try:
            with spark_errors():
                spark_ship.ship(spark, logdir, note)
        except BaseException:
            spark.stop()
            raise
    spark.dataSource.register(SegmentSource)
    spark.dataSource.register(TopicSource)
    return spark


CDS_ENV = "KGROUP_SPARK_CDS"


def cds_archive_path() -> str | None:
    """Where the class-data-sharing archive of this JDK + pyspark lives, or None (switched
    off with KGROUP_SPARK_CDS=0, or no jcmd to make one).

    The JVM maps the classes of Spark's ~400 jars from this archive instead of loading and
    verifying them one by one: the session starts 3-5 s sooner on 2 cores. JDK 17 cannot make
    the archive itself at exit for an application like Spark, so the first Spark run records
    what it loads and `jcmd VM.cds dynamic_dump` writes the archive (~110 MB, once per JDK and
    pyspark install, ~7 s at the end of that run). A stale or foreign archive is ignored by
    the JVM (-Xshare:auto).
    """
    if os.environ.get(CDS_ENV, "1") == "0" or _jdk_tool("jcmd") is None:
        return None
    import hashlib

    import pyspark

    java = _jdk_tool("java")
    jars = os.path.join(os.path.dirname(pyspark.__file__), "jars")
    try:
        ident = f"{java}:{os.path.getmtime(java or '')}:{pyspark.__version__}:" + ",".join(
            sorted(os.listdir(jars))
        )
    except OSError:
        return None
    key = hashlib.sha256(ident.encode()).hexdigest()[:16]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kgroup", "spark-cds", f"spark-{key}.jsa")


def _jdk_tool(name: str) -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home:
        tool = os.path.join(home, "bin", name)
        return tool if os.access(tool, os.X_OK) else None
    found = shutil.which(name)
    return os.path.realpath(found) if found else None


def _dump_cds_archive(spark: Any, archive: str) -> None:
    """Write the archive of the classes this session's JVM loaded (best effort, at exit)."""
    import subprocess

    jcmd = _jdk_tool("jcmd")
    folder = os.path.dirname(archive)
    tmp = f"{archive}.{os.getpid()}.tmp"
    try:
        pid = spark._jvm.java.lang.ProcessHandle.current().pid()
        os.makedirs(folder, exist_ok=True)
        done = subprocess.run(
            [jcmd or "jcmd", str(pid), "VM.cds", "dynamic_dump", tmp],
            capture_output=True,
            timeout=120,
            check=False,
        )
        if done.returncode == 0 and os.path.exists(tmp):
            for old in os.listdir(folder):  # archives of earlier JDK / pyspark installs
                if old.endswith(".jsa"):
                    os.unlink(os.path.join(folder, old))
            os.replace(tmp, archive)
    except Exception:  # an archive is an optimisation, never a failure
        pass
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def java_problem() -> str | None:
    """Why Spark cannot start for lack of Java, or None."""
    home = os.environ.get("JAVA_HOME")
    if home:
        if os.access(os.path.join(home, "bin", "java"), os.X_OK):
            return None
        return f"JAVA_HOME={home} has no bin/java: the Spark engine needs Java 17"
    if shutil.which("java"):
        return None
    return "the Spark engine needs Java 17: install it and set JAVA_HOME (or put java on PATH)"
