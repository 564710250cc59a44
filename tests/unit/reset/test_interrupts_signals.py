"""kgroup.reset.interrupts.Interrupts gives the SIGTERM handler and the main thread's signal
mask back on every path: a SIGTERM left blocked after a run is never delivered again (a process
that goes on, as the in-process CLI runner or a caller of run_reset does, can no longer be
stopped by SIGTERM)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from kgroup.core.errors import KgroupError
from kgroup.reset.interrupts import EXIT_SIGTERM, Interrupts


def _state() -> tuple[object, set[int]]:
    return signal.getsignal(signal.SIGTERM), set(signal.pthread_sigmask(signal.SIG_BLOCK, []))


@pytest.fixture(autouse=True)
def clean_signals() -> Iterator[tuple[object, set[int]]]:
    before = _state()
    yield before
    signal.pthread_sigmask(signal.SIG_SETMASK, before[1])  # never leave a test's mask behind
    signal.signal(signal.SIGTERM, before[0])  # type: ignore[arg-type]


def test_reporting_twice_gives_the_signal_mask_back(clean_signals) -> None:
    lines: list[str] = []
    with Interrupts(lines.append) as interrupts:
        interrupts.reporting(lambda: ["first"])
        interrupts.reporting(lambda: ["second"])  # a report in two parts, say
    assert _state() == clean_signals  # SIGTERM stayed blocked for good


def test_a_sigterm_during_a_twice_announced_report_still_exits_143(clean_signals) -> None:
    with pytest.raises(KgroupError) as raised, Interrupts(lambda _line: None) as interrupts:
        interrupts.reporting()
        interrupts.reporting()
        os.kill(os.getpid(), signal.SIGTERM)  # held until the report is over
    assert raised.value.exit_code == EXIT_SIGTERM
    assert _state() == clean_signals


def test_ctrl_c_saying_the_summary_is_said_with_the_latest_summary(clean_signals) -> None:
    lines: list[str] = []
    with pytest.raises(KgroupError) as raised, Interrupts(lines.append) as interrupts:
        interrupts.reporting(lambda: ["first"])
        interrupts.reporting(lambda: ["g1: deleted"])
        raise KeyboardInterrupt
    assert raised.value.exit_code == 130
    assert lines == ["g1: deleted"]
    assert _state() == clean_signals
