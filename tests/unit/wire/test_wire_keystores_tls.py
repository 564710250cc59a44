"""Mutual TLS from an unchanged Java client config with JKS or PKCS12 stores, against a scripted
broker behind `ssl` that requires a client certificate from the test CA: the wire client and
librdkafka both connect; a wrong store password is one line naming the file."""

from __future__ import annotations

import os
import ssl
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgroup.core.admin import GroupAdmin
from kgroup.core.config import build_cluster_config
from kgroup.core.errors import ConfigError, KafkaOperationError, UnreachableError
from kgroup.core.wire.client import WireClient
from kgroup.core.wire.connection import private_pem_file
from kgroup.protocol import messages as api_table
from tests.storegen import Pki, jks_store, make_pki, pkcs12_keystore, pkcs12_truststore, write
from tests.unit.wire.fakebroker import FakeBroker, metadata_body


@pytest.fixture(scope="module")
def pki() -> Pki:
    return make_pki()


def server_context(pki: Pki, directory: Path) -> ssl.SSLContext:
    cert = write(directory / "broker.pem", pki.broker.cert_pem + pki.broker.key_pem)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(cert))
    context.load_verify_locations(cadata=pki.ca.cert_pem.decode())
    context.verify_mode = ssl.CERT_REQUIRED  # mutual TLS: no client certificate, no session
    return context


@pytest.fixture()
def mtls_broker(pki: Pki, tmp_path: Path) -> Iterator[FakeBroker]:
    def handler(api: int, version: int, body: bytes) -> bytes:
        assert api == api_table.METADATA.key
        return metadata_body([(1, "localhost", broker.port)], version)

    broker = FakeBroker(handler, tls=server_context(pki, tmp_path))
    yield broker
    broker.close()


def java_config(kind: str, pki: Pki, directory: Path, keystore_password: str = "store-pw") -> Path:
    """An operator's client.properties with stores of `kind`, as Java clients read it."""
    if kind == "JKS":
        trust = write(
            directory / "truststore.jks", jks_store("trust-pw", trusted=[pki.ca.cert_der])
        )
        key = write(
            directory / "keystore.jks",
            jks_store(
                "store-pw",
                key=(pki.client.key_pkcs8_der, [pki.client.cert_der, pki.ca.cert_der], "key-pw"),
            ),
        )
        key_password = "key-pw"
    else:
        trust = write(directory / "truststore.p12", pkcs12_truststore([pki.ca.cert], "trust-pw"))
        key = write(
            directory / "keystore.p12", pkcs12_keystore(pki.client, [pki.ca.cert], "store-pw")
        )
        key_password = "store-pw"
    properties = directory / f"{kind.lower()}.properties"
    properties.write_text(
        "security.protocol=SSL\n"
        f"ssl.truststore.location={trust}\n"
        "ssl.truststore.password=trust-pw\n"
        f"ssl.truststore.type={kind}\n"
        f"ssl.keystore.location={key}\n"
        f"ssl.keystore.password={keystore_password}\n"
        f"ssl.key.password={key_password}\n"
        f"ssl.keystore.type={kind}\n"
    )
    return properties


@pytest.mark.parametrize("kind", ["JKS", "PKCS12"])
def test_wire_client_connects_with_java_stores(kind, pki, mtls_broker, tmp_path) -> None:
    props = java_config(kind, pki, tmp_path)
    config = build_cluster_config(
        bootstrap=f"localhost:{mtls_broker.port}", command_config=str(props), timeout_s=5
    )
    assert WireClient.supports(config) == (True, "")
    with WireClient(config) as client:
        assert [(b.id, b.host) for b in client.brokers()] == [(1, "localhost")]


@pytest.mark.parametrize("kind", ["JKS", "PKCS12"])
def test_librdkafka_connects_with_java_stores(kind, pki, mtls_broker, tmp_path) -> None:
    props = java_config(kind, pki, tmp_path)
    config = build_cluster_config(
        bootstrap=f"localhost:{mtls_broker.port}", command_config=str(props), timeout_s=5
    )
    admin = GroupAdmin(config, use_wire=False)
    try:
        assert [(b.id, b.host) for b in admin.ping()] == [(1, "localhost")]
    finally:
        admin.close()
    assert any(api == api_table.METADATA.key for api, _ in mtls_broker.received)


def test_without_a_client_certificate_the_broker_refuses(pki, mtls_broker, tmp_path) -> None:
    trust = write(tmp_path / "t.jks", jks_store("trust-pw", trusted=[pki.ca.cert_der]))
    props = tmp_path / "no-key.properties"
    props.write_text(f"security.protocol=SSL\nssl.truststore.location={trust}\n")
    config = build_cluster_config(
        bootstrap=f"localhost:{mtls_broker.port}", command_config=str(props), timeout_s=3
    )
    with WireClient(config) as client, pytest.raises((KafkaOperationError, UnreachableError)):
        client.brokers()


@pytest.mark.parametrize("kind", ["JKS", "PKCS12"])
def test_wrong_keystore_password_is_one_line_naming_the_file(kind, pki, tmp_path) -> None:
    props = java_config(kind, pki, tmp_path, keystore_password="Not-The-One-7")
    with pytest.raises(ConfigError) as caught:
        build_cluster_config(bootstrap="localhost:1", command_config=str(props))
    line = caught.value.one_line()
    assert "\n" not in line and "wrong password" in line
    assert f"keystore.{'jks' if kind == 'JKS' else 'p12'}" in line
    assert "Not-The-One-7" not in line and "store-pw" not in line


def test_private_pem_file_is_0600_in_a_0700_directory_and_removed(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    with private_pem_file("-----BEGIN PRIVATE KEY-----\n") as path:
        assert Path(path).parent.parent == tmp_path
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(Path(path).parent).st_mode) == 0o700
    assert list(tmp_path.iterdir()) == []
