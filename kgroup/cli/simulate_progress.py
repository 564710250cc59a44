"""simulate-assign's progress line: shown on a terminal's stderr once a run has taken
`DELAY_S` seconds (a cooperative-sticky step on a large heterogeneous group can take many
rebalance rounds), gone when the run ends or is interrupted (Ctrl-C exits 130 at once)."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from kgroup.render.progress import LiveLine, enabled

if TYPE_CHECKING:
    from kgroup.assign.simulate import Progress

DELAY_S = 2.0
"""Runs shorter than this show nothing."""


class SimulationProgress:
    """`with SimulationProgress(no_color) as progress: simulate(..., on_progress=progress)`.

    Silent when stderr is not a terminal or KGROUP_NO_PROGRESS is set. The line is drawn by
    kgroup.render.progress.LiveLine from the last position reported, so it moves with the
    elapsed time even while one rebalance round runs."""

    def __init__(self, no_color: bool) -> None:
        self.no_color = no_color
        self.enabled = enabled()
        self.where: Progress | None = None
        self.started = time.monotonic()
        self._timer: threading.Timer | None = None
        self._line: LiveLine | None = None
        self._lock = threading.Lock()
        self._closed = False

    def __enter__(self) -> SimulationProgress:
        if self.enabled:
            self._timer = threading.Timer(DELAY_S, self._show)
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            if self._line is not None:
                self._line.stop()
                self._line = None

    def __call__(self, where: Progress) -> None:
        self.where = where

    def _show(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._line = LiveLine(self.no_color, self.text)
            self._line.start()

    def text(self) -> str:
        """`simulate-assign: cooperative-sticky step 2/5 (-c1), round 3, 12s (Ctrl-C stops)`."""
        elapsed = int(time.monotonic() - self.started)
        where = self.where
        if where is None:
            return f"simulate-assign: starting, {elapsed}s (Ctrl-C stops)"
        rounds = f", round {where.round}" if where.round > 1 else ""
        return (
            f"simulate-assign: {where.strategy} step {where.step}/{where.steps - 1} "
            f"({where.event}){rounds}, {elapsed}s (Ctrl-C stops)"
        )
