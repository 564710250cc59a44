"""Bad input through a real `kgroup` process: exit codes, one-line stderr, clean stdout."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys

import pytest

from kgroup.sandbox.broker import free_port
from tests.helpers import commit_offsets, make_topic, run_kgroup


def test_unknown_property_in_config_file_is_named(tmp_path) -> None:
    conf = tmp_path / "client.properties"
    conf.write_text("security.protocol=PLAINTEXT\nnot.a.property=1\n")
    result = run_kgroup("-b", "127.0.0.1:1", "-c", str(conf), "list", expect=2)
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "not.a.property" in lines[0]
    assert f"{conf}:2" in lines[0]
    assert "Traceback" not in result.stderr


def test_missing_truststore_is_named(tmp_path) -> None:
    conf = tmp_path / "client.properties"
    conf.write_text("ssl.truststore.location=/etc/kafka/truststore.jks\n")
    # a file named for reading that does not exist: exit 3 (README exit codes)
    result = run_kgroup("-b", "127.0.0.1:1", "-c", str(conf), "list", expect=3)
    assert "/etc/kafka/truststore.jks" in result.stderr and "does not exist" in result.stderr
    assert f"{conf}:1" in result.stderr


def test_unreachable_cluster_exits_6_within_the_timeout() -> None:
    port = free_port()  # nothing listens there
    result = run_kgroup("-b", f"127.0.0.1:{port}", "--timeout", "2", "list", expect=6)
    assert result.seconds < 2 + 1 + 1.5, f"took {result.seconds:.2f} s"  # + interpreter start
    assert f"127.0.0.1:{port}" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""


def test_secrets_never_appear_even_with_verbose(tmp_path) -> None:
    conf = tmp_path / "client.properties"
    conf.write_text(
        "sasl.mechanism=PLAIN\nsecurity.protocol=SASL_PLAINTEXT\n"
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
        'username="alice" password="TopSecret-42";\n'
    )
    port = free_port()
    result = run_kgroup(
        "-v", "-b", f"127.0.0.1:{port}", "-c", str(conf), "--timeout", "1", "list", expect=6
    )
    assert "TopSecret-42" not in result.stderr + result.stdout
    assert "[redacted]" in result.stderr  # the verbose dump of client properties


def test_bad_output_value_exits_2() -> None:
    result = run_kgroup("-o", "xml", "list", expect=2)
    assert "xml" in result.stderr
    assert result.stdout == ""


def test_no_cluster_given_says_how_to_name_one(isolated_state) -> None:
    result = run_kgroup("list", expect=2, env={"XDG_STATE_HOME": str(isolated_state)})
    assert "-b HOST:PORT" in result.stderr and "sandbox start" in result.stderr


def test_python_dash_m_and_version() -> None:
    from kgroup import __version__

    assert run_kgroup("--version").stdout.strip() == f"kgroup {__version__}"
    listed = run_kgroup("--help").stdout.split("Commands:")[1].split()
    for command in (
        "list",
        "describe",
        "reset-offsets",
        "undo",
        "simulate-assign",
        "decode",
        "sandbox",
        "delete",
        "delete-offsets",
    ):
        assert command in listed


def test_install_completion_writes_a_bash_completion(tmp_path) -> None:
    env = {"HOME": str(tmp_path), "SHELL": "/bin/bash"}
    run_kgroup("--install-completion", "bash", env=env)
    installed = (tmp_path / ".bash_completions" / "kgroup.sh").read_text()
    assert "_KGROUP_COMPLETE" in installed
    assert "kgroup.sh" in (tmp_path / ".bashrc").read_text()


def _run_in_terminal(args: list[str], env: dict[str, str]) -> str:
    """Run kgroup with stdout on a pseudo-terminal; returns what it printed there."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kgroup", *args], stdout=follower, stderr=subprocess.DEVNULL, env=env
    )
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 20)
        if not ready:
            break
        try:
            data = os.read(leader, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=20)
    os.close(leader)
    return b"".join(chunks).decode(errors="replace")


@pytest.mark.integration
def test_colour_on_a_terminal_and_none_with_no_color(kafka_broker, unique) -> None:
    make_topic(kafka_broker.bootstrap, f"colour-{unique}", [3])
    commit_offsets(kafka_broker.bootstrap, f"colour-{unique}", {(f"colour-{unique}", 0): 1})
    base = {k: v for k, v in os.environ.items() if not k.startswith("KGROUP_")}
    base.pop("NO_COLOR", None)
    base["TERM"] = "xterm-256color"
    args = ["-b", kafka_broker.bootstrap, "list"]
    coloured = _run_in_terminal(args, base)
    assert "\x1b[" in coloured, coloured
    plain = _run_in_terminal(args, {**base, "NO_COLOR": "1"})
    assert "\x1b[" not in plain, plain
    plain_flag = _run_in_terminal(["--no-color", *args], base)
    assert "\x1b[" not in plain_flag


def test_a_sigterm_escaping_a_run_is_exit_143_in_one_line(monkeypatch, capsys) -> None:
    # the instant between a run's SIGTERM handler raising and the handler being given back
    from kgroup.cli import app as cli_app
    from kgroup.core.errors import Terminated

    def terminated(*args, **kwargs):
        raise Terminated()

    monkeypatch.setattr(cli_app.typer.main, "get_command", lambda app: _Raising(terminated))
    assert cli_app.run(["list"]) == 143
    assert capsys.readouterr().err == "kgroup: interrupted (SIGTERM)\n"


class _Raising:
    def __init__(self, main) -> None:
        self.main = main
