"""Messages an operator reads (issue #24 item 14), through a real `kgroup` process: each one
says what was wrong without contradicting itself, names where the bad value came from, and is
one line without doubled punctuation."""

from __future__ import annotations

import re

import pytest

from kgroup.core.wire.error_codes import (
    NONE,
    SASL_AUTHENTICATION_FAILED,
    UNSUPPORTED_SASL_MECHANISM,
)
from kgroup.protocol import messages as api_table
from tests.helpers import run_kgroup
from tests.unit.wire.fakebroker import FakeBroker
from tests.unit.wire.wirecodec import Reader, Writer

SASL = ("-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=PLAIN")
JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="alice" password="TopSecret-42";'
)


def _one_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def _handshake_broker(error: int, enabled: list[str], seen: list[bytes]) -> FakeBroker:
    """A broker whose SaslHandshake answers `error` listing `enabled` (Kafka's
    SaslHandshakeResponse v1: ErrorCode, Mechanisms), and refuses every SaslAuthenticate,
    keeping the token it was sent."""

    def handler(api: int, version: int, body: bytes) -> bytes:
        if api == api_table.SASL_HANDSHAKE.key:
            return Writer().int16(error).array(enabled, Writer.string).getvalue()
        if api == api_table.SASL_AUTHENTICATE.key:
            seen.append(Reader(body, flexible=version >= 2).bytes_())
            writer = Writer(flexible=version >= 2).int16(SASL_AUTHENTICATION_FAILED)
            writer.nullable_string("Authentication failed: invalid credentials")
            writer.bytes_(b"")
            if version >= 1:
                writer.int64(0)
            return writer.tagged_fields().getvalue()
        raise AssertionError(api)

    return FakeBroker(handler)


def test_a_broker_listing_the_mechanism_it_refuses_is_not_said_to_lack_it() -> None:
    """Kafka answers UNSUPPORTED_SASL_MECHANISM only for a mechanism it does not enable
    (SaslServerAuthenticator.handleHandshakeRequest); a broker that lists PLAIN yet refuses it
    is said to be inconsistent, not to "not accept PLAIN (enabled: PLAIN)"."""
    broker = _handshake_broker(UNSUPPORTED_SASL_MECHANISM, ["PLAIN"], [])
    try:
        result = run_kgroup(
            "-b", broker.address, *SASL, "-X", "sasl.username=u", "-X", "sasl.password=p",
            "--timeout", "5", "list", expect=1,
        )  # fmt: skip
    finally:
        broker.close()
    line = _one_line(result.stderr)
    assert "does not accept SASL mechanism PLAIN" not in line
    assert "UNSUPPORTED_SASL_MECHANISM" in line and "lists PLAIN as enabled" in line


def test_a_broker_without_the_mechanism_names_the_ones_it_enables() -> None:
    broker = _handshake_broker(UNSUPPORTED_SASL_MECHANISM, ["SCRAM-SHA-512", "GSSAPI"], [])
    try:
        result = run_kgroup(
            "-b", broker.address, *SASL, "-X", "sasl.username=u", "-X", "sasl.password=p",
            "--timeout", "5", "list", expect=1,
        )  # fmt: skip
    finally:
        broker.close()
    line = _one_line(result.stderr)
    assert f"broker {broker.address} does not enable SASL mechanism PLAIN" in line
    assert "it enables SCRAM-SHA-512, GSSAPI" in line


def test_x_sasl_jaas_config_is_translated_as_from_a_command_config_file() -> None:
    seen: list[bytes] = []
    broker = _handshake_broker(NONE, ["PLAIN"], seen)
    try:
        result = run_kgroup(
            "-b", broker.address, *SASL, "-X", f"sasl.jaas.config={JAAS}",
            "--timeout", "5", "list", expect=1,
        )  # fmt: skip
    finally:
        broker.close()
    assert seen == [b"\x00alice\x00TopSecret-42"]  # the login module's credentials were sent
    line = _one_line(result.stderr)
    assert "as 'alice' failed" in line and "TopSecret-42" not in line


def test_x_sasl_jaas_config_that_is_not_a_login_module_names_x() -> None:
    result = run_kgroup(
        "-b", "127.0.0.1:1", "-X", 'sasl.jaas.config=nonsense password="TopSecret-42"', "list",
        expect=2,
    )  # fmt: skip
    line = _one_line(result.stderr)
    assert "sasl.jaas.config at -X" in line and "TopSecret-42" not in line


def test_kgroup_timeout_variable_is_blamed_by_its_name() -> None:
    result = run_kgroup("-b", "127.0.0.1:1", "list", env={"KGROUP_TIMEOUT": "-5"}, expect=2)
    line = _one_line(result.stderr)
    assert "KGROUP_TIMEOUT" in line and "--timeout" not in line
    assert "KGROUP_TIMEOUT=10" in line  # the example is how a variable is set
    flag = run_kgroup("-b", "127.0.0.1:1", "--timeout", "-5", "list", expect=2)
    assert "--timeout" in _one_line(flag.stderr)


@pytest.mark.parametrize(
    "args",
    [
        ["help"],
        ["list", "--no-such-option"],
        ["describe", "--no-such"],
        ["sandbox", "nosuch"],
        ["-o", "yaml", "list"],
        ["reset-offsets", "g", "--to-offset"],
    ],
)
def test_usage_errors_have_no_doubled_punctuation(args: list[str]) -> None:
    line = _one_line(run_kgroup(*args, expect=2).stderr)
    assert not re.search(r"\.\.|[?!:]\.|\.\s*\.", line), line
    assert "Hint: see `kgroup" in line


def test_x_without_a_property_name_says_so() -> None:
    line = _one_line(run_kgroup("-X", "=v", "-b", "127.0.0.1:1", "list", expect=2).stderr)
    assert "  " not in line
    assert "-X '=...' has no property name before '='" in line
    secret = _one_line(run_kgroup("-X", "=hunter2", "list", expect=2).stderr)
    assert "hunter2" not in secret
    bare = _one_line(run_kgroup("-X", "client.id", "list", expect=2).stderr)
    assert "-X client.id is not key=value" in bare


def test_no_counted_flag_shows_a_default_in_any_help() -> None:
    from typer.main import get_command

    from kgroup.cli.app import app

    def commands(cmd, path):
        yield path
        for name, sub in getattr(cmd, "commands", {}).items():
            if not sub.hidden:
                yield from commands(sub, [*path, name])

    paths = list(commands(get_command(app), []))
    assert ["reset-offsets"] in paths
    for path in paths:
        text = run_kgroup(*path, "--help", env={"COLUMNS": "200"}).stdout
        assert "[default: 0]" not in text, path
        if path == ["reset-offsets"]:
            assert re.search(r"--to-earliest +Same as --to earliest \(Kafka's spelling\)\.\n", text)


@pytest.mark.parametrize("value", ["-1s", "+1s", "-PT5M"])
def test_a_signed_window_is_one_clear_line(value: str) -> None:
    line = _one_line(run_kgroup("check", "g", "--window", value, expect=2).stderr)
    assert f"--window {value}" in line
    assert "counted back from now" not in line
    assert "a length of time" in line and "e.g. --window 5m" in line
