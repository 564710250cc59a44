"""TLS as librdkafka configures it: CA file, host name check (https / none), verification off."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import ConfigError, KafkaOperationError
from kgroup.core.wire.client import WireClient
from kgroup.protocol import messages as api_table
from tests.unit.wire.fakebroker import FakeBroker, metadata_body

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl CLI")


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for DNS name `localhost` (its own CA)."""
    directory = tmp_path_factory.mktemp("tls")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost",
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@pytest.fixture()
def tls_broker(certificate: tuple[Path, Path]) -> Iterator[FakeBroker]:
    cert, key = certificate
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(cert), str(key))

    def handler(api: int, version: int, body: bytes) -> bytes:
        assert api == api_table.METADATA.key
        return metadata_body([(1, "localhost", broker.port)], version)

    broker = FakeBroker(handler, tls=context)
    yield broker
    broker.close()


def config(host: str, broker: FakeBroker, **props: str) -> ClusterConfig:
    return ClusterConfig(
        f"{host}:{broker.port}", timeout_s=3, properties={"security.protocol": "SSL", **props}
    )


def test_tls_with_ca_file_and_matching_host_name(tls_broker, certificate) -> None:
    with WireClient(
        config("localhost", tls_broker, **{"ssl.ca.location": str(certificate[0])})
    ) as client:
        assert [b.host for b in client.brokers()] == ["localhost"]


def test_host_name_mismatch_fails_by_default_and_passes_with_none(tls_broker, certificate) -> None:
    ca = {"ssl.ca.location": str(certificate[0])}
    with (
        WireClient(config("127.0.0.1", tls_broker, **ca)) as client,
        pytest.raises(KafkaOperationError, match=r"TLS handshake with broker 127\.0\.0\.1"),
    ):
        client.brokers()
    relaxed = {**ca, "ssl.endpoint.identification.algorithm": "none"}
    with WireClient(config("127.0.0.1", tls_broker, **relaxed)) as client:
        assert len(client.brokers()) == 1


def test_unknown_ca_fails_and_verification_can_be_turned_off(tls_broker) -> None:
    with (
        WireClient(config("localhost", tls_broker)) as client,
        pytest.raises(KafkaOperationError, match="certificate"),
    ):
        client.brokers()
    off = {"enable.ssl.certificate.verification": "false"}
    with WireClient(config("localhost", tls_broker, **off)) as client:
        assert len(client.brokers()) == 1


def test_missing_ca_file_is_a_config_error(tmp_path) -> None:
    cfg = ClusterConfig(
        "localhost:1",
        properties={"security.protocol": "SSL", "ssl.ca.location": str(tmp_path / "nope.pem")},
    )
    with pytest.raises(ConfigError, match=r"ssl\.ca\.location"):
        WireClient(cfg)


def test_wrong_key_password_is_a_config_error_without_the_password(certificate, tmp_path) -> None:
    cert, key = certificate
    encrypted = tmp_path / "enc.pem"
    subprocess.run(
        [
            "openssl",
            "pkey",
            "-in",
            str(key),
            "-out",
            str(encrypted),
            "-aes256",
            "-passout",
            "pass:right-one",
        ],
        check=True,
        capture_output=True,
    )
    cfg = ClusterConfig(
        "localhost:1",
        properties={
            "security.protocol": "SSL",
            "ssl.certificate.location": str(cert),
            "ssl.key.location": str(encrypted),
            "ssl.key.password": "wrong-one",
        },
    )
    with pytest.raises(ConfigError) as caught:
        WireClient(cfg)
    assert "wrong-one" not in caught.value.one_line()
