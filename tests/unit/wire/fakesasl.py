"""Kafka's server side of SASL (PLAIN, SCRAM-SHA-256/512, OAUTHBEARER) in front of a scripted
broker's handler, with KIP-368 session lifetimes and re-authentication.

What it plays, from Kafka's sources:
- SaslServerAuthenticator: SaslHandshake v1 names the mechanism, then SaslAuthenticate carries
  the mechanism's messages; a failed exchange answers SASL_AUTHENTICATION_FAILED with Kafka's
  own message. The final SaslAuthenticate answer (v1+) carries SessionLifetimeMs: the
  listener's connections.max.reauth.ms, or less when the credential (an OAUTHBEARER token)
  expires sooner (ReauthInfo.calcCompletionTimesAndReturnSessionLifetimeMs); the session
  expires that long after authentication ended. A re-authentication must keep the mechanism
  and the principal ("Cannot change principals during re-authentication").
- SocketServer.processCompletedReceives / KafkaChannel: a SaslHandshake on an authenticated
  connection with a session lifetime begins re-authentication, unless the previous one began
  less than a second ago (then KafkaApis answers the handshake ILLEGAL_SASL_STATE); any other
  request once the session has expired makes the broker close the connection without answer.
  Before authentication only ApiVersions and SaslHandshake are accepted (IllegalSaslState:
  the connection is closed).

Each FakeBroker connection is served by its own thread, so the session is thread-local state.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from kgroup.protocol import messages as api_table
from tests.unit.wire.fakebroker import Handler
from tests.unit.wire.wirecodec import Reader, Writer

ILLEGAL_SASL_STATE = 34
UNSUPPORTED_SASL_MECHANISM = 33
SASL_AUTHENTICATION_FAILED = 58
MIN_REAUTH_INTERVAL_S = 1.0  # KafkaChannel.MIN_REAUTH_INTERVAL_ONE_SECOND_NANOS
SCRAM_HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}
SCRAM_ITERATIONS = 4096
SASL_VERSIONS = {api_table.SASL_HANDSHAKE.key: (0, 1), api_table.SASL_AUTHENTICATE.key: (0, 2)}
AUTH_APIS = (api_table.SASL_HANDSHAKE.key, api_table.SASL_AUTHENTICATE.key)

# An OAUTHBEARER token -> (principal, expiry as time.time()), or None when refused
TokenCheck = Callable[[str], "tuple[str, float] | None"]


def unsecured_jwt_check(token: str) -> tuple[str, float] | None:
    """Kafka's OAuthBearerUnsecuredValidatorCallbackHandler, roughly: an `{"alg":"none"}` JWT
    with `sub` and `exp` (seconds) not yet passed."""
    try:
        header, payload, _ = token.split(".")
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        if json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))["alg"] != "none":
            return None
        subject, expires = claims["sub"], float(claims["exp"])
    except (ValueError, KeyError, TypeError):
        return None
    return (subject, expires) if expires > time.time() else None


@dataclass
class _Session:
    """One connection's SASL state."""

    number: int
    mechanism: str | None = None
    principal: str | None = None
    authenticated: bool = False
    reauthenticating: bool = False
    expires_at: float | None = None  # time.monotonic()
    reauth_started: float = 0.0
    scram: _ScramServer | None = None
    refused_token: bool = False


