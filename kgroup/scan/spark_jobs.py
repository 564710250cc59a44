"""Spark jobs seen from the driver: their failures as kgroup errors, their progress reported.

Exceptions raised in executors come back to the driver as Py4J / PySpark exceptions whose
text holds the Python traceback; `translate` finds the kgroup error in it and `spark_errors`
raises that instead (chained). `TaskProgress` reports finished tasks from Spark's status
tracker to a `TaskReport` (cli/ gives kgroup.render.progress.TaskBar; nothing here draws).
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator
from typing import Any, Protocol

from kgroup.core import errors as kerrors
from kgroup.core.errors import CorruptInputError, KgroupError

_ERROR = re.compile(r"kgroup\.(?:core\.errors|offsets\.records)\.(\w+): ([^\n]+)")


def translate(exc: BaseException) -> KgroupError | None:
    """The kgroup error an executor raised, from the text Spark brings back (None if none)."""
    matches = list(_ERROR.finditer(str(exc)))
    if not matches:
        return None
    match = matches[-1]  # the last one is the outermost raise
    if match is None:
        return None
    name, message = match.group(1), match.group(2).strip()
    if name == "BatchError" or name == "CorruptInputError":
        return CorruptInputError(
            message, hint="pass --skip-corrupt to report bad batches and continue"
        )
    cls = getattr(kerrors, name, None)
    if isinstance(cls, type) and issubclass(cls, KgroupError):
        return cls(message)
    return None


@contextlib.contextmanager
def spark_errors() -> Iterator[None]:
    """Spark job failures -> the kgroup error behind them (chained), else a KgroupError."""
    try:
        yield
    except KgroupError:
        raise
    except Exception as exc:
        if type(exc).__module__.startswith(("pyspark", "py4j")):
            mapped = translate(exc)
            if mapped is not None:
                raise mapped from exc
            first = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
            raise KgroupError(f"the Spark job failed: {type(exc).__name__}: {first}") from exc
        raise


class TaskReport(Protocol):
    """Where `TaskProgress` reports a Spark job's tasks (kgroup.render.progress.TaskBar)."""

    def start(self, label: str) -> None:
        """A job began: its tasks are not known yet."""

    def tasks(self, done: int, total: int) -> None:
        """`done` of the `total` tasks of the active stages have finished."""

    def stop(self) -> None:
        """The job ended (or failed)."""


POLL_S = 0.3
"""How often the status tracker is asked."""


def finished_tasks(tracker: Any) -> tuple[int, int] | None:
    """(finished, all) tasks of the active stages as Spark's status tracker tells them; None
    while no stage runs or the tracker cannot tell."""
    try:
        stages = [tracker.getStageInfo(s) for s in tracker.getActiveStageIds()]
    except Exception:
        return None
    stages = [s for s in stages if s is not None]
    if not stages:
        return None
    return sum(s.numCompletedTasks for s in stages), sum(s.numTasks for s in stages)


class TaskProgress:
    """Finished Spark tasks, polled from the status tracker on a thread while the job runs and
    reported to `report` (None: nothing is polled)."""

    def __init__(self, spark: Any, report: TaskReport | None, label: str = "spark") -> None:
        self.tracker = spark.sparkContext.statusTracker()
        self.report = report
        self.label = label
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> TaskProgress:
        if self.report is not None:
            self._thread = threading.Thread(target=self._run, args=(self.report,), daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _run(self, report: TaskReport) -> None:
        report.start(self.label)
        try:
            while not self._stop.wait(POLL_S):
                counts = finished_tasks(self.tracker)
                if counts is not None:
                    report.tasks(*counts)
        finally:
            report.stop()
