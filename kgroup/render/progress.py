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
from typing import Any

PROGRESS_MIN_BYTES = 32 * 1024 * 1024  # decode: a progress bar for inputs at least this big


def enabled() -> bool:
    """Whether progress is drawn: stderr is a terminal and KGROUP_NO_PROGRESS is not set."""
    return sys.stderr.isatty() and os.environ.get("KGROUP_NO_PROGRESS", "") == ""


def _bar(no_color: bool, columns: Callable[[Any], list[Any]]) -> Any:
    """A started, transient rich progress bar on stderr with the `columns` made from the
    rich.progress module (every bar of kgroup is made here)."""
    import rich.progress as rp

    from kgroup.render import stderr_console

    bar = rp.Progress(*columns(rp), console=stderr_console(no_color), transient=True)
    bar.start()
    return bar


class Progress:
    """A rich progress bar on stderr for long reads (`decode`); silent when stderr is not a
    terminal or KGROUP_NO_PROGRESS is set."""

    def __init__(self, no_color: bool) -> None:
        self.no_color = no_color
        self.bar: Any = None
        self.task: Any = None
        self.enabled = enabled()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _start(self, total: int | None, label: str, columns: Callable[[Any], list[Any]]) -> None:
        if not self.enabled:
            return
        self.bar = _bar(self.no_color, columns)
        self.task = self.bar.add_task(label, total=total)

    def start_bytes(self, total: int, label: str) -> None:
        if total < PROGRESS_MIN_BYTES:
            return
        self._start(
            total,
            label,
            lambda rp: [
                rp.TextColumn("{task.description}"),
                rp.BarColumn(),
                rp.DownloadColumn(),
                rp.TransferSpeedColumn(),
                rp.TimeRemainingColumn(),
            ],
        )

    def start_records(self, label: str) -> None:
        self._start(
            None,
            label,
            lambda rp: [
                rp.TextColumn("{task.description}"),
                rp.BarColumn(),
                rp.MofNCompleteColumn(),
                rp.TimeElapsedColumn(),
            ],
        )

    def advance(self, n: int) -> None:
        if self.bar is not None:
            self.bar.advance(self.task, n)

    def records(self, done: int, total: int) -> None:
        if self.bar is not None and (done % 1000 == 0 or done == total):
            self.bar.update(self.task, completed=done, total=total)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


class SamplingProgress:
    """`check`'s bar while it samples: rounds done of all, and the time left."""

    def __init__(self, no_color: bool) -> None:
        self.no_color = no_color
        self.enabled = enabled()
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> SamplingProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def update(self, done: int, total: int, seconds_left: float) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            self.bar = _bar(
                self.no_color,
                lambda rp: [
                    rp.TextColumn("sampling"),
                    rp.BarColumn(),
                    rp.MofNCompleteColumn(),
                    rp.TextColumn("{task.fields[left]} left"),
                ],
            )
            self.task = self.bar.add_task("sampling", total=total, left="")
        from kgroup.core.timefmt import format_duration_ms

        self.bar.update(
            self.task, completed=done, left=format_duration_ms(round(seconds_left) * 1000)
        )


def _task_columns(rp: Any) -> list[Any]:
    return [
        rp.TextColumn("{task.description}"),
        rp.BarColumn(),
        rp.MofNCompleteColumn(),
        rp.TimeElapsedColumn(),
    ]


class TaskBar:
    """Spark's finished tasks of all (kgroup.scan.spark_jobs.TaskReport): a bar from `start`
    to `stop`, once per Spark job; silent when progress is not drawn (`enabled`)."""

    def __init__(self, no_color: bool) -> None:
        self.no_color = no_color
        self.enabled = enabled()
        self.bar: Any = None
        self.task: Any = None

    def start(self, label: str) -> None:
        if self.enabled and self.bar is None:
            self.bar = _bar(self.no_color, _task_columns)
            self.task = self.bar.add_task(label, total=None)

    def tasks(self, done: int, total: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, total=total, completed=done)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


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
