"""Java key and trust stores (JKS, PKCS12) read in memory and turned into PEM text.

An operator's Java client config names its stores as they are (`ssl.truststore.location`,
`ssl.keystore.location`); librdkafka (`ssl.ca.pem`, `ssl.certificate.pem`, `ssl.key.pem`) and the
wire client take PEM. Nothing is written to disk here.

JKS, as Sun's `sun.security.provider.JavaKeyStore` writes it (engineStore/engineLoad): magic
0xFEEDFEED, version 1 or 2, an entry count, entries (tag 1: a private key under Sun's
`KeyProtector` and its certificate chain; tag 2: a trusted certificate), then a SHA-1 digest of
the password (UTF-16BE), the words "Mighty Aphrodite" and every byte before it: a wrong store
password is told by that digest. `KeyProtector` (sun.security.provider.KeyProtector): 20 bytes of
salt, the PKCS#8 key XORed with a SHA-1 stream (digest_i = SHA1(password || digest_(i-1)),
digest_0 = salt), then SHA1(password || plain key) to check the key password.
PKCS12 goes through `cryptography` (imported only when a PKCS12 store is read).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import struct
from dataclasses import dataclass

from kgroup.core.errors import ConfigError

JKS_MAGIC = 0xFEEDFEED
JCEKS_MAGIC = 0xCECECECE
KEY_PROTECTOR_OID = "1.3.6.1.4.1.42.2.17.1.1"
_DIGEST = 20


@dataclass(frozen=True)
class KeyMaterial:
    """A client's certificate chain and unencrypted private key, as PEM text."""

    certificate_chain_pem: str
    key_pem: str

    def __repr__(self) -> str:  # the key never reaches a log or a traceback
        return "KeyMaterial(...)"


class StoreError(ConfigError):
    """A store that cannot be read: wrong password, damaged, or of a type kgroup cannot read."""


def store_kind(data: bytes) -> str:
    """JKS, JCEKS, PEM or PKCS12, told from the content (as Java 9+ does for JKS/PKCS12)."""
    if len(data) >= 4:
        magic = struct.unpack(">I", data[:4])[0]
        if magic == JKS_MAGIC:
            return "JKS"
        if magic == JCEKS_MAGIC:
            return "JCEKS"
    if b"-----BEGIN" in data[:65536]:
        return "PEM"
    return "PKCS12"


def read_store_file(path: str, what: str, origin: str) -> bytes:
    """The bytes of a store file, bounded (kgroup.core.files: a regular file within the keystore
    limit, else exit 2; missing exit 3), the error naming the property and where it was set."""
    from kgroup.core.errors import KgroupError
    from kgroup.core.files import KEYSTORE, read_bytes

    try:
        return read_bytes(path, KEYSTORE)
    except KgroupError as exc:
        exc.message = f"{what} (at {origin}): {exc.message}"
        if not exc.hint or exc.hint == "check the path":
            exc.hint = f"point {what} at the store file"
        raise


def truststore_pem(data: bytes, password: str | None, path: str, origin: str) -> str:
    """The certificates a JKS or PKCS12 truststore trusts, as PEM: trusted entries and each key
    entry's own certificate (JKS; a PKCS12 store gives every certificate it holds)."""
    kind = store_kind(data)
    if kind == "JKS":
        store = _parse_jks(data, password, path, origin, "ssl.truststore.password")
        # as Java's TrustStoreUtil.getTrustedCerts: of a key entry, its own certificate only
        ders = [der for der in store.trusted] + [chain[0] for _, chain in store.keys if chain]
    elif kind == "PKCS12":
        _, ders = _parse_pkcs12(data, password, path, origin, "ssl.truststore.password")
    else:
        raise _unsupported(kind, path, origin)
    if not ders:
        raise StoreError(
            f"truststore {path} (at {origin}) holds no certificate",
            hint="import the CA that signed the brokers' certificates: keytool -importcert",
        )
    return "".join(_pem("CERTIFICATE", der) for der in ders)


