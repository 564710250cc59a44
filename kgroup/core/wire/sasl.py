"""SASL client mechanisms PLAIN (RFC 4616) and SCRAM-SHA-256/512 (RFC 5802, RFC 7677).

Kafka carries the mechanism's messages in SaslAuthenticate requests after a SaslHandshake
(KIP-152); the bytes are exactly the RFC's. As Kafka's ScramSaslClient does, the password is
used as UTF-8 without SASLprep. Pure functions and one small state holder; no I/O.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from kgroup.core.errors import KafkaOperationError

SCRAM_HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}
MECHANISMS = ("PLAIN", *SCRAM_HASHES)


class SaslError(KafkaOperationError):
    """The SASL exchange failed; never carries the password."""


def plain_message(username: str, password: str) -> bytes:
    """RFC 4616 PLAIN: empty authzid, NUL, authcid, NUL, password."""
    return b"\x00" + username.encode("utf-8") + b"\x00" + password.encode("utf-8")


def _scram_name(username: str) -> str:
    # RFC 5802 section 5.1: "=" and "," in the user name are sent as "=3D" and "=2C".
    return username.replace("=", "=3D").replace(",", "=2C")


def _parse_attributes(message: str) -> dict[str, str]:
    attributes: dict[str, str] = {}
    for part in message.split(","):
        key, sep, value = part.partition("=")
        if sep and len(key) == 1:
            attributes.setdefault(key, value)
    return attributes


class ScramClient:
    """One SCRAM exchange: client-first, then client-final from the server-first, then verify."""

    def __init__(
        self, mechanism: str, username: str, password: str, nonce: str | None = None
    ) -> None:
        if mechanism not in SCRAM_HASHES:
            raise ValueError(f"not a SCRAM mechanism: {mechanism}")
        self.mechanism = mechanism
        self._hash = SCRAM_HASHES[mechanism]
        self._username = username
        self._password = password
        self._nonce = nonce or secrets.token_urlsafe(24)
        self._client_first_bare = f"n={_scram_name(username)},r={self._nonce}"
        self._server_signature: bytes | None = None

    def first_message(self) -> bytes:
        """client-first-message: GS2 header "n,," (no channel binding, no authzid) + bare."""
        return f"n,,{self._client_first_bare}".encode()

    def final_message(self, server_first: bytes) -> bytes:
        """client-final-message with the proof, computed from the server-first-message."""
        text = server_first.decode("utf-8", errors="replace")
        attrs = _parse_attributes(text)
        if "e" in attrs:
            raise SaslError(f"the broker refused SCRAM authentication: {attrs['e']}")
        try:
            nonce, salt_b64, iterations = attrs["r"], attrs["s"], int(attrs["i"])
            salt = base64.b64decode(salt_b64, validate=True)
        except (KeyError, ValueError) as exc:
            raise SaslError(
                f"malformed SCRAM server-first-message ({type(exc).__name__})"
            ) from None
        if not nonce.startswith(self._nonce) or len(nonce) <= len(self._nonce):
            raise SaslError("the SCRAM server nonce does not extend the client nonce")
        if iterations < 1:
            raise SaslError(f"invalid SCRAM iteration count {iterations}")
        salted = hashlib.pbkdf2_hmac(self._hash, self._password.encode("utf-8"), salt, iterations)
        client_key = self._hmac(salted, b"Client Key")
        stored_key = hashlib.new(self._hash, client_key).digest()
        without_proof = f"c=biws,r={nonce}"  # "biws" = base64("n,,")
        auth_message = f"{self._client_first_bare},{text},{without_proof}".encode()
        signature = self._hmac(stored_key, auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=True))
        server_key = self._hmac(salted, b"Server Key")
        self._server_signature = self._hmac(server_key, auth_message)
        return f"{without_proof},p={base64.b64encode(proof).decode()}".encode()

    def verify_server_final(self, server_final: bytes) -> None:
        """Check the server's signature: proves the broker knows the credential too."""
        attrs = _parse_attributes(server_final.decode("utf-8", errors="replace"))
        if "e" in attrs:
            raise SaslError(f"the broker refused SCRAM authentication: {attrs['e']}")
        if self._server_signature is None:
            raise SaslError("SCRAM server-final-message before the client-final-message")
        try:
            received = base64.b64decode(attrs["v"], validate=True)
        except (KeyError, ValueError):
            raise SaslError("malformed SCRAM server-final-message") from None
        if not hmac.compare_digest(received, self._server_signature):
            raise SaslError(
                "the broker's SCRAM signature does not match: it does not hold "
                "this user's credential"
            )

    def _hmac(self, key: bytes, message: bytes) -> bytes:
        return hmac.new(key, message, self._hash).digest()
