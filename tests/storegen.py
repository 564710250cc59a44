"""Test PKI and Java stores made in the tests: a CA, a broker certificate for localhost, a client
certificate; PKCS12 stores through `cryptography`, JKS stores written byte by byte from the layout
of Sun's JavaKeyStore.engineStore and KeyProtector.protect (an implementation of its own, so the
reader in kgroup.core.keystores is checked against the documented format, not against itself).
"""

from __future__ import annotations

import datetime
import hashlib
import ipaddress
import os
import struct
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class Identity:
    key: ec.EllipticCurvePrivateKey
    cert: x509.Certificate

    @property
    def cert_der(self) -> bytes:
        return self.cert.public_bytes(serialization.Encoding.DER)

    @property
    def cert_pem(self) -> bytes:
        return self.cert.public_bytes(serialization.Encoding.PEM)

    @property
    def key_pkcs8_der(self) -> bytes:
        return self.key.private_bytes(
            serialization.Encoding.DER,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    @property
    def key_pem(self) -> bytes:
        return self.key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def make_identity(cn: str, issuer: Identity | None = None, *, ca: bool = False) -> Identity:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(cn))
        .issuer_name(issuer.cert.subject if issuer else _name(cn))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName(cn), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        builder = builder.add_extension(
            x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False
        )
    else:
        assert issuer is not None
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()),
            critical=False,
        )
    cert = builder.sign(issuer.key if issuer else key, hashes.SHA256())
    return Identity(key, cert)


@dataclass(frozen=True)
class Pki:
    ca: Identity
    broker: Identity  # CN and SAN localhost, signed by ca
    client: Identity  # CN kgroup-client, signed by ca


def make_pki() -> Pki:
    ca = make_identity("kgroup test CA", ca=True)
    return Pki(ca, make_identity("localhost", ca), make_identity("kgroup-client", ca))


# --- PKCS12 (cryptography) ---------------------------------------------------------------------


def pkcs12_truststore(certs: list[x509.Certificate], password: str) -> bytes:
    return pkcs12.serialize_key_and_certificates(
        None,
        None,
        None,
        [pkcs12.PKCS12Certificate(c, f"ca{i}".encode()) for i, c in enumerate(certs)],
        serialization.BestAvailableEncryption(password.encode()),
    )


def pkcs12_keystore(identity: Identity, chain: list[x509.Certificate], password: str) -> bytes:
    return pkcs12.serialize_key_and_certificates(
        b"client",
        identity.key,
        identity.cert,
        chain,
        serialization.BestAvailableEncryption(password.encode()),
    )


# --- JKS (Sun's layout) ------------------------------------------------------------------------


def _java_utf(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack(">H", len(data)) + data


def _java_password(password: str) -> bytes:
    out = b""
    for char in password:
        code = ord(char)
        out += bytes([(code >> 8) & 0xFF, code & 0xFF])
    return out


def _der(tag: int, content: bytes) -> bytes:
    size = len(content)
    if size < 0x80:
        length = bytes([size])
    else:
        raw = size.to_bytes((size.bit_length() + 7) // 8, "big")
        length = bytes([0x80 | len(raw)]) + raw
    return bytes([tag]) + length + content


# 1.3.6.1.4.1.42.2.17.1.1, Sun's KeyProtector
_KEY_PROTECTOR_OID = bytes([0x06, 0x0A, 0x2B, 0x06, 0x01, 0x04, 0x01, 0x2A, 0x02, 0x11, 0x01, 0x01])


def key_protector_protect(pkcs8: bytes, password: str) -> bytes:
    """sun.security.provider.KeyProtector.protect: EncryptedPrivateKeyInfo DER."""
    passwd = _java_password(password)
    salt = os.urandom(20)
    rounds = len(pkcs8) // 20 + (1 if len(pkcs8) % 20 else 0)
    xor_key = b""
    digest = salt
    for _ in range(rounds):
        digest = hashlib.sha1(passwd + digest).digest()
        xor_key += digest
    encrypted = bytes(p ^ x for p, x in zip(pkcs8, xor_key[: len(pkcs8)], strict=True))
    check = hashlib.sha1(passwd + pkcs8).digest()
    algorithm = _der(0x30, _KEY_PROTECTOR_OID + b"\x05\x00")
    return _der(0x30, algorithm + _der(0x04, salt + encrypted + check))


def jks_store(
    store_password: str,
    *,
    trusted: list[bytes] = (),  # type: ignore[assignment]
    key: tuple[bytes, list[bytes], str] | None = None,  # (PKCS#8 DER, chain DER, key password)
) -> bytes:
    """A version-2 JKS file, as JavaKeyStore.engineStore writes it."""
    body = struct.pack(">II", 0xFEEDFEED, 2)
    entries = []
    if key is not None:
        pkcs8, chain, key_password = key
        protected = key_protector_protect(pkcs8, key_password)
        entry = struct.pack(">I", 1) + _java_utf("client") + struct.pack(">q", 1_700_000_000_000)
        entry += struct.pack(">I", len(protected)) + protected + struct.pack(">I", len(chain))
        for der in chain:
            entry += _java_utf("X.509") + struct.pack(">I", len(der)) + der
        entries.append(entry)
    for index, der in enumerate(trusted):
        entry = (
            struct.pack(">I", 2) + _java_utf(f"ca{index}") + struct.pack(">q", 1_700_000_000_000)
        )
        entry += _java_utf("X.509") + struct.pack(">I", len(der)) + der
        entries.append(entry)
    body += struct.pack(">I", len(entries)) + b"".join(entries)
    digest = hashlib.sha1(_java_password(store_password) + b"Mighty Aphrodite" + body).digest()
    return body + digest


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
