"""Strict `sasl.jaas.config` parsing (Kafka's JaasConfig) and typed property values."""

from __future__ import annotations

import re

import pytest

from kgroup.core.config import build_cluster_config, check_value
from kgroup.core.errors import ConfigError
from kgroup.core.jaas import JaasSyntaxError, parse_jaas

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"


@pytest.mark.parametrize(
    ("text", "options"),
    [
        (f'{PLAIN} required username="a" password="b";', {"username": "a", "password": "b"}),
        (
            f'{PLAIN} Required username="a b" password="x=y;z";',
            {"username": "a b", "password": "x=y;z"},
        ),
        (
            f"{PLAIN} optional username='a' password='it\\'s';",
            {"username": "a", "password": "it's"},
        ),
        (
            f'{PLAIN} required username="t\\tab\\\\" password="\\101";',
            {"username": "t\tab\\", "password": "A"},
        ),
        (
            f'{PLAIN} /* ops */ required username=alice // note\n password="p" ;',
            {"username": "alice", "password": "p"},
        ),
        (f"{PLAIN} sufficient;", {}),
    ],
)
def test_valid_jaas(text: str, options: dict[str, str]) -> None:
    assert parse_jaas(text) == (PLAIN, options)


BROKEN = f'{PLAIN} required username="alice password="s3";'
UNCLOSED = f'{PLAIN} required username="a" password="s3'
NO_SEMICOLON = f'{PLAIN} required username="a" password="s3"'


@pytest.mark.parametrize(
    ("text", "problem", "position"),
    [
        (BROKEN, "runs into more text", BROKEN.index("s3")),  # right after the closing quote
        (UNCLOSED, "not closed", UNCLOSED.rindex('"')),  # the opening quote
        (NO_SEMICOLON, "does not end with `;`", len(NO_SEMICOLON)),
        (f'{PLAIN} username="a";', "control flag", None),
        (f'{PLAIN} required username "a";', "no `=`", None),
        (f"{PLAIN} required username=;", "no value", None),
        (f"{PLAIN} required; {PLAIN} required;", "exactly one", None),
        ("", "no login module", None),
        (f"{PLAIN} required /* open", "comment is not closed", None),
    ],
)
def test_invalid_jaas_says_what_and_where(text: str, problem: str, position: int | None) -> None:
    with pytest.raises(JaasSyntaxError) as err:
        parse_jaas(text)
    assert problem in err.value.problem
    if position is not None:
        assert err.value.position == position
    assert "s3" not in str(err.value)


@pytest.mark.parametrize(
    ("key", "value", "normalized"),
    [
        ("socket.timeout.ms", " +2000 ", "2000"),
        ("enable.ssl.certificate.verification", "f", "false"),
        ("enable.ssl.certificate.verification", "TRUE", "true"),
        ("sasl.mechanism", "scram-sha-512", "SCRAM-SHA-512"),
        ("security.protocol", "sasl_ssl", "SASL_SSL"),
        ("ssl.endpoint.identification.algorithm", "HTTPS", "https"),
        ("client.id", " ops ", " ops "),  # strings pass as given
        ("ssl.ca.location", "/x.pem", "/x.pem"),
    ],
)
def test_check_value_normalizes_for_both_clients(key: str, value: str, normalized: str) -> None:
    assert check_value(key, value, "-X") == normalized


def test_renamed_java_property_names_both_names() -> None:
    with pytest.raises(ConfigError) as err:
        check_value("request.timeout.ms", "9", "c.properties:3", "socket.timeout.ms")
    text = err.value.one_line()
    assert "request.timeout.ms from c.properties:3" in text
    assert "10 to 300000" in text and "socket.timeout.ms" in text


def test_overrides_are_checked_and_normalized() -> None:
    config = build_cluster_config(
        bootstrap="b:1",
        command_config=None,
        overrides=["enable.ssl.certificate.verification=0", "sasl.mechanisms=plain"],
    )
    assert config.properties["enable.ssl.certificate.verification"] == "false"
    assert config.properties["sasl.mechanisms"] == "PLAIN"
    with pytest.raises(ConfigError, match=r"socket\.timeout\.ms from -X"):
        build_cluster_config(
            bootstrap="b:1", command_config=None, overrides=["socket.timeout.ms=x"]
        )


def test_java_endpoint_identification_empty_means_none(tmp_path) -> None:
    conf = tmp_path / "c.properties"
    conf.write_text("ssl.endpoint.identification.algorithm=\n")
    config = build_cluster_config(bootstrap="b:1", command_config=str(conf))
    assert config.properties["ssl.endpoint.identification.algorithm"] == "none"
    conf.write_text("ssl.endpoint.identification.algorithm=htps\n")
    with pytest.raises(ConfigError, match=re.escape(f"{conf}:1")):
        build_cluster_config(bootstrap="b:1", command_config=str(conf))


def test_client_id_longer_than_a_kafka_string_is_refused() -> None:
    with pytest.raises(ConfigError, match="32767"):
        check_value("client.id", "x" * 40_000, "-X")
