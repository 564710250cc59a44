"""Progress bars on stderr, in one place: `decode`'s reads and `check`'s sampling.

Terminals only: nothing is drawn when stderr is not a terminal or KGROUP_NO_PROGRESS is set;
the bars are transient (gone once done). rich is imported only when a bar is drawn.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

PROGRESS_MIN_BYTES = 32 * 1024 * 1024  # decode: a progress bar for inputs at least this big


def _enabled() -> bool:
    return sys.stderr.isatty() and os.environ.get("KGROUP_NO_PROGRESS", "") == ""


class Progress:
    """A rich progress bar on stderr for long reads (`decode`); silent when stderr is not a
    terminal or KGROUP_NO_PROGRESS is set."""

    def __init__(self, no_color: bool) -> None:
        self.no_color = no_color
        self.bar: Any = None
        self.task: Any = None
        self.enabled = _enabled()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _start(self, total: int | None, label: str, columns: Callable[[Any], list[Any]]) -> None:
        if not self.enabled:
            return
        import rich.progress as rp

        from kgroup.render import stderr_console

        self.bar = rp.Progress(*columns(rp), console=stderr_console(self.no_color), transient=True)
        self.bar.start()
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
        self.enabled = _enabled()
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
            import rich.progress as rp

            from kgroup.render import stderr_console

            self.bar = rp.Progress(
                rp.TextColumn("sampling"),
                rp.BarColumn(),
                rp.MofNCompleteColumn(),
                rp.TextColumn("{task.fields[left]} left"),
                console=stderr_console(self.no_color),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task("sampling", total=total, left="")
        from kgroup.core.timefmt import format_duration_ms

        self.bar.update(
            self.task, completed=done, left=format_duration_ms(round(seconds_left) * 1000)
        )