def keystore_pem(
    data: bytes,
    store_password: str | None,
    key_password: str | None,
    path: str,
    origin: str,
) -> KeyMaterial:
    """The first private key of a JKS or PKCS12 keystore and its certificate chain, as PEM.

    As Java's SSL key manager does, the key password defaults to the store password."""
    kind = store_kind(data)
    if kind == "JKS":
        store = _parse_jks(data, store_password, path, origin, "ssl.keystore.password")
        if not store.keys:
            raise _no_key(path, origin)
        protected, chain = store.keys[0]
        secret = key_password if key_password is not None else store_password
        if secret is None:
            raise StoreError(
                f"keystore {path} (at {origin}) needs a password to open its private key",
                hint="set ssl.keystore.password (and ssl.key.password if the key has its own)",
            )
        key_der = _recover_key(protected, secret, path, origin)
        return KeyMaterial("".join(_pem("CERTIFICATE", der) for der in chain), _pem_key(key_der))
    if kind == "PKCS12":
        # as Java's KeyStore.load: the store opens with its own password (PKCS12 keys share it)
        password = store_password if store_password is not None else key_password
        key_der, ders = _parse_pkcs12(data, password, path, origin, "ssl.keystore.password")
        if key_der is None:
            raise _no_key(path, origin)
        return KeyMaterial("".join(_pem("CERTIFICATE", der) for der in ders), _pem_key(key_der))
    raise _unsupported(kind, path, origin)


# --- JKS ------------------------------------------------------------------------------------------


@dataclass
class _Jks:
    trusted: list[bytes]
    keys: list[tuple[bytes, list[bytes]]]  # (KeyProtector's EncryptedPrivateKeyInfo, chain DER)


def _password_bytes(password: str) -> bytes:
    """Java chars as Sun's code turns them into bytes: two per char, big-endian (UTF-16BE)."""
    return password.encode("utf-16-be", errors="surrogatepass")


def _parse_jks(data: bytes, password: str | None, path: str, origin: str, prop: str) -> _Jks:
    reader = _Reader(data, path, origin)
    reader.u32()  # magic, checked by store_kind
    version = reader.u32()
    if version not in (1, 2):
        raise StoreError(f"JKS store {path} (at {origin}) has unknown version {version}")
    store = _Jks([], [])
    for _ in range(reader.u32()):
        tag = reader.u32()
        reader.utf()  # alias
        reader.take(8)  # creation date
        if tag == 1:
            protected = reader.take(reader.u32())
            chain = []
            for _ in range(reader.u32()):
                if version == 2:
                    reader.utf()  # certificate type, "X.509"
                chain.append(reader.take(reader.u32()))
            store.keys.append((protected, chain))
        elif tag == 2:
            if version == 2:
                reader.utf()
            store.trusted.append(reader.take(reader.u32()))
        else:
            raise StoreError(f"JKS store {path} (at {origin}) is damaged (entry tag {tag})")
    body_end = reader.position
    stored = reader.take(_DIGEST)
    if password is not None:  # as Java: without a password the integrity is not checked
        digest = hashlib.sha1(
            _password_bytes(password) + b"Mighty Aphrodite" + data[:body_end]
        ).digest()
        if not hmac.compare_digest(digest, stored):
            raise _wrong_password(path, origin, prop)
    return store


def _recover_key(protected_info: bytes, password: str, path: str, origin: str) -> bytes:
    """The PKCS#8 key under Sun's KeyProtector (see the module docstring)."""
    oid, protected = _encrypted_private_key_info(protected_info, path, origin)
    if oid != KEY_PROTECTOR_OID:
        raise StoreError(
            f"the private key in keystore {path} (at {origin}) is protected with algorithm {oid}, "
            "which kgroup cannot read",
            hint="convert the store: keytool -importkeystore -srckeystore FILE "
            "-destkeystore client.p12 -deststoretype PKCS12",
        )
    if len(protected) < 2 * _DIGEST:
        raise StoreError(f"the private key in keystore {path} (at {origin}) is damaged")
    secret = _password_bytes(password)
    salt, encrypted = protected[:_DIGEST], protected[_DIGEST:-_DIGEST]
    stream = bytearray()
    digest = salt
    while len(stream) < len(encrypted):
        digest = hashlib.sha1(secret + digest).digest()
        stream += digest
    plain = bytes(a ^ b for a, b in zip(encrypted, stream, strict=False))
    if not hmac.compare_digest(hashlib.sha1(secret + plain).digest(), protected[-_DIGEST:]):
        raise _wrong_password(path, origin, "ssl.key.password")
    return plain


def _encrypted_private_key_info(der: bytes, path: str, origin: str) -> tuple[str, bytes]:
    """(algorithm OID, encrypted data) of an EncryptedPrivateKeyInfo (RFC 5208)."""
    try:
        outer, _ = _tlv(der, 0, 0x30)
        algorithm, after = _tlv(outer, 0, 0x30)
        oid, _ = _tlv(algorithm, 0, 0x06)
        encrypted, _ = _tlv(outer, after, 0x04)
    except ValueError:
        raise StoreError(f"the private key in keystore {path} (at {origin}) is damaged") from None
    return _oid_text(oid), encrypted


