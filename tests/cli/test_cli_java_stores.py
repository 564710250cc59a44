"""`kgroup -c client.properties` with an operator's unchanged Java TLS config (JKS stores, mutual
TLS) through a real `kgroup` process, against a scripted cluster behind `ssl` that requires a
client certificate from the test's CA."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import run_kgroup
from tests.storegen import Pki, jks_store, make_pki, write
from tests.unit.wire.fakebroker import FakeBroker
from tests.unit.wire.fakegroups import VERSIONS, GroupsCluster


@dataclass
class TlsGroupsCluster(GroupsCluster):
    tls: ssl.SSLContext | None = None

    def __post_init__(self) -> None:
        self.broker = FakeBroker(self.handler, versions=dict(VERSIONS), tls=self.tls)


@pytest.fixture(scope="module")
def pki() -> Pki:
    return make_pki()


@pytest.fixture()
def cluster(pki: Pki, tmp_path: Path) -> Iterator[TlsGroupsCluster]:
    pem = write(tmp_path / "broker.pem", pki.broker.cert_pem + pki.broker.key_pem)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(pem))
    context.load_verify_locations(cadata=pki.ca.cert_pem.decode())
    context.verify_mode = ssl.CERT_REQUIRED
    made = TlsGroupsCluster(
        topics={"orders": 1}, offsets={"tls-app": {("orders", 0): 3}}, tls=context
    )
    yield made
    made.close()


def java_config(pki: Pki, directory: Path, store_password: str) -> Path:
    trust = write(directory / "truststore.jks", jks_store("changeit", trusted=[pki.ca.cert_der]))
    key = write(
        directory / "keystore.jks",
        jks_store(
            "changeit",
            key=(pki.client.key_pkcs8_der, [pki.client.cert_der, pki.ca.cert_der], "changeit"),
        ),
    )
    conf = directory / "jks.properties"
    conf.write_text(
        "security.protocol=SSL\n"
        f"ssl.truststore.location={trust}\n"
        "ssl.truststore.password=changeit\n"
        f"ssl.keystore.location={key}\n"
        f"ssl.keystore.password={store_password}\n"
        "ssl.key.password=changeit\n"
    )
    return conf


def test_list_with_jks_stores_and_mutual_tls(cluster, pki, tmp_path) -> None:
    conf = java_config(pki, tmp_path, "changeit")
    result = run_kgroup(
        "-c", str(conf), "-b", f"127.0.0.1:{cluster.broker.port}", "--timeout", "10", "list"
    )
    assert "tls-app" in result.stdout


def test_wrong_keystore_password_is_one_line_naming_the_file(cluster, pki, tmp_path) -> None:
    conf = java_config(pki, tmp_path, "Wrong-Pass-77")
    result = run_kgroup("-c", str(conf), "-b", f"127.0.0.1:{cluster.broker.port}", "list", expect=2)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"{tmp_path / 'keystore.jks'}" in lines[0] and "wrong password" in lines[0]
    assert "Wrong-Pass-77" not in result.stderr and "changeit" not in result.stderr
