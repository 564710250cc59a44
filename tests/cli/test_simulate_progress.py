"""simulate-assign on a terminal: a long run says where it is after 2 s and stops at Ctrl-C.

kgroup runs on a real pseudo-terminal (stdout and stderr both on it, as at a shell prompt); the
long run is issue 28's kind of group (racked, heterogeneous subscriptions) through a long
sequence of joins and leaves, far longer than the test waits.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import random
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

_ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def _long_scenario(path: Path) -> None:
    rng = random.Random(28)
    topics = {f"topic-{i}": n for i, n in enumerate([1500, 1200, 900, 842, 600, 400])}
    names = list(topics)
    members = [
        {"id": f"consumer-{i:03d}", "topics": sorted(rng.sample(names, rng.randint(2, 5)))}
        for i in range(148)
    ]
    events: list[dict] = []
    for j in range(300):  # minutes of rebalances
        events.append({"leave": f"consumer-{j % 148:03d}"})
        events.append({"join": {"id": f"consumer-{j % 148:03d}", "topics": names[: 2 + j % 4]}})
    path.write_text(json.dumps({"topics": topics, "members": members, "events": events}))


class _Terminal:
    """kgroup with stdout and stderr on one pseudo-terminal; reads what it shows."""

    def __init__(self, *args: str) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
        env = {k: v for k, v in os.environ.items() if not k.startswith("KGROUP_")}
        env.pop("NO_COLOR", None)
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kgroup", *args],
            stdin=subprocess.DEVNULL,
            stdout=slave,
            stderr=slave,
            env=env,
            close_fds=True,
        )
        os.close(slave)
        self.shown = b""

    def screen(self) -> str:
        return _ANSI.sub(b"", self.shown).decode(errors="replace")

    def wait_for(self, pattern: str, timeout: float) -> float:
        """Seconds from start until `pattern` is on the screen."""
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.screen()):
            left = deadline - time.monotonic()
            assert left > 0, f"{pattern!r} not shown in {timeout} s: {self.screen()!r}"
            self._read(left)
        return time.monotonic() - self.started

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], min(timeout, 0.2))
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: the child closed the terminal
            return False
        self.shown += chunk
        return bool(chunk)

    def finish(self, timeout: float) -> int:
        """The exit code, once the process ended and everything it showed was read."""
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self._read(deadline - time.monotonic())
        try:
            code = self.proc.wait(timeout=max(deadline - time.monotonic(), 0.1))
            while self._read(0.2) and select.select([self.master], [], [], 0)[0]:
                pass
            return code
        finally:
            os.close(self.master)


def test_long_run_shows_progress_after_two_seconds_and_stops_at_ctrl_c(tmp_path: Path) -> None:
    path = tmp_path / "racks.json"
    _long_scenario(path)
    term = _Terminal("simulate-assign", "--scenario", str(path), "-s", "cooperative-sticky")
    try:
        shown_at = term.wait_for(r"simulate-assign: cooperative-sticky step \d+/600", 90)
        assert shown_at >= 2.0
        assert "Ctrl-C stops" in term.screen()
        term.wait_for(r"step \d+/600 \([+-]consumer-\d+", 60)  # it moves on through the events
        term.proc.send_signal(signal.SIGINT)
        interrupted = time.monotonic()
        code = term.finish(30)
        stopped_in = time.monotonic() - interrupted
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    assert code == 130
    assert "Traceback" not in term.screen()
    assert "step 0: initial" not in term.screen()  # stopped before any output
    assert stopped_in < 5.0, f"took {stopped_in:.1f} s to stop"  # minutes of work left


def test_short_run_on_a_terminal_shows_no_progress() -> None:
    term = _Terminal(
        "simulate-assign", "--members", "c1,c2,c3", "--topics", "orders:6", "-s", "sticky"
    )
    code = term.finish(60)
    assert code == 0
    assert "step 0: initial" in term.screen()
    assert "Ctrl-C stops" not in term.screen()
