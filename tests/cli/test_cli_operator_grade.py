"""Issue 12 (D1-D4), as an operator meets it: strict client configuration, `kgroup` alone,
non-regular segment paths, `sandbox status` exit codes. No broker needed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from kgroup.sandbox.broker import free_port
from tests.helpers import run_kgroup

# A port nobody listens on: commands that get past configuration fail with 6, not 2.
NO_BROKER = ("-b", "127.0.0.1:1", "--timeout", "1")
PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def write_conf(tmp_path, jaas: str) -> str:
    conf = tmp_path / "client.properties"
    conf.write_text(
        f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config={jaas}\n",
        encoding="utf-8",
    )
    return str(conf)


# --- D1: sasl.jaas.config is parsed as Kafka's JaasConfig parses it ---------------------------

BAD_JAAS = [
    pytest.param(f'{PLAIN} required username="alice password="Pw-7731";', id="unbalanced-quote"),
    pytest.param(f'{PLAIN} required username="alice" password="Pw-7731"', id="no-semicolon"),
    pytest.param(f'{PLAIN} username="alice" password="Pw-7731";', id="no-flag"),
    pytest.param(f'{PLAIN} mandatory username="alice" password="Pw-7731";', id="bad-flag"),
    pytest.param(f'{PLAIN} required username="alice" password="Pw-7731;', id="open-quote"),
    pytest.param(f'{PLAIN} required username="alice" password=;', id="no-value"),
    pytest.param(f'{PLAIN} required username="alice" password "Pw-7731";', id="no-equals"),
    pytest.param(
        f'{PLAIN} required username="alice" password="Pw-7731"; {PLAIN} required;',
        id="two-modules",
    ),
]


@pytest.mark.parametrize("jaas", BAD_JAAS)
def test_malformed_jaas_is_a_usage_error_naming_file_and_line(tmp_path, jaas: str) -> None:
    conf = write_conf(tmp_path, jaas)
    result = run_kgroup(*NO_BROKER, "-c", conf, "list", expect=2)
    line = one_line(result.stderr)
    assert f"{conf}:3" in line and "sasl.jaas.config" in line
    assert "Pw-7731" not in result.stderr + result.stdout
    assert result.stdout == ""


def test_malformed_jaas_never_echoes_the_password_even_verbose(tmp_path) -> None:
    conf = write_conf(tmp_path, f'{PLAIN} required username="alice password="Pw-7731";')
    result = run_kgroup("-v", *NO_BROKER, "-c", conf, "list", expect=2)
    assert "Pw-7731" not in result.stderr + result.stdout


@pytest.mark.parametrize(
    "jaas",
    [
        f'{PLAIN} required username="alice" password="Pw-7731";',
        f'{PLAIN}   REQUIRED\tusername="alice"   password="Pw-7731"  ;  ',
        f"{PLAIN} required username='alice' password='Pw-7731';",
        f'{PLAIN} required username=alice password="Pw-7731"; // ops account',
    ],
    ids=["plain", "spacing-and-case", "single-quotes", "bare-word-and-comment"],
)
def test_well_formed_jaas_gets_past_configuration(tmp_path, jaas: str) -> None:
    """Valid lines reach the cluster (exit 6: nobody listens), with the username intact."""
    conf = write_conf(tmp_path, jaas)
    result = run_kgroup("-v", *NO_BROKER, "-c", conf, "list", expect=6)
    assert "'sasl.username': 'alice'" in result.stderr  # the verbose (redacted) property dump
    assert "Pw-7731" not in result.stderr + result.stdout


# --- D1: typed values, from -X and from the file ----------------------------------------------

BAD_VALUES = [
    ("socket.timeout.ms", "abc", "integer"),
    ("socket.timeout.ms", "5", "10"),  # below librdkafka's range 10..300000
    ("request.timeout.ms", "1e3", "integer"),
    ("socket.connection.setup.timeout.ms", "soon", "integer"),
    ("security.protocol", "TLS", "PLAINTEXT"),
    ("sasl.mechanism", "PLAINTEXT", "SCRAM-SHA-256"),
    ("sasl.mechanisms", "AWS_MSK_IAM", "SCRAM-SHA-256"),
    ("enable.ssl.certificate.verification", "no", "true or false"),
    ("ssl.endpoint.identification.algorithm", "htps", "https"),
    ("api.version.request", "maybe", "true or false"),
    ("client.dns.lookup", "any", "use_all_dns_ips"),
]


@pytest.mark.parametrize(("key", "value", "expected"), BAD_VALUES, ids=lambda v: str(v))
def test_bad_override_value_names_property_origin_and_type(key, value, expected) -> None:
    result = run_kgroup(*NO_BROKER, "-X", f"{key}={value}", "list", expect=2)
    line = one_line(result.stderr)
    assert key in line and "-X" in line and expected in line, line
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("request.timeout.ms", "abc", "integer"),  # Java name, renamed to socket.timeout.ms
        ("socket.timeout.ms", "abc", "integer"),
        ("security.protocol", "SASL-SSL", "SASL_SSL"),
        ("sasl.mechanism", "PLAIN ", None),  # trailing space is fine: accepted
        ("ssl.endpoint.identification.algorithm", "htps", "https"),
        ("default.api.timeout.ms", "30s", "integer"),
        ("enable.ssl.certificate.verification", "yes", "true or false"),
    ],
)
def test_bad_file_value_names_property_file_and_line(tmp_path, key, value, expected) -> None:
    conf = tmp_path / "client.properties"
    conf.write_text(f"client.id=ops\n{key}={value}\n", encoding="utf-8")
    if expected is None:
        run_kgroup(*NO_BROKER, "-c", str(conf), "list", expect=6)
        return
    result = run_kgroup(*NO_BROKER, "-c", str(conf), "list", expect=2)
    line = one_line(result.stderr)
    assert key in line and f"{conf}:2" in line and expected in line, line


def test_typed_values_kgroup_accepts_reach_the_cluster() -> None:
    """librdkafka's spellings of the same values: booleans t/1/TRUE, enums in any case."""
    args = []
    for item in (
        "socket.timeout.ms=+2000",
        "security.protocol=plaintext",
        "enable.ssl.certificate.verification=1",
        "api.version.request=TRUE",
        "ssl.endpoint.identification.algorithm=NONE",
        "client.id=ops-1",
    ):
        args += ["-X", item]
    result = run_kgroup(*NO_BROKER, *args, "list", expect=6)
    assert "127.0.0.1:1" in result.stderr


