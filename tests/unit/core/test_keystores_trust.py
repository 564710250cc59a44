"""What a JKS truststore trusts, as Java's TrustStoreUtil.getTrustedCerts reads a KeyStore:
every trustedCertEntry, and of a PrivateKeyEntry only the first certificate of its chain (the
entry's own certificate), never the CAs that issued it."""

from __future__ import annotations

from pathlib import Path

from cryptography import x509

from kgroup.core.config import translate_java_properties
from kgroup.core.java_properties import parse_properties
from tests.storegen import jks_store, make_identity, make_pki, write


def test_jks_truststore_trusts_a_key_entrys_own_certificate_not_its_issuer(
    tmp_path: Path,
) -> None:
    pki = make_pki()
    other_ca = make_identity("another CA", ca=True)
    data = jks_store(
        "trust-pw",
        trusted=[other_ca.cert_der],
        key=(pki.client.key_pkcs8_der, [pki.client.cert_der, pki.ca.cert_der], "trust-pw"),
    )
    path = write(tmp_path / "mixed.jks", data)
    text = f"ssl.truststore.location={path}\nssl.truststore.password=trust-pw\n"
    props, _origins, _notes = translate_java_properties(parse_properties(text, "t.properties"))
    trusted = x509.load_pem_x509_certificates(props["ssl.ca.pem"].encode())
    assert sorted(c.subject.rfc4514_string() for c in trusted) == [
        "CN=another CA",
        "CN=kgroup-client",
    ]
