"""Spark jobs seen from the driver: their failures as kgroup errors, their progress on stderr.

Exceptions raised in executors come back to the driver as Py4J / PySpark exceptions whose
text holds the Python traceback; `translate` finds the kgroup error in it and `spark_errors`
raises that instead (chained). `TaskProgress` draws finished tasks from Spark's status tracker.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator
from typing import Any

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


class TaskProgress:
    """A rich progress bar of finished Spark tasks on stderr, fed by the status tracker."""

    def __init__(self, spark: Any, console: Any, label: str = "spark") -> None:
        self.tracker = spark.sparkContext.statusTracker()
        self.console = console
        self.label = label
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> TaskProgress:
        if self.console is not None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _run(self) -> None:
        import rich.progress as rpg

        bar = rpg.Progress(
            rpg.TextColumn("{task.description}"),
            rpg.BarColumn(),
            rpg.MofNCompleteColumn(),
            rpg.TimeElapsedColumn(),
            console=self.console,
            transient=True,
        )
        task = bar.add_task(self.label, total=None)
        with bar:
            while not self._stop.wait(0.3):
                try:
                    stages = [
                        self.tracker.getStageInfo(s) for s in self.tracker.getActiveStageIds()
                    ]
                except Exception:
                    continue
                stages = [s for s in stages if s is not None]
                if stages:
                    total = sum(s.numTasks for s in stages)
                    done = sum(s.numCompletedTasks for s in stages)
                    bar.update(task, total=total, completed=done)