# --- D2: `kgroup` alone -----------------------------------------------------------------------


def test_kgroup_alone_prints_usage_and_commands_and_exits_2() -> None:
    result = run_kgroup(expect=2)
    text = result.stdout + result.stderr
    assert "error:" not in text
    assert text.lstrip().startswith("Usage: kgroup [OPTIONS] COMMAND [ARGS]...")
    lines = text.splitlines()
    assert len(lines) > 15  # the help as help, not flattened into one line
    assert any(line.split()[:1] == ["describe"] for line in lines)
    assert any(line.split()[:1] == ["reset-offsets"] for line in lines)


def test_group_command_alone_prints_its_help_and_exits_2() -> None:
    result = run_kgroup("sandbox", expect=2)
    text = result.stdout + result.stderr
    assert "error:" not in text
    assert text.lstrip().startswith("Usage: kgroup sandbox")
    assert any(line.split()[:1] == ["status"] for line in text.splitlines())


# --- D3: segment paths that are not regular files or directories ---------------------------


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/null"])
def test_decode_device_is_not_a_segment(path: str) -> None:
    result = run_kgroup("decode", "--segments", path, expect=2, timeout=20)
    line = one_line(result.stderr)
    assert path in line and "not a regular file or directory" in line
    assert "no such file" not in line


def test_decode_fifo_is_refused_without_opening_it(tmp_path) -> None:
    fifo = tmp_path / "00000000000000000000.log"
    os.mkfifo(fifo)
    # opening a FIFO for reading blocks until a writer comes: the timeout catches a hang
    result = run_kgroup("decode", "--segments", str(fifo), expect=2, timeout=20)
    line = one_line(result.stderr)
    assert str(fifo) in line and "FIFO" in line and "not a regular file" in line


def test_decode_fifo_inside_a_partition_directory_is_refused(tmp_path) -> None:
    part = tmp_path / "__consumer_offsets-0"
    part.mkdir()
    os.mkfifo(part / "00000000000000000000.log")
    result = run_kgroup("decode", "--segments", str(part), expect=2, timeout=20)
    line = one_line(result.stderr)
    assert "00000000000000000000.log" in line and "not a regular file" in line


def test_decode_stdin_pipe_is_refused() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "kgroup", "decode", "--segments", "/dev/stdin"],
        capture_output=True,
        text=True,
        timeout=20,
        input="",
    )
    assert proc.returncode == 2, proc.stderr
    assert "/dev/stdin" in proc.stderr and "not a regular file or directory" in proc.stderr


def test_decode_missing_path_is_still_not_found(tmp_path) -> None:
    result = run_kgroup("decode", "--segments", str(tmp_path / "nope.log"), expect=3)
    assert "no such file or directory" in result.stderr


# --- D4: `sandbox status` exit codes agree with its help ------------------------------------


def test_sandbox_status_with_nothing_recorded_exits_3_as_its_help_says(isolated_state) -> None:
    env = {"XDG_STATE_HOME": str(isolated_state)}
    result = run_kgroup("sandbox", "status", env=env, expect=3)
    assert "no sandbox is running" in one_line(result.stderr)
    helptext = " ".join(run_kgroup("sandbox", "status", "--help").stdout.split())
    assert "exit 3 when none runs" in helptext
    assert "6 when it runs but does not answer" in helptext


def _write_state(state_home, pid: int, binary: str, bootstrap: str) -> None:
    path = state_home / "kgroup" / "sandbox.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "engine": "tansu",
                "bootstrap": bootstrap,
                "pid": pid,
                "binary": binary,
                "started_at": "2026-01-01T00:00:00Z",
                "log_file": "/dev/null",
            }
        )
    )


def test_sandbox_status_with_a_dead_process_exits_3(isolated_state) -> None:
    proc = subprocess.Popen(["sleep", "0"])
    proc.wait()  # a pid that ran and is gone
    _write_state(isolated_state, proc.pid, "sleep", "127.0.0.1:1")
    env = {"XDG_STATE_HOME": str(isolated_state)}
    result = run_kgroup("sandbox", "status", "-o", "json", env=env, expect=3)
    assert json.loads(result.stdout)["process_running"] is False
    assert "not running" in one_line(result.stderr)


def test_sandbox_status_running_but_not_answering_exits_6(isolated_state) -> None:
    proc = subprocess.Popen(["sleep", "60"])
    try:
        _write_state(isolated_state, proc.pid, "sleep", f"127.0.0.1:{free_port()}")
        env = {"XDG_STATE_HOME": str(isolated_state)}
        result = run_kgroup("--timeout", "1", "sandbox", "status", env=env, expect=6)
        assert "Traceback" not in result.stderr
    finally:
        proc.kill()
        proc.wait()