@dataclass
class SaslGate:
    """Wraps `inner` (a scripted broker's handler) with SASL as a Kafka listener does it.

    `lifetime_ms`: the listener's connections.max.reauth.ms (0: sessions never expire).
    `users`: PLAIN and SCRAM credentials. `check_token`: OAUTHBEARER's validator.
    `refuse_reauth`: every re-authentication fails (a password rotated, a token revoked)."""

    inner: Handler
    mechanism: str = "PLAIN"
    users: dict[str, str] = field(default_factory=dict)
    check_token: TokenCheck = unsecured_jwt_check
    lifetime_ms: int = 0
    refuse_reauth: bool = False
    # what happened, in order: ("auth"|"reauth", connection number, principal, lifetime_ms),
    # ("expired", connection number, api key), ("refused", connection number, reason)
    events: list[tuple] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)  # OAUTHBEARER tokens presented, in order

    def __post_init__(self) -> None:
        self._local = threading.local()
        self._lock = threading.Lock()
        self.connections = 0

    def install(self, broker: object) -> SaslGate:
        """Put the gate in front of `broker` (a FakeBroker), offering SaslHandshake v0-v1 and
        SaslAuthenticate v0-v2 as Kafka 4.x does."""
        broker.handler = self  # type: ignore[attr-defined]
        broker.versions.update(SASL_VERSIONS)  # type: ignore[attr-defined]
        return self

    def count(self, kind: str) -> int:
        return sum(1 for event in self.events if event[0] == kind)

    def _session(self) -> _Session:
        session = getattr(self._local, "session", None)
        if session is None:
            with self._lock:
                self.connections += 1
                session = self._local.session = _Session(self.connections)
        return session

    def __call__(self, api: int, version: int, body: bytes) -> bytes:
        session = self._session()
        if api == api_table.SASL_HANDSHAKE.key:
            return self._handshake(session, version, body)
        if api == api_table.SASL_AUTHENTICATE.key:
            if session.authenticated and not session.reauthenticating:
                return b"DROP"  # SaslAuthenticate outside an exchange: IllegalSaslState
            return self._authenticate(session, version, body)
        if not session.authenticated or session.reauthenticating:
            return b"DROP"  # "Unexpected Kafka request of type ... during SASL handshake"
        if session.expires_at is not None and time.monotonic() > session.expires_at:
            self.events.append(("expired", session.number, api))
            return b"DROP"  # SocketServer: "Disconnecting expired channel"
        return self.inner(api, version, body)

    # -- SaslHandshake ---------------------------------------------------------------------------

    def _handshake(self, session: _Session, version: int, body: bytes) -> bytes:
        mechanism = Reader(body).string()
        if session.authenticated:
            now = time.monotonic()
            if session.expires_at is None or (
                session.reauth_started and now - session.reauth_started < MIN_REAUTH_INTERVAL_S
            ):
                # KafkaApis.handleSaslHandshakeRequest: not a re-authentication
                return Writer().int16(ILLEGAL_SASL_STATE).array([], Writer.string).getvalue()
            session.reauth_started = now
            session.reauthenticating = True
            if mechanism != session.mechanism:
                session.refused_token = True  # REAUTH_BAD_MECHANISM: the next token fails
        elif mechanism != self.mechanism:
            return (
                Writer()
                .int16(UNSUPPORTED_SASL_MECHANISM)
                .array([self.mechanism], Writer.string)
                .getvalue()
            )
        session.mechanism = session.mechanism or mechanism
        session.scram = None
        return Writer().int16(0).array([self.mechanism], Writer.string).getvalue()

    # -- SaslAuthenticate ------------------------------------------------------------------------

    def _authenticate(self, session: _Session, version: int, body: bytes) -> bytes:
        payload = Reader(body, flexible=version >= 2).bytes_()
        text = "re-authentication" if session.reauthenticating else "authentication"
        failed = (
            f"Authentication failed during {text} due to invalid credentials with SASL "
            f"mechanism {session.mechanism}"
        )
        if session.refused_token or (session.reauthenticating and self.refuse_reauth):
            return self._fail(session, version, failed)
        mechanism = session.mechanism or ""
        credential_expiry: float | None = None
        if mechanism == "PLAIN":
            _, user, password = payload.split(b"\x00")
            principal = user.decode()
            if self.users.get(principal) != password.decode():
                return self._fail(session, version, failed)
            reply = b""
        elif mechanism in SCRAM_HASHES:
            if session.scram is None:
                session.scram = _ScramServer(mechanism, self.users)
                try:
                    reply = session.scram.first(payload)
                except ValueError:
                    return self._fail(session, version, failed)
                return _auth_body(version, 0, None, reply, 0)
            try:
                reply = session.scram.final(payload)
            except ValueError:
                return self._fail(session, version, failed)
            principal = session.scram.user
        else:  # OAUTHBEARER: RFC 7628 initial response, or the kvsep after our error challenge
            if payload == b"\x01":
                return self._fail(session, version, "invalid_token")
            token = payload.split(b"auth=Bearer ", 1)[1].split(b"\x01", 1)[0].decode()
            self.tokens.append(token)
            checked = self.check_token(token)
            if checked is None:
                return _auth_body(version, 0, None, b'{"status":"invalid_token"}', 0)
            principal, credential_expiry = checked
            reply = b""
        if session.reauthenticating and principal != session.principal:
            return self._fail(
                session,
                version,
                f"Cannot change principals during re-authentication from User.{session.principal}"
                f": User.{principal}",
            )
        lifetime_ms = self.lifetime_ms
        if credential_expiry is not None:
            left_ms = max(int((credential_expiry - time.time()) * 1000), 0)
            lifetime_ms = min(left_ms, lifetime_ms) if lifetime_ms > 0 else left_ms
        kind = "reauth" if session.reauthenticating else "auth"
        session.authenticated, session.reauthenticating = True, False
        session.principal = principal
        session.expires_at = time.monotonic() + lifetime_ms / 1000 if lifetime_ms > 0 else None
        self.events.append((kind, session.number, principal, lifetime_ms))
        return _auth_body(version, 0, None, reply, lifetime_ms)

    def _fail(self, session: _Session, version: int, message: str) -> bytes:
        self.events.append(("refused", session.number, message))
        session.authenticated = session.reauthenticating = False
        return _auth_body(version, SASL_AUTHENTICATION_FAILED, message, b"", 0)


