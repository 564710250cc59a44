"""What kgroup says when it cannot reach the cluster: what happened, exit 6, and the --timeout
hint only when something really timed out. Through a real `kgroup` process, no broker needed.

Both client paths are covered: kgroup's own client (the default) and librdkafka (used when the
configuration needs something only librdkafka does; `broker.address.family=v4` is such
a setting and changes nothing for an IPv4 address).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from kgroup.sandbox.broker import free_port
from tests.helpers import run_kgroup

LIBRDKAFKA = ("-X", "broker.address.family=v4")


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


@pytest.fixture()
def silent_listener() -> Iterator[str]:
    """A socket that accepts connections and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            accepted.append(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    server.close()
    for conn in accepted:
        conn.close()


def test_refused_connection_says_refused_at_once() -> None:
    result = run_kgroup("-b", "127.0.0.1:1", "list", expect=6)
    line = one_line(result.stderr)
    assert "connection refused by 127.0.0.1:1" in line
    assert "did not answer" not in line and "--timeout" not in line
    assert result.seconds < 5, f"took {result.seconds:.2f} s of the 30 s timeout"
    assert result.stdout == ""


def test_unresolvable_host_says_cannot_resolve() -> None:
    result = run_kgroup("-b", "no-such-host.invalid:9092", "list", expect=6)
    line = one_line(result.stderr)
    assert "cannot resolve no-such-host.invalid" in line
    assert "did not answer" not in line and "--timeout" not in line
    assert result.seconds < 10


def test_a_listener_that_never_answers_is_a_timeout_with_the_hint(silent_listener: str) -> None:
    result = run_kgroup("-b", silent_listener, "--timeout", "1", "list", expect=6)
    line = one_line(result.stderr)
    assert "did not answer within 1 s" in line
    assert "--timeout" in line
    assert result.seconds < 1 + 3


def test_every_bootstrap_server_is_reported(silent_listener: str) -> None:
    refused = f"127.0.0.1:{free_port()}"
    result = run_kgroup("-b", f"{refused},{silent_listener}", "--timeout", "2", "list", expect=6)
    line = one_line(result.stderr)
    assert f"connection refused by {refused}" in line
    assert f"{silent_listener} did not answer" in line
    assert "--timeout" in line  # one of them did time out


def test_librdkafka_path_refused_connection_says_refused() -> None:
    result = run_kgroup("-b", "127.0.0.1:1", "--timeout", "2", *LIBRDKAFKA, "list", expect=6)
    line = one_line(result.stderr)
    assert "connection refused by 127.0.0.1:1" in line
    assert "did not answer" not in line and "--timeout" not in line


def test_librdkafka_path_unresolvable_host_says_cannot_resolve() -> None:
    result = run_kgroup(
        "-b", "no-such-host.invalid:9092", "--timeout", "2", *LIBRDKAFKA, "list", expect=6
    )
    line = one_line(result.stderr)
    assert "cannot resolve no-such-host.invalid" in line
    assert "--timeout" not in line


def test_librdkafka_path_timeout_keeps_the_hint(silent_listener: str) -> None:
    result = run_kgroup("-b", silent_listener, "--timeout", "2", *LIBRDKAFKA, "list", expect=6)
    line = one_line(result.stderr)
    assert "did not answer within 2 s" in line and "--timeout" in line
