"""Progress on stderr is built in one place (kgroup/render/progress.py, issue #25 point 3): Spark's
finished tasks reach it through kgroup.scan.spark_jobs.TaskReport, simulate-assign's line
through LiveLine. Drawn here on a rich console forced to be a terminal, written to a buffer."""

from __future__ import annotations

import io
import re
import time
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console

import kgroup.render
from kgroup.assign.simulate import Progress as Where
from kgroup.cli import simulate_progress
from kgroup.cli.simulate_progress import SimulationProgress
from kgroup.render.progress import LiveLine, TaskBar
from kgroup.scan import spark_jobs
from kgroup.scan.spark_jobs import TaskProgress, finished_tasks


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """stderr as a terminal: the text every bar or line drew."""
    out = io.StringIO()
    monkeypatch.setattr(
        kgroup.render,
        "stderr_console",
        lambda no_color=False: Console(file=out, force_terminal=True, width=100, no_color=True),
    )
    return out


class Tracker:
    """Spark's status tracker: stage 7 with `done` of 8 tasks finished."""

    def __init__(self) -> None:
        self.done = 3

    def getActiveStageIds(self) -> list[int]:
        return [7]

    def getStageInfo(self, stage: int) -> Any:
        return SimpleNamespace(numTasks=8, numCompletedTasks=self.done)


class Recording:
    """A TaskReport keeping what it was told."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def start(self, label: str) -> None:
        self.calls.append(("start", label))

    def tasks(self, done: int, total: int) -> None:
        self.calls.append(("tasks", done, total))

    def stop(self) -> None:
        self.calls.append(("stop",))


def _spark(tracker: Any) -> Any:
    return SimpleNamespace(sparkContext=SimpleNamespace(statusTracker=lambda: tracker))


def test_finished_tasks_counts_the_active_stages() -> None:
    assert finished_tasks(Tracker()) == (3, 8)
    idle = SimpleNamespace(getActiveStageIds=lambda: [], getStageInfo=None)
    assert finished_tasks(idle) is None


def test_task_progress_reports_to_its_task_report_and_draws_nothing_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(spark_jobs, "POLL_S", 0.01)
    report = Recording()
    with TaskProgress(_spark(Tracker()), report, label="decoding"):
        deadline = time.monotonic() + 5
        while ("tasks", 3, 8) not in report.calls and time.monotonic() < deadline:
            time.sleep(0.01)
    assert report.calls[0] == ("start", "decoding")
    assert ("tasks", 3, 8) in report.calls
    assert report.calls[-1] == ("stop",)


def test_task_progress_without_a_report_polls_nothing() -> None:
    with TaskProgress(_spark(None), None) as progress:
        assert progress._thread is None


def test_task_bar_draws_finished_tasks_of_all(terminal: io.StringIO) -> None:
    bar = TaskBar(no_color=True)
    bar.enabled = True  # as on a terminal
    bar.start("spark")
    bar.tasks(3, 8)
    bar.bar.refresh()
    bar.stop()
    bar.stop()  # again: nothing
    assert "spark" in terminal.getvalue()
    assert "3/8" in terminal.getvalue()


def test_task_bar_is_silent_when_progress_is_off(terminal: io.StringIO) -> None:
    bar = TaskBar(no_color=True)
    bar.enabled = False
    bar.start("spark")
    bar.tasks(3, 8)
    bar.stop()
    assert terminal.getvalue() == ""


def test_live_line_draws_its_text_terminal_safe(terminal: io.StringIO) -> None:
    line = LiveLine(no_color=True, text=lambda: "step 2/5 \x1b[31mred[/]")
    line.start()
    line.stop()
    drawn = terminal.getvalue()
    assert "step 2/5" in drawn
    assert "\x1b[31mred" not in drawn  # the control character is not passed on
    assert "red[/]" in drawn  # no markup either


def test_simulate_assign_progress_line_is_drawn_by_render_progress(
    terminal: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(simulate_progress, "DELAY_S", 0.0)
    with SimulationProgress(no_color=True) as progress:
        progress.enabled = True
        progress(Where("cooperative-sticky", 2, 6, "-c1", round=3))
        progress._show()
        assert isinstance(progress._line, LiveLine)
    assert progress._line is None
    assert "simulate-assign: cooperative-sticky step 2/5 (-c1), round 3" in terminal.getvalue()


def _drawn(bar: Any, terminal: io.StringIO) -> str:
    """The bar's last frame as drawn now (the text after its last redraw)."""
    bar.bar.refresh()
    return terminal.getvalue().rsplit("\r\x1b[2K", 1)[-1]


def test_each_bar_draws_its_columns(terminal: io.StringIO) -> None:
    from kgroup.render.progress import Progress, SamplingProgress

    records = Progress(no_color=True)
    records.enabled = True
    records.start_records("decoding")
    records.records(1000, 4000)
    assert re.fullmatch(r"decoding .* 1000/4000 \d+:\d\d:\d\d", _drawn(records, terminal))
    records.stop()

    read = Progress(no_color=True)
    read.enabled = True
    read.start_bytes(1024, "small")  # under PROGRESS_MIN_BYTES: no bar
    assert read.bar is None
    read.start_bytes(64 * 1024 * 1024, "reading")
    read.advance(16 * 1024 * 1024)
    assert _drawn(read, terminal).split()[-4:] == ["16.8/67.1", "MB", "?", "-:--:--"]
    read.stop()

    with SamplingProgress(no_color=True) as sampling:
        sampling.enabled = True
        sampling.update(2, 10, 65.4)
        assert re.fullmatch(r"sampling .* 2/10 1m5s left", _drawn(sampling, terminal))
    assert sampling.bar is None  # gone with the `with`

    tasks = TaskBar(no_color=True)
    tasks.enabled = True
    tasks.start("spark")
    tasks.tasks(3, 8)
    assert re.fullmatch(r"spark .* 3/8 \d+:\d\d:\d\d", _drawn(tasks, terminal))
    tasks.stop()
