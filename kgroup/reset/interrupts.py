"""Ctrl-C and SIGTERM while a command changes the cluster (`reset-offsets --execute`, `undo
--execute`, `delete`): the one table of which signal gives which exit code and which words, and
the one context manager that holds for the whole run and its report.

- While the run works, SIGTERM raises `Terminated` in the main thread, as Ctrl-C raises
  KeyboardInterrupt: the code that can say what an interrupt left (the group runs, DeleteGroups,
  the topic deletions) catches `INTERRUPTS` and reports each group; an interrupt anywhere else
  ends the run with `interrupted_error` (130 / 143).
- Once `Interrupts.reporting` is called the run is over: a SIGTERM waits for the report (which
  is written in full), then the run exits 143; a Ctrl-C stops the printing (the operator asked
  to stop), and the outcome of every group is said on stderr, one line each, then exit 130.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kgroup.core.errors import (
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    KgroupError,
    PartialFailure,
    Terminated,
)

EXIT_SIGINT = EXIT_INTERRUPTED
EXIT_SIGTERM = EXIT_TERMINATED


# What the run catches to stop and report, for either signal.
INTERRUPTS = (KeyboardInterrupt, Terminated)

# signal -> exit code (README "Exit codes": 130 interrupted, 143 SIGTERM)
EXIT_CODES = {"SIGINT": EXIT_SIGINT, "SIGTERM": EXIT_SIGTERM}


def signal_of(exc: BaseException) -> str:
    """The signal an interrupt exception stands for: "SIGTERM" or "SIGINT"."""
    return "SIGTERM" if isinstance(exc, Terminated) else "SIGINT"


def signal_exit_code(signal_name: str) -> int:
    """The run's exit code after `signal_name` stopped it."""
    return EXIT_CODES[signal_name]


def interrupted_error(
    signal_name: str, during: str, said: str = "", hint: str | None = None
) -> PartialFailure:
    """The run's last line after an interrupt: `interrupted (SIGNAL) DURING; SAID`, with the
    signal's exit code."""
    text = f"interrupted ({signal_name}) {during}".rstrip()
    error = PartialFailure(f"{text}; {said}" if said else text, hint=hint)
    error.exit_code = signal_exit_code(signal_name)
    return error


class Interrupts:
    """Ctrl-C and SIGTERM for a whole run and its report, as a context manager.

    On entering (in the main thread) SIGTERM raises `Terminated`; an interrupt that leaves the
    block uncaught before `reporting()` ends the run with `interrupted_error` (130 / 143). Once
    `reporting(summary)` is called:

    - SIGTERM is blocked in the main thread, not only noted by a handler: a signal landing in a
      write to a full pipe cuts the write short, and Python's text stdout then drops the rest of
      the document (CPython returns the short count of an interrupted partial write). A SIGTERM
      delivered meanwhile stays pending and is taken on leaving (one reaching another thread is
      noted by the handler); the run then exits 143, an error leaving the block keeping its
      message.
    - Ctrl-C stops the printing: `summary()`'s lines (one per group: what happened to it) are
      said through `note`, then the run exits 130, so the outcome of every group is said even if
      the table or document is cut.

    The old SIGTERM handler and signal mask are given back on leaving, whatever happens."""

    def __init__(self, note: Callable[[str], None] | None = None) -> None:
        self.received = False  # SIGTERM came while the report was written
        self._note = note
        self._summary: Callable[[], Sequence[str]] | None = None
        self._restore: Callable[[], Any] = lambda: None
        self._mask: Any = None  # the main thread's signal mask before the report, if blocked
        self._reporting = False  # reporting() has blocked SIGTERM (once, however often called)

    def __enter__(self) -> Interrupts:
        self._restore = _terminate_as_interrupt()
        return self

    def reporting(self, summary: Callable[[], Sequence[str]] = tuple) -> None:
        """The run is over, its report comes: SIGTERM waits for it; Ctrl-C cuts it short and
        `summary()` is said instead. Called again (a report in parts), the latest summary is
        the one said, and SIGTERM stays held until the block is left."""
        import signal
        import threading

        self._summary = summary
        if self._reporting or threading.current_thread() is not threading.main_thread():
            return  # called again: the mask saved the first time is the one to give back
        self._reporting = True

        def noted(_signum: int, _frame: Any) -> None:
            self.received = True

        signal.signal(signal.SIGTERM, noted)
        if hasattr(signal, "pthread_sigmask"):
            self._mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})

    def _unblock(self) -> None:
        """Take a SIGTERM that came while blocked (consumed, so none is delivered after the
        handler is given back), then give the main thread its mask back."""
        import signal

        if self._mask is None:
            return
        mask, self._mask = self._mask, None
        try:
            if signal.SIGTERM in signal.sigpending():
                signal.sigwait({signal.SIGTERM})
                self.received = True
        finally:  # a Ctrl-C meanwhile must not leave SIGTERM blocked for good
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)

    def _say_summary(self) -> None:
        """Each line of the summary through `note`; another Ctrl-C meanwhile is not let cut it."""
        if self._summary is None or self._note is None:
            return
        for line in self._summary():
            for _attempt in range(3):
                try:
                    self._note(line)
                    break
                except KeyboardInterrupt:
                    continue

    def __exit__(self, exc_type: Any, exc: BaseException | None, _tb: Any) -> None:
        try:
            self._unblock()
        finally:
            self._restore()
        if isinstance(exc, INTERRUPTS):
            name = signal_of(exc)
            if self._summary is None:
                raise interrupted_error(name, "") from None
            self._say_summary()
            raise interrupted_error(
                name,
                "while the report was written",
                "the report is cut; the lines above say what happened to each group",
            ) from None
        if not self.received:
            return
        if isinstance(exc, KgroupError):
            exc.message = (
                f"{exc.message.rstrip('.')}; then SIGTERM came while the report was written"
            )
            exc.exit_code = EXIT_SIGTERM
            return
        if exc is None:
            error = KgroupError(
                "terminated (SIGTERM) while the report was written; the run had finished and "
                "the report is complete"
            )
            error.exit_code = EXIT_SIGTERM
            raise error


def _terminate_as_interrupt() -> Callable[[], Any]:
    """SIGTERM raises `Terminated` in the main thread; returns what restores the old handler."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(_signum: int, _frame: Any) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, handler)
    return lambda: signal.signal(signal.SIGTERM, previous)
