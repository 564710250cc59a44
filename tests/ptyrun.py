"""Run kgroup on a real pseudo-terminal of a given size, as a user at a terminal would."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from dataclasses import dataclass

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@dataclass
class PtyResult:
    """Exit status, what the terminal showed (ANSI styles removed, `\\r\\n` as `\\n`), stderr."""

    code: int
    screen: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return self.screen.splitlines()


def run_in_pty(
    *args: str, columns: int, env: dict[str, str] | None = None, timeout: float = 120
) -> PtyResult:
    """`python -m kgroup ARGS` with stdout on a pty of `columns` x 50 (COLUMNS unset, so the
    width comes from the terminal itself, as `stty cols` would set it)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    full_env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("COLUMNS", "LINES", "NO_COLOR") and not k.startswith("KGROUP_")
    }
    full_env.update(env or {})
    proc = subprocess.Popen(
        [sys.executable, "-m", "kgroup", *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        env=full_env,
        close_fds=True,
    )
    os.close(slave)
    chunks: list[bytes] = []
    try:
        while True:
            ready, _, _ = select.select([master], [], [], timeout)
            if not ready:
                proc.kill()
                raise AssertionError(f"kgroup {' '.join(args)} printed nothing for {timeout} s")
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(master)
    code = proc.wait(timeout=timeout)
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    screen = _ANSI.sub("", b"".join(chunks).decode()).replace("\r\n", "\n")
    return PtyResult(code, screen, stderr)
