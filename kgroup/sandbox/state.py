"""The sandbox state file: which broker process kgroup started, and where it listens.

`$XDG_STATE_HOME/kgroup/sandbox.json` (default `~/.local/state/kgroup/sandbox.json`). Cheap to
import: later commands read it to find the sandbox when no bootstrap server is given.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path


def state_dir() -> Path:
    """kgroup's state directory (XDG Base Directory spec)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "kgroup"


def state_file() -> Path:
    return state_dir() / "sandbox.json"


@dataclass
class SandboxState:
    """What `kgroup sandbox start` recorded."""

    engine: str
    bootstrap: str
    pid: int | None
    binary: str
    started_at: str
    log_file: str
    member_pids: list[int] = field(default_factory=list)
    container_id: str | None = None
    process_start: int | None = None  # kafka engine: /proc start time of `pid` (PID reuse guard)
    java: str | None = None  # kafka engine: the java found at start
    config_file: str | None = None  # kafka engine: the generated server.properties

    def save(self) -> None:
        path = state_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, path)


def load_state() -> SandboxState | None:
    """The recorded sandbox, or None when there is none (or the file is unreadable)."""
    try:
        data = json.loads(state_file().read_text(encoding="utf-8"))
        return SandboxState(**data)
    except (OSError, ValueError, TypeError):
        return None


def clear_state() -> None:
    try:
        state_file().unlink()
    except FileNotFoundError:
        pass


def process_alive(pid: int | None, binary_hint: str | None = None) -> bool:
    """True when `pid` runs (and, on Linux, runs `binary_hint`), so a reused PID is not ours."""
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if binary_hint:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return True
        if (
            cmdline
            and binary_hint.encode() not in cmdline[0]
            and not any(binary_hint.encode() in part for part in cmdline[:3])
        ):
            return False
        stat = Path(f"/proc/{pid}/stat")
        try:
            if stat.read_text().split(")")[-1].split()[0] == "Z":
                return False
        except (OSError, IndexError):
            pass
    return True


def process_start_ticks(pid: int | None) -> int | None:
    """The start time of `pid` in clock ticks since boot (Linux /proc), or None elsewhere."""
    if not pid:
        return None
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def process_is(pid: int | None, start_ticks: int | None) -> bool:
    """True when `pid` runs, is no zombie, and (where known) is the process started at
    `start_ticks`: the kafka engine's process (a java, or whatever bin/kafka-server-start.sh
    execs) is recognised by its start time, not by its command line."""
    if not process_alive(pid):
        return False
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return True
    if fields[0] == "Z":
        return False
    return start_ticks is None or process_start_ticks(pid) == start_ticks


def sandbox_running(state: SandboxState) -> bool:
    """Whether the recorded tansu or kafka process still runs (docker: assumed)."""
    if state.engine == "tansu":
        return process_alive(state.pid, state.binary)
    if state.engine == "kafka":
        return process_is(state.pid, state.process_start)
    return True


def running_sandbox_bootstrap() -> tuple[str, str] | None:
    """(bootstrap, description) of a running sandbox, for commands given no cluster."""
    state = load_state()
    if state is None:
        return None
    if not sandbox_running(state):
        return None
    return state.bootstrap, f"{state.engine} sandbox from {state_file()}"
