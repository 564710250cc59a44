"""Progress on stderr, in one place: every bar and live line kgroup draws is built here.

`decode`'s reads (`Progress`), `check`'s sampling (`SamplingProgress`), Spark's finished tasks
(`TaskBar`, fed by kgroup.scan.spark_jobs.TaskProgress through its `TaskReport` protocol) and
simulate-assign's line (`LiveLine`, its text from kgroup/cli/simulate_progress.py). Run layers
report numbers through callbacks or protocols of their own and never import rich.

Terminals only: nothing is drawn when stderr is not a terminal or KGROUP_NO_PROGRESS is set;
the bars are transient (gone once done). rich is imported only when a bar is drawn.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

PROGRESS_MIN_BYTES = 32 * 1024 * 1024  # decode: a progress bar for inputs at least this big


def enabled() -> bool:
    """Whether progress is drawn: stderr is a terminal and KGROUP_NO_PROGRESS is not set."""
    return sys.stderr.isatty() and os.environ.get("KGROUP_NO_PROGRESS", "") == ""


def _task_columns(rp: Any) -> list[Any]:
    """Things done of all, and the time since the start (decode's records, Spark's tasks)."""
    return [
        rp.TextColumn("{task.description}"),
        rp.BarColumn(),
        rp.MofNCompleteColumn(),
        rp.TimeElapsedColumn(),
    ]


def _byte_columns(rp: Any) -> list[Any]:
    """Bytes read of all, the speed and the time left (decode's large inputs)."""
    return [
        rp.TextColumn("{task.description}"),
        rp.BarColumn(),
        rp.DownloadColumn(),
        rp.TransferSpeedColumn(),
        rp.TimeRemainingColumn(),
    ]


def _sampling_columns(rp: Any) -> list[Any]:
    """Rounds sampled of all, and the time left (check)."""
    return [
        rp.TextColumn("sampling"),
        rp.BarColumn(),
        rp.MofNCompleteColumn(),
        rp.TextColumn("{task.fields[left]} left"),
    ]


class _Bar:
    """One transient rich progress bar on stderr with one task: drawn from `_open` (when
    progress is drawn: `enabled`) until `stop`; rich is imported only then."""

    def __init__(self, no_color: bool) -> None:
        self.no_color = no_color
        self.enabled = enabled()
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self: _B) -> _B:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _open(
        self, columns: Callable[[Any], list[Any]], label: str, total: int | None, **fields: Any
    ) -> None:
        """Start the bar with the `columns` made from the rich.progress module."""
        if not self.enabled:
            return
        import rich.progress as rp

        from kgroup.render import stderr_console

        self.bar = rp.Progress(*columns(rp), console=stderr_console(self.no_color), transient=True)
        self.bar.start()
        self.task = self.bar.add_task(label, total=total, **fields)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


_B = TypeVar("_B", bound=_Bar)


class Progress(_Bar):
    """A rich progress bar on stderr for long reads (`decode`); silent when stderr is not a
    terminal or KGROUP_NO_PROGRESS is set."""

    def start_bytes(self, total: int, label: str) -> None:
        if total >= PROGRESS_MIN_BYTES:
            self._open(_byte_columns, label, total)

    def start_records(self, label: str) -> None:
        self._open(_task_columns, label, None)

    def advance(self, n: int) -> None:
        if self.bar is not None:
            self.bar.advance(self.task, n)

    def records(self, done: int, total: int) -> None:
        if self.bar is not None and (done % 1000 == 0 or done == total):
            self.bar.update(self.task, completed=done, total=total)


class SamplingProgress(_Bar):
    """`check`'s bar while it samples: rounds done of all, and the time left."""

    def update(self, done: int, total: int, seconds_left: float) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            self._open(_sampling_columns, "sampling", total, left="")
        from kgroup.core.timefmt import format_duration_ms

        self.bar.update(
            self.task, completed=done, left=format_duration_ms(round(seconds_left) * 1000)
        )


class TaskBar(_Bar):
    """Spark's finished tasks of all (kgroup.scan.spark_jobs.TaskReport): a bar from `start`
    to `stop`, once per Spark job; silent when progress is not drawn (`enabled`)."""

    def start(self, label: str) -> None:
        if self.bar is None:
            self._open(_task_columns, label, None)

    def tasks(self, done: int, total: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, total=total, completed=done)


class LiveLine:
    """One line on stderr redrawn 4 times a second from `text()` (simulate-assign's progress),
    so it moves even while the caller is busy; terminal-safe (no markup, no control
    characters). `start` and `stop` may come from different threads."""

    def __init__(self, no_color: bool, text: Callable[[], str]) -> None:
        self.no_color = no_color
        self.text = text
        self._live: Any = None

    def start(self) -> None:
        from rich.live import Live

        from kgroup.render import stderr_console

        self._live = Live(
            _Line(self.text),
            console=stderr_console(self.no_color),
            transient=True,
            refresh_per_second=4,
        )
        self._live.start()

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None


class _Line:
    """The renderable rich redraws: the text as it is now."""

    def __init__(self, text: Callable[[], str]) -> None:
        self.text = text

    def __rich__(self) -> Any:
        from rich.text import Text

        from kgroup.render.safe import terminal_safe

        return Text(terminal_safe(self.text()))  # no markup, no control characters
