"""Java stores from an unchanged client config: JKS and PKCS12, truststores and keystores (mTLS),
read in memory and passed on as PEM; a wrong password is one line naming the file, never the
password."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from kgroup.core.config import translate_java_properties
from kgroup.core.errors import ConfigError
from kgroup.core.java_properties import parse_properties
from tests.storegen import Pki, jks_store, make_pki, pkcs12_keystore, pkcs12_truststore, write


@pytest.fixture(scope="module")
def pki() -> Pki:
    return make_pki()


def translate(text: str) -> dict[str, str]:
    props, _origins, _notes = translate_java_properties(parse_properties(text, "jks.properties"))
    return props


def pem_certs(text: str) -> list[x509.Certificate]:
    return x509.load_pem_x509_certificates(text.encode())


def truststore(kind: str, pki: Pki, tmp_path: Path, password: str = "trust-pw") -> Path:
    if kind == "JKS":
        return write(tmp_path / "truststore.jks", jks_store(password, trusted=[pki.ca.cert_der]))
    return write(tmp_path / "truststore.p12", pkcs12_truststore([pki.ca.cert], password))


def keystore(kind: str, pki: Pki, tmp_path: Path, store_pw: str, key_pw: str) -> Path:
    if kind == "JKS":
        data = jks_store(
            store_pw,
            key=(pki.client.key_pkcs8_der, [pki.client.cert_der, pki.ca.cert_der], key_pw),
        )
        return write(tmp_path / "keystore.jks", data)
    return write(tmp_path / "keystore.p12", pkcs12_keystore(pki.client, [pki.ca.cert], store_pw))


@pytest.mark.parametrize("kind", ["JKS", "PKCS12"])
def test_truststore_becomes_ca_pem_in_memory(kind: str, pki: Pki, tmp_path: Path) -> None:
    path = truststore(kind, pki, tmp_path)
    props = translate(
        "security.protocol=SSL\n"
        f"ssl.truststore.location={path}\nssl.truststore.password=trust-pw\n"
        f"ssl.truststore.type={kind}\n"
    )
    assert set(props) == {"security.protocol", "ssl.ca.pem"}
    assert pem_certs(props["ssl.ca.pem"]) == [pki.ca.cert]


def test_jks_truststore_without_password_is_read_unchecked_as_java_does(pki, tmp_path) -> None:
    path = truststore("JKS", pki, tmp_path)
    props = translate(f"ssl.truststore.location={path}\n")
    assert pem_certs(props["ssl.ca.pem"]) == [pki.ca.cert]


@pytest.mark.parametrize("kind", ["JKS", "PKCS12"])
def test_keystore_becomes_certificate_and_key_pem(kind: str, pki: Pki, tmp_path: Path) -> None:
    path = keystore(kind, pki, tmp_path, "store-pw", "store-pw")
    props = translate(
        f"ssl.keystore.location={path}\nssl.keystore.password=store-pw\nssl.key.password=store-pw\n"
    )
    assert set(props) == {"ssl.certificate.pem", "ssl.key.pem"}
    assert pem_certs(props["ssl.certificate.pem"]) == [pki.client.cert, pki.ca.cert]
    key = serialization.load_pem_private_key(props["ssl.key.pem"].encode(), None)
    assert key.private_numbers() == pki.client.key.private_numbers()


def test_jks_key_with_its_own_key_password(pki: Pki, tmp_path: Path) -> None:
    path = keystore("JKS", pki, tmp_path, "store-pw", "key-pw")
    props = translate(
        f"ssl.keystore.location={path}\nssl.keystore.password=store-pw\nssl.key.password=key-pw\n"
    )
    key = serialization.load_pem_private_key(props["ssl.key.pem"].encode(), None)
    assert key.private_numbers() == pki.client.key.private_numbers()


@pytest.mark.parametrize(
    ("kind", "prop"),
    [("JKS", "truststore"), ("PKCS12", "truststore"), ("JKS", "keystore"), ("PKCS12", "keystore")],
)
def test_wrong_store_password_names_the_file_never_the_password(
    kind: str, prop: str, pki: Pki, tmp_path: Path
) -> None:
    if prop == "truststore":
        path = truststore(kind, pki, tmp_path)
    else:
        path = keystore(kind, pki, tmp_path, "store-pw", "store-pw")
    with pytest.raises(ConfigError) as caught:
        translate(f"ssl.{prop}.location={path}\nssl.{prop}.password=Wrong-Secret-9\n")
    line = caught.value.one_line()
    assert "\n" not in line
    assert str(path) in line and "wrong password" in line
    assert f"ssl.{prop}.password" in line
    assert "Wrong-Secret-9" not in line and "store-pw" not in line


def test_wrong_jks_key_password_names_ssl_key_password(pki: Pki, tmp_path: Path) -> None:
    path = keystore("JKS", pki, tmp_path, "store-pw", "key-pw")
    with pytest.raises(ConfigError) as caught:
        translate(f"ssl.keystore.location={path}\nssl.keystore.password=store-pw\n")
    assert "ssl.key.password" in caught.value.one_line()
    assert "store-pw" not in caught.value.one_line()


def test_damaged_and_unknown_stores_are_one_line(pki: Pki, tmp_path: Path) -> None:
    jks = jks_store("pw", trusted=[pki.ca.cert_der])
    cut = write(tmp_path / "cut.jks", jks[: len(jks) // 2])
    with pytest.raises(ConfigError, match="truncated or damaged"):
        translate(f"ssl.truststore.location={cut}\nssl.truststore.password=pw\n")
    junk = write(tmp_path / "junk.bin", b"\x00\x01not a store")
    with pytest.raises(ConfigError, match="neither a JKS nor a PKCS12"):
        translate(f"ssl.truststore.location={junk}\nssl.truststore.password=pw\n")
    jceks = write(tmp_path / "s.jceks", b"\xce\xce\xce\xce\x00\x00\x00\x02")
    with pytest.raises(ConfigError, match="JCEKS"):
        translate(f"ssl.truststore.location={jceks}\n")
    from kgroup.core.errors import NotFoundError

    with pytest.raises(NotFoundError, match="does not exist"):  # a missing file: exit 3
        translate(f"ssl.truststore.location={tmp_path / 'missing.jks'}\n")


def test_keystore_without_a_key_says_so(pki: Pki, tmp_path: Path) -> None:
    path = write(tmp_path / "k.jks", jks_store("pw", trusted=[pki.ca.cert_der]))
    with pytest.raises(ConfigError, match="holds no private key"):
        translate(f"ssl.keystore.location={path}\nssl.keystore.password=pw\n")