def _tlv(data: bytes, at: int, tag: int) -> tuple[bytes, int]:
    """The content of the DER element of `tag` at `at`, and the position after it."""
    if at + 2 > len(data) or data[at] != tag:
        raise ValueError("unexpected DER element")
    length, at = data[at + 1], at + 2
    if length & 0x80:
        count = length & 0x7F
        if count == 0 or count > 4 or at + count > len(data):
            raise ValueError("bad DER length")
        length, at = int.from_bytes(data[at : at + count], "big"), at + count
    if at + length > len(data):
        raise ValueError("truncated DER element")
    return data[at : at + length], at + length


def _oid_text(oid: bytes) -> str:
    if not oid:
        return ""
    parts = [oid[0] // 40, oid[0] % 40]
    value = 0
    for byte in oid[1:]:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            parts.append(value)
            value = 0
    return ".".join(str(p) for p in parts)


class _Reader:
    def __init__(self, data: bytes, path: str, origin: str) -> None:
        self.data, self.position, self.path, self.origin = data, 0, path, origin

    def take(self, count: int) -> bytes:
        end = self.position + count
        if count < 0 or end > len(self.data):
            raise StoreError(f"JKS store {self.path} (at {self.origin}) is truncated or damaged")
        chunk = self.data[self.position : end]
        self.position = end
        return chunk

    def u32(self) -> int:
        return struct.unpack(">I", self.take(4))[0]

    def utf(self) -> str:  # Java's DataInput.readUTF: u16 length, modified UTF-8
        size = struct.unpack(">H", self.take(2))[0]
        return self.take(size).decode("utf-8", errors="replace")


# --- PKCS12 ---------------------------------------------------------------------------------------


def _parse_pkcs12(
    data: bytes, password: str | None, path: str, origin: str, prop: str
) -> tuple[bytes | None, list[bytes]]:
    """(PKCS#8 DER key or None, certificates DER: the key's first) of a PKCS12 store."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.serialization import pkcs12

    try:
        loaded = pkcs12.load_pkcs12(data, password.encode("utf-8") if password else None)
    except ValueError:
        if not _looks_like_pfx(data):
            raise StoreError(
                f"{path} (at {origin}) is neither a JKS nor a PKCS12 store",
                hint="check the path, or convert the store to PKCS12 with keytool -importkeystore",
            ) from None
        if not password:
            raise StoreError(
                f"PKCS12 store {path} (at {origin}) needs a password",
                hint=f"set {prop}",
            ) from None
        raise _wrong_password(path, origin, prop) from None
    certificates = []
    if loaded.cert is not None:
        certificates.append(loaded.cert.certificate)
    certificates.extend(item.certificate for item in loaded.additional_certs)
    ders = [cert.public_bytes(serialization.Encoding.DER) for cert in certificates]
    key_der = None
    if loaded.key is not None:
        key_der = loaded.key.private_bytes(
            serialization.Encoding.DER,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    return key_der, ders


def _looks_like_pfx(data: bytes) -> bool:
    """A DER SEQUENCE opening with INTEGER 3: the PFX version of RFC 7292."""
    try:
        pfx, _ = _tlv(data, 0, 0x30)
        version, _ = _tlv(pfx, 0, 0x02)
    except ValueError:
        return False
    return version == b"\x03"


# --- messages and PEM -----------------------------------------------------------------------------


def _wrong_password(path: str, origin: str, prop: str) -> StoreError:
    return StoreError(
        f"wrong password for {path} (named at {origin}): {prop} does not open it",
        hint=f"check {prop} (keytool -list -keystore {path} asks for it)",
    )


def _no_key(path: str, origin: str) -> StoreError:
    return StoreError(
        f"keystore {path} (at {origin}) holds no private key",
        hint="ssl.keystore.location names the client's own key and certificate (mutual TLS); "
        "CA certificates go in ssl.truststore.location",
    )


def _unsupported(kind: str, path: str, origin: str) -> StoreError:
    return StoreError(
        f"{path} (at {origin}) is a {kind} store, which kgroup cannot read",
        hint="convert it: keytool -importkeystore -srckeystore FILE -destkeystore store.p12 "
        "-deststoretype PKCS12",
    )


def _pem(label: str, der: bytes) -> str:
    text = base64.b64encode(der).decode("ascii")
    body = "\n".join(text[i : i + 64] for i in range(0, len(text), 64))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----\n"


def _pem_key(der: bytes) -> str:
    return _pem("PRIVATE KEY", der)