def _auth_body(version: int, code: int, message: str | None, auth: bytes, lifetime: int) -> bytes:
    """SaslAuthenticateResponse v0-v2 (SessionLifetimeMs v1+, flexible v2+)."""
    writer = Writer(flexible=version >= 2).int16(code).nullable_string(message).bytes_(auth)
    if version >= 1:
        writer.int64(lifetime)
    return writer.tagged_fields().getvalue()


class _ScramServer:
    """RFC 5802's server side, as Kafka's ScramSaslServer: a salted credential per user."""

    def __init__(self, mechanism: str, users: dict[str, str]) -> None:
        self._hash = SCRAM_HASHES[mechanism]
        self._users = users
        self.user = ""
        self._salt = b"kgroup-fake-salt"
        self._first_bare = ""
        self._server_first = ""

    def _hmac(self, key: bytes, message: bytes) -> bytes:
        return hmac.new(key, message, self._hash).digest()

    def first(self, client_first: bytes) -> bytes:
        text = client_first.decode()
        if not text.startswith("n,,"):
            raise ValueError("GS2 header")
        self._first_bare = text[3:]
        attrs = dict(part.split("=", 1) for part in self._first_bare.split(","))
        self.user = attrs["n"].replace("=2C", ",").replace("=3D", "=")
        if self.user not in self._users:
            raise ValueError("unknown user")
        nonce = attrs["r"] + "ServerNonce"
        salt = base64.b64encode(self._salt).decode()
        self._server_first = f"r={nonce},s={salt},i={SCRAM_ITERATIONS}"
        return self._server_first.encode()

    def final(self, client_final: bytes) -> bytes:
        text = client_final.decode()
        without_proof, _, proof_b64 = text.rpartition(",p=")
        password = self._users[self.user].encode()
        salted = hashlib.pbkdf2_hmac(self._hash, password, self._salt, SCRAM_ITERATIONS)
        client_key = self._hmac(salted, b"Client Key")
        stored_key = hashlib.new(self._hash, client_key).digest()
        auth_message = f"{self._first_bare},{self._server_first},{without_proof}".encode()
        signature = self._hmac(stored_key, auth_message)
        proof = base64.b64decode(proof_b64)
        recovered = bytes(a ^ b for a, b in zip(proof, signature, strict=False))
        if len(proof) != len(signature) or hashlib.new(self._hash, recovered).digest() != (
            stored_key
        ):
            raise ValueError("invalid proof")
        server_key = self._hmac(salted, b"Server Key")
        return b"v=" + base64.b64encode(self._hmac(server_key, auth_message))
