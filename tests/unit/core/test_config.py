"""ClusterConfig: Java properties parsing, Java -> librdkafka translation, precedence, redaction."""

from __future__ import annotations

import pytest

from kgroup.core.config import (
    REDACTED,
    ClusterConfig,
    build_cluster_config,
    translate_java_properties,
)
from kgroup.core.errors import ConfigError
from kgroup.core.jaas import parse_jaas
from kgroup.core.java_properties import parse_properties


def translate(text: str, name: str = "client.properties") -> dict[str, str]:
    props, _origins, _notes = translate_java_properties(parse_properties(text, name))
    return props


def test_properties_comments_separators_and_continuations() -> None:
    text = (
        "# a comment\n"
        "! another\n"
        "security.protocol=SASL_SSL\n"
        "client.id : ops-tool\n"
        "sasl.mechanism PLAIN\n"
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n"
        '    username="alice" \\\n'
        '    password="pa ss\\"word";\n'
    )
    entries = parse_properties(text, "f.properties")
    keys = [k for k, _, _ in entries]
    assert keys == ["security.protocol", "client.id", "sasl.mechanism", "sasl.jaas.config"]
    assert entries[1][1] == "ops-tool"
    assert entries[2][1] == "PLAIN"
    assert entries[3][2] == "f.properties:6"
    assert entries[3][1].startswith("org.apache.kafka.common.security.plain.PlainLoginModule")


def test_plain_login_module_becomes_sasl_username_and_password() -> None:
    props = translate(
        "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n"
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
        'username="alice" password="s3cret";\n'
    )
    assert props == {
        "security.protocol": "SASL_SSL",
        "sasl.mechanisms": "PLAIN",
        "sasl.username": "alice",
        "sasl.password": "s3cret",
    }


def test_scram_login_module() -> None:
    props = translate(
        "sasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config="
        'org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" '
        'password="x=y;z";\n'
    )
    assert props["sasl.mechanisms"] == "SCRAM-SHA-512"
    assert props["sasl.username"] == "bob"
    assert props["sasl.password"] == "x=y;z"


def test_jaas_without_password_names_what_is_missing() -> None:
    with pytest.raises(ConfigError) as err:
        translate(
            "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule "
            'required username="alice";\n'
        )
    assert "password" in err.value.message
    assert "client.properties:1" in err.value.message


def test_unknown_login_module_is_refused_with_hint() -> None:
    with pytest.raises(ConfigError) as err:
        translate('sasl.jaas.config=com.example.CustomLoginModule required token="abc";\n')
    assert "CustomLoginModule" in err.value.message
    assert "abc" not in err.value.one_line()


def test_kerberos_keytab_and_principal() -> None:
    props = translate(
        "sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true "
        'keyTab="/etc/kafka/ops.keytab" principal="ops@EXAMPLE.COM";\n'
    )
    assert props["sasl.kerberos.keytab"] == "/etc/kafka/ops.keytab"
    assert props["sasl.kerberos.principal"] == "ops@EXAMPLE.COM"


def test_pem_truststore_and_keystore(tmp_path) -> None:
    ca = tmp_path / "ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\nMII\n-----END CERTIFICATE-----\n")
    keystore = tmp_path / "client-keystore"
    keystore.write_text("-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n")
    props = translate(
        f"ssl.truststore.location={ca}\nssl.truststore.password=ignored\n"
        f"ssl.keystore.location={keystore}\nssl.key.password=kp\n"
        "ssl.endpoint.identification.algorithm=\n"
    )
    assert props == {
        "ssl.ca.location": str(ca),
        "ssl.certificate.location": str(keystore),
        "ssl.key.location": str(keystore),
        "ssl.key.password": "kp",
        "ssl.endpoint.identification.algorithm": "none",
    }


def test_damaged_jks_truststore_is_named(tmp_path) -> None:
    jks = tmp_path / "truststore.jks"
    jks.write_bytes(b"\xfe\xed\xfe\xed binary")
    with pytest.raises(ConfigError) as err:
        translate(f"ssl.truststore.location={jks}\n")
    assert "JKS" in err.value.message and str(jks) in err.value.message
    assert "damaged" in err.value.message


def test_renamed_and_ignored_properties() -> None:
    props, _, notes = translate_java_properties(
        parse_properties(
            "request.timeout.ms=15000\nmetadata.max.age.ms=60000\nkey.deserializer=org.X\n"
        )
    )
    assert props == {"socket.timeout.ms": "15000", "topic.metadata.refresh.interval.ms": "60000"}
    assert any("key.deserializer" in n for n in notes)


def test_untranslatable_java_property_is_named() -> None:
    with pytest.raises(ConfigError) as err:
        translate("ssl.cipher.suites=TLS_AES_256_GCM_SHA384\n")
    assert "ssl.cipher.suites" in err.value.message
    assert "client.properties:1" in err.value.message


def test_librdkafka_names_pass_through() -> None:
    assert translate("ssl.ca.location=/x.pem\nsocket.keepalive.enable=true\n") == {
        "ssl.ca.location": "/x.pem",
        "socket.keepalive.enable": "true",
    }


def test_parse_jaas_handles_quotes() -> None:
    module, options = parse_jaas('a.b.PlainLoginModule required username="a b" password="c\\"d";')
    assert module == "a.b.PlainLoginModule"
    assert options == {"username": "a b", "password": 'c"d'}


def test_precedence_flag_over_overrides_over_file(tmp_path) -> None:
    conf = tmp_path / "c.properties"
    conf.write_text("bootstrap.servers=file:9092\nclient.id=from-file\n")
    config = build_cluster_config(
        bootstrap=None, command_config=str(conf), overrides=["client.id=from-x"]
    )
    assert config.bootstrap_servers == "file:9092"
    assert config.properties["client.id"] == "from-x"
    config = build_cluster_config(bootstrap="flag:9092", command_config=str(conf))
    assert config.bootstrap_servers == "flag:9092"


def test_sandbox_fallback_only_when_nothing_else_names_a_cluster() -> None:
    config = build_cluster_config(
        bootstrap=None,
        command_config=None,
        fallback_bootstrap=lambda: ("127.0.0.1:1234", "sandbox"),
    )
    assert config.bootstrap_servers == "127.0.0.1:1234"
    assert config.bootstrap_source == "sandbox"
    config = build_cluster_config(
        bootstrap="b:1",
        command_config=None,
        fallback_bootstrap=lambda: ("127.0.0.1:1234", "sandbox"),
    )
    assert config.bootstrap_servers == "b:1"


def test_no_cluster_is_a_usage_error_with_the_ways_to_name_one() -> None:
    with pytest.raises(ConfigError) as err:
        build_cluster_config(bootstrap=None, command_config=None)
    assert err.value.exit_code == 2
    assert "sandbox start" in (err.value.hint or "")


@pytest.mark.parametrize("bad", ["localhost", "host:port", ":9092"])
def test_bad_bootstrap_is_refused(bad: str) -> None:
    with pytest.raises(ConfigError):
        build_cluster_config(bootstrap=bad, command_config=None)


def test_missing_config_file() -> None:
    from kgroup.core.errors import NotFoundError

    with pytest.raises(NotFoundError) as err:  # a missing input file is exit 3
        build_cluster_config(bootstrap="b:1", command_config="/nonexistent/c.properties")
    assert "/nonexistent/c.properties" in err.value.message


def test_redaction_hides_every_secret(tmp_path) -> None:
    conf = tmp_path / "c.properties"
    conf.write_text(
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
        'username="alice" password="hunter2";\nssl.key.password=kp1\n'
    )
    config = build_cluster_config(
        bootstrap="b:1", command_config=str(conf), overrides=["sasl.oauthbearer.client.secret=cs"]
    )
    shown = config.redacted()
    assert shown["sasl.password"] == REDACTED
    assert shown["ssl.key.password"] == REDACTED
    assert shown["sasl.oauthbearer.client.secret"] == REDACTED
    assert shown["sasl.username"] == "alice"
    assert "hunter2" not in repr(shown)


def test_default_api_timeout_sets_the_timeout(tmp_path) -> None:
    conf = tmp_path / "c.properties"
    conf.write_text("default.api.timeout.ms=5000\n")
    assert build_cluster_config(bootstrap="b:1", command_config=str(conf)).timeout_s == 5.0
    assert (
        build_cluster_config(bootstrap="b:1", command_config=str(conf), timeout_s=2).timeout_s == 2
    )


def test_a_configs_repr_shows_no_secret() -> None:
    config = ClusterConfig(
        "broker:9092",
        {
            "sasl.password": "hunter2-pw",
            "sasl.oauthbearer.client.secret": "s3cr3t-client",
            "ssl.key.pem": "-----BEGIN PRIVATE KEY-----abc",
            "security.protocol": "SASL_SSL",
        },
    )
    shown = repr(config) + str(config)
    for secret in ("hunter2-pw", "s3cr3t-client", "BEGIN PRIVATE KEY"):
        assert secret not in shown
    assert "'security.protocol': 'SASL_SSL'" in shown
    assert "broker:9092" in shown
