"""One connection to one broker: TCP or TLS, SASL, ApiVersions, pipelined requests.

Sources of truth: the Kafka protocol guide (https://kafka.apache.org/protocol: framing, "the
server guarantees that on a single TCP connection, requests will be processed in the order they
are sent and responses will return in that order too"), KIP-152 (SaslHandshake v1 then
SaslAuthenticate), KIP-35 (ApiVersions first), and librdkafka CONFIGURATION.md for the names and
defaults of the connection properties (ssl.endpoint.identification.algorithm defaults to https
since librdkafka 2.0).

Timeouts: every call has one deadline, `timeout_s` from its start; a broker that does not accept
the connection or does not answer in time is a BrokerTimeout naming its address. A refused
connection or a host name that does not resolve is an UnreachableError saying so, at once: a
longer timeout would not help. Secrets (sasl.password, ssl.key.password, PEM contents) never
appear in messages.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgroup.core.errors import ConfigError, KafkaOperationError, UnreachableError
from kgroup.core.wire.calls import read_answer
from kgroup.core.wire.cluster_calls import (
    encode_api_versions_request,
    encode_sasl_authenticate_request,
    encode_sasl_handshake_request,
)
from kgroup.core.wire.error_codes import NONE, error_name
from kgroup.core.wire.frames import (
    ProtocolError,
    decode_response_header,
    encode_request_header,
    frame,
)
from kgroup.core.wire.reauth import Session, lifetime_of, plan
from kgroup.core.wire.sasl import MECHANISMS, SaslError, ScramClient, plain_message
from kgroup.core.wire.sasl_oauth import (
    KVSEP,
    TokenSource,
    initial_response,
    parse_extensions,
    token_source,
)
from kgroup.core.wire.versions import choose_version
from kgroup.protocol import messages as api_table
from kgroup.protocol.model import Api

if TYPE_CHECKING:  # ssl is imported where TLS is used: a plaintext run never loads it
    import ssl

log = logging.getLogger("kgroup.wire")

# A response larger than this is taken for garbage (a TLS alert read as plain text, say).
MAX_RESPONSE_BYTES = 256 * 1024 * 1024
# Bytes of requests sent ahead of the responses read. Kafka reads the next request of a
# connection only after answering the previous one, so requests sent ahead wait in the broker's
# socket buffer; keeping them below its size means a send never blocks on a broker that is
# itself blocked writing a response we have not read yet.
PIPELINE_WINDOW_BYTES = 48 * 1024

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")


class ConnectionLost(UnreachableError):
    """The broker closed the connection before answering (a fresh connection may work).

    `repeated`: it closed a fresh connection on the same request too (it refuses that request:
    not worth retrying)."""

    repeated: bool = False


_LOST_HINT = "the broker may have stopped or restarted: check that it runs, then retry"


class BrokerTimeout(UnreachableError):
    """The broker did not accept the connection or answer before the deadline: the one
    unreachable case where a larger --timeout may help."""


@dataclass(frozen=True)
class Security:
    """The connection settings of a ClusterConfig this client implements."""

    protocol: str = "PLAINTEXT"
    mechanism: str | None = None
    username: str | None = None
    password: str | None = None
    ca_location: str | None = None
    ca_pem: str | None = None
    certificate_location: str | None = None
    key_location: str | None = None
    key_password: str | None = None
    certificate_pem: str | None = None
    key_pem: str | None = None
    keystore_location: str | None = None  # librdkafka's: a PKCS12 file
    keystore_password: str | None = None
    check_hostname: bool = True
    verify_certificate: bool = True
    ciphers: str | None = None
    oauth: TokenSource | None = None  # OAUTHBEARER's token source (shared by the connections)
    oauth_extensions: tuple[tuple[str, str], ...] = ()

    @property
    def uses_tls(self) -> bool:
        return self.protocol in ("SSL", "SASL_SSL")

    @property
    def uses_sasl(self) -> bool:
        return self.protocol in ("SASL_PLAINTEXT", "SASL_SSL")

    def __repr__(self) -> str:  # never print secrets, even in a debugger or a traceback
        return f"Security(protocol={self.protocol!r}, mechanism={self.mechanism!r})"


def security_from_properties(props: Mapping[str, str]) -> Security:
    """Security settings from librdkafka properties (ClusterConfig.properties)."""
    protocol = props.get("security.protocol", "PLAINTEXT").strip().upper()
    mechanism = props.get("sasl.mechanisms", props.get("sasl.mechanism", "GSSAPI")).strip().upper()
    algorithm = props.get("ssl.endpoint.identification.algorithm", "https").strip().lower()
    verify = props.get("enable.ssl.certificate.verification", "true").strip().lower()
    uses_sasl = protocol in ("SASL_PLAINTEXT", "SASL_SSL")
    oauth = token_source(props) if uses_sasl and mechanism == "OAUTHBEARER" else None
    return Security(
        protocol=protocol,
        mechanism=mechanism if uses_sasl else None,
        username=props.get("sasl.username"),
        password=props.get("sasl.password"),
        ca_location=props.get("ssl.ca.location"),
        ca_pem=props.get("ssl.ca.pem"),
        certificate_location=props.get("ssl.certificate.location"),
        key_location=props.get("ssl.key.location"),
        key_password=props.get("ssl.key.password"),
        certificate_pem=props.get("ssl.certificate.pem"),
        key_pem=props.get("ssl.key.pem"),
        keystore_location=props.get("ssl.keystore.location"),
        keystore_password=props.get("ssl.keystore.password"),
        check_hostname=algorithm == "https",
        verify_certificate=verify not in ("false", "0", "no"),
        ciphers=props.get("ssl.cipher.suites"),
        oauth=oauth,
        oauth_extensions=tuple(parse_extensions(props.get("sasl.oauthbearer.extensions")).items()),
    )


def build_ssl_context(
    security: Security, origin: Callable[[str], str] = lambda k: k
) -> ssl.SSLContext:
    """An SSLContext as librdkafka would configure it from the same properties."""
    import ssl

    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    with _loading(
        f"the CA certificates of ssl.ca.location/ssl.ca.pem (from {origin('ssl.ca.location')})",
        hint="point ssl.ca.location (Java: ssl.truststore.location) at a readable PEM file",
    ):
        if security.ca_location and security.ca_location != "probe":
            if os.path.isdir(security.ca_location):
                context.load_verify_locations(capath=security.ca_location)
            else:
                context.load_verify_locations(cafile=security.ca_location)
        if security.ca_pem:
            context.load_verify_locations(cadata=security.ca_pem)
    if security.certificate_location or security.key_location:
        with _loading(
            "the client certificate or key (ssl.certificate.location / ssl.key.location from "
            f"{origin('ssl.key.location')})",
            hint="check the paths and ssl.key.password",
        ):
            context.load_cert_chain(
                certfile=security.certificate_location or security.key_location or "",
                keyfile=security.key_location,
                password=security.key_password,
            )
    elif security.key_pem or security.keystore_location:
        _load_key_material(context, security, origin)
    if security.ciphers:
        try:
            context.set_ciphers(security.ciphers)
        except ssl.SSLError:
            raise ConfigError(
                f"ssl.cipher.suites (from {origin('ssl.cipher.suites')}) names no cipher "
                "OpenSSL knows",
                hint="use OpenSSL cipher names, e.g. ECDHE-RSA-AES256-GCM-SHA384",
            ) from None
    context.check_hostname = security.verify_certificate and security.check_hostname
    if not security.verify_certificate:
        context.verify_mode = ssl.CERT_NONE
    return context


def _load_key_material(
    context: ssl.SSLContext, security: Security, origin: Callable[[str], str]
) -> None:
    """The client certificate and key held in memory (ssl.certificate.pem/ssl.key.pem, as a Java
    keystore becomes) or in librdkafka's PKCS12 ssl.keystore.location. Python's ssl loads a key
    only from a file: it is written to a private temporary file (0600, in a 0700 directory),
    loaded, and removed at once."""
    from kgroup.core import keystores

    if security.key_pem:
        chain, key = security.certificate_pem or "", security.key_pem
        where = f"ssl.certificate.pem / ssl.key.pem (from {origin('ssl.key.pem')})"
    else:
        path = security.keystore_location or ""
        data = keystores.read_store_file(
            path, "ssl.keystore.location", origin("ssl.keystore.location")
        )
        material = keystores.keystore_pem(
            data,
            security.keystore_password,
            security.key_password,
            path,
            origin("ssl.keystore.location"),
        )
        chain, key = material.certificate_chain_pem, material.key_pem
        where = f"keystore {path} (from {origin('ssl.keystore.location')})"
    with (
        _loading(f"the client certificate and key of {where}", hint="check the keystore"),
        private_pem_file(chain + key) as pem_path,
    ):
        context.load_cert_chain(certfile=pem_path, password=security.key_password)


@contextlib.contextmanager
def private_pem_file(text: str) -> Iterator[str]:
    """A file holding `text`, readable by this user only, removed when the block ends."""
    import tempfile

    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = runtime if runtime and os.path.isdir(runtime) else None
    directory = tempfile.mkdtemp(prefix="kgroup-tls-", dir=base)  # mode 0700
    path = os.path.join(directory, "client.pem")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(text)
        yield path
    finally:
        with contextlib.suppress(OSError):
            os.remove(path)
        with contextlib.suppress(OSError):
            os.rmdir(directory)


def _oauth_status(challenge: bytes) -> str:
    """The `status` of RFC 7628's JSON error challenge (never echoes anything else)."""
    import json

    try:
        status = json.loads(challenge).get("status")
    except (ValueError, AttributeError):
        status = None
    return f"status {status}" if isinstance(status, str) else "an error challenge"


@contextlib.contextmanager
def _loading(what: str, hint: str) -> Iterator[None]:
    """A file or PEM text that cannot be read or parsed while loading `what` is a ConfigError."""
    try:
        yield
    except OSError as exc:  # ssl.SSLError is an OSError
        raise ConfigError(f"cannot load {what}: {_ssl_reason(exc)}", hint=hint) from None


def _ssl_reason(exc: BaseException) -> str:
    import ssl

    if isinstance(exc, ssl.SSLError):
        return exc.reason or exc.__class__.__name__
    if isinstance(exc, OSError):
        return exc.strerror or exc.__class__.__name__
    return exc.__class__.__name__


class BrokerConnection:
    """A connected, authenticated socket to one broker; requests go through `call`/`pipeline`.

    Thread-safe: one caller at a time uses the socket (the client runs one thread per broker).

    A SASL session the broker gave a lifetime (KIP-368) is renewed on the same connection
    before it expires (`kgroup.core.wire.reauth` says when): a request finding it due waits for
    the requests in flight to be answered, then SaslHandshake and SaslAuthenticate run again.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        security: Security,
        ssl_context: ssl.SSLContext | None,
        client_id: str,
        timeout_s: float,
        on_request: Callable[[str], None] = lambda name: None,
    ) -> None:
        self.host = host
        self.port = port
        self.address = f"{host}:{port}"
        self.security = security
        self.timeout_s = timeout_s
        self._limit_s: float | None = None  # the running call's own timeout, when it has one
        self.client_id = client_id
        self.versions: dict[int, tuple[int, int]] = {}
        self._ssl_context = ssl_context
        self._on_request = on_request
        self._sock: socket.socket | None = None
        self._correlation = 0
        self._lock = threading.Lock()
        self.session: Session | None = None  # the SASL session, once authenticated
        self.reauthentications = 0

    # -- lifecycle -------------------------------------------------------------------------------

    def open(self, deadline: float | None = None) -> BrokerConnection:
        """Connect, negotiate TLS, learn the API versions, authenticate."""
        deadline = deadline if deadline is not None else time.monotonic() + self.timeout_s
        with self._lock:
            self._connect(deadline)
            try:
                self._negotiate(deadline)
                if self.security.uses_sasl:
                    self._authenticate(deadline)
            except BaseException:
                self._close_socket()
                raise
        return self

    def close(self) -> None:
        with self._lock:
            self._close_socket()

    @property
    def is_open(self) -> bool:
        return self._sock is not None

    def _close_socket(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
            self._sock = None

    def _connect(self, deadline: float) -> None:
        remaining = max(deadline - time.monotonic(), 0.001)
        try:
            sock = socket.create_connection((self.host, self.port), timeout=remaining)
        except socket.gaierror as exc:
            raise UnreachableError(
                f"cannot resolve {self.host} ({exc.strerror}; broker address {self.address})",
                hint="check the host name in -b/--bootstrap-server (or the brokers' "
                "advertised.listeners)",
            ) from None
        except TimeoutError:
            raise BrokerTimeout(
                f"broker {self.address} did not accept a connection within {self.timeout_s:g} s",
                hint="check -b/--bootstrap-server, the network and the firewall, or raise "
                "--timeout",
            ) from None
        except ConnectionRefusedError:
            raise UnreachableError(
                f"connection refused by {self.address}",
                hint=f"check -b/--bootstrap-server: no broker listens on {self.address}",
            ) from None
        except OSError as exc:
            raise UnreachableError(
                f"cannot connect to broker {self.address} ({exc.strerror or exc})",
                hint="check -b/--bootstrap-server and that the broker is running",
            ) from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.security.uses_tls:
            import ssl

            if self._ssl_context is None:
                sock.close()
                raise ConfigError("TLS requested without an SSL context")
            try:
                sock.settimeout(max(deadline - time.monotonic(), 0.001))
                sock = self._ssl_context.wrap_socket(sock, server_hostname=self.host)
            except TimeoutError:
                sock.close()
                raise BrokerTimeout(
                    f"TLS handshake with broker {self.address} did not finish within "
                    f"{self.timeout_s:g} s",
                    hint="check that the listener speaks TLS (security.protocol)",
                ) from None
            except ssl.SSLCertVerificationError as exc:
                sock.close()
                raise KafkaOperationError(
                    f"TLS handshake with broker {self.address} failed: "
                    f"{exc.verify_message or exc.reason}",
                    hint="set ssl.ca.location to the CA that signed the broker certificate; "
                    "ssl.endpoint.identification.algorithm=none skips the host name check",
                ) from None
            except (ssl.SSLError, OSError) as exc:
                sock.close()
                raise KafkaOperationError(
                    f"TLS handshake with broker {self.address} failed: {_ssl_reason(exc)}",
                    hint="check that the listener speaks TLS and the ssl.* settings",
                ) from None
        self._sock = sock

    def _negotiate(self, deadline: float) -> None:
        body = self._exchange(
            [(api_table.API_VERSIONS, 0, encode_api_versions_request())], deadline
        )[0]
        from kgroup.protocol.generated.wire import api_versions_response

        result = read_answer(api_versions_response, body, 0)
        if result.error_code != NONE:
            raise KafkaOperationError(
                f"broker {self.address} refused ApiVersions: {error_name(result.error_code)}"
            )
        self.versions = {k.api_key: (k.min_version, k.max_version) for k in result.api_keys}

    def _authenticate(self, deadline: float, *, again: bool = False) -> None:
        """SaslHandshake v1 then the mechanism's SaslAuthenticate exchange; `again`: a
        re-authentication of this open connection (KIP-368: no ApiVersions first)."""
        started = time.monotonic()
        lifetimes: list[int] = []
        self._sasl_exchange(deadline, again, lifetimes)
        self.session = plan(started, lifetime_of(lifetimes), reauthenticated=again)
        log.debug(
            "%s to %s with %s (%s)",
            "re-authenticated" if again else "authenticated",
            self.address,
            self.security.mechanism,
            self.session.describe(),
        )

    def _reauthenticate(self) -> None:
        """Renew the session: the broker closes the connection on the first request after its
        expiry. Its own deadline, the connection's timeout (not the waiting call's)."""
        limit_s, self._limit_s = self._limit_s, None
        try:
            self._authenticate(time.monotonic() + self.timeout_s, again=True)
        finally:
            self._limit_s = limit_s
        self.reauthentications += 1

    def _sasl_exchange(self, deadline: float, again: bool, lifetimes: list[int]) -> None:
        mechanism = self.security.mechanism or ""
        username = self.security.username or ""
        password = self.security.password or ""
        if mechanism not in MECHANISMS and mechanism != "OAUTHBEARER":
            raise ConfigError(f"SASL mechanism {mechanism} is not implemented by the wire client")
        if choose_version(api_table.SASL_HANDSHAKE, self.versions) is None:
            raise KafkaOperationError(
                f"broker {self.address} does not offer SaslHandshake v1",
                hint="check security.protocol: the listener may not use SASL",
            )
        body = self._exchange(
            [(api_table.SASL_HANDSHAKE, 1, encode_sasl_handshake_request(mechanism))], deadline
        )[0]
        from kgroup.protocol.generated.wire import sasl_handshake_response

        handshake = read_answer(sasl_handshake_response, body, 1)
        if handshake.error_code != NONE:
            raise handshake_refused(
                self.address, mechanism, error_name(handshake.error_code), handshake.mechanisms
            )
        version = choose_version(api_table.SASL_AUTHENTICATE, self.versions)
        if version is None:
            raise KafkaOperationError(f"broker {self.address} does not offer SaslAuthenticate")

        who = f"as {username!r}" if mechanism != "OAUTHBEARER" else "with an OAUTHBEARER token"
        what = "re-authentication" if again else "authentication"
        hint = (
            "check sasl.username, sasl.password and sasl.mechanism"
            if mechanism != "OAUTHBEARER"
            else "check the token's principal, scope and audience against the broker's "
            "OAUTHBEARER validator settings"
        )

        from kgroup.protocol.generated.wire import sasl_authenticate_response

        def step(payload: bytes) -> bytes:
            request = encode_sasl_authenticate_request(version, payload)
            reply = self._exchange([(api_table.SASL_AUTHENTICATE, version, request)], deadline)[0]
            result = read_answer(sasl_authenticate_response, reply, version)
            if result.error_code != NONE:
                detail = f": {result.error_message}" if result.error_message else ""
                raise SaslError(
                    f"{what} to broker {self.address} {who} failed "
                    f"({error_name(result.error_code)}{detail})",
                    hint=hint,
                )
            lifetimes.append(result.session_lifetime_ms)
            return result.auth_bytes

        if mechanism == "PLAIN":
            step(plain_message(username, password))
            return
        if mechanism == "OAUTHBEARER":
            self._authenticate_oauthbearer(step, deadline, again)
            return
        scram = ScramClient(mechanism, username, password)
        server_first = step(scram.first_message())
        server_final = step(scram.final_message(server_first))
        scram.verify_server_final(server_final)

    def _authenticate_oauthbearer(
        self, step: Callable[[bytes], bytes], deadline: float, again: bool = False
    ) -> None:
        """RFC 7628: the initial response; a broker refusing the token answers with a JSON error,
        to which the client sends a lone kvsep and the broker fails the exchange."""
        source = self.security.oauth
        if source is None:
            raise ConfigError(
                "SASL mechanism OAUTHBEARER needs a token source",
                hint="set sasl.oauthbearer.method=oidc and sasl.oauthbearer.token.endpoint.url, "
                "or kgroup.aws.region for Amazon MSK IAM",
            )
        token = source.token(max(deadline - time.monotonic(), 0.001))
        challenge = step(initial_response(token, dict(self.security.oauth_extensions)))
        if challenge:
            status = _oauth_status(challenge)
            step(KVSEP)  # the broker answers with an error here (SaslError)
            when = " on re-authentication" if again else ""
            raise SaslError(
                f"broker {self.address} refused the OAUTHBEARER token{when} ({status})",
                hint="check the token's principal, scope and audience",
            )
        log.debug("OAUTHBEARER token from %s", source.describe)

    # -- requests --------------------------------------------------------------------------------

    def version_for(self, api: Api) -> int | None:
        return choose_version(api, self.versions)

    def call(self, api: Api, version: int, body: bytes, *, timeout_s: float | None = None) -> bytes:
        """One request's response body; `timeout_s` replaces the connection's timeout for a
        request the broker may hold on purpose (a JoinGroup during a rebalance delay)."""
        return self.pipeline([(api, version, body)], timeout_s=timeout_s)[0]

    def pipeline(
        self,
        requests: Sequence[tuple[Api, int, bytes]],
        *,
        timeout_s: float | None = None,
    ) -> list[bytes]:
        """Send the requests back to back and return the response bodies in order."""
        limit_s = self.timeout_s if timeout_s is None else timeout_s
        deadline = time.monotonic() + limit_s
        with self._lock:
            if self._sock is None:
                raise ConnectionLost(f"connection to broker {self.address} is closed")
            self._limit_s = limit_s
            try:
                return self._exchange(requests, deadline, renew=True)
            except BaseException:
                # The stream position is unknown after any failure: never reuse the socket.
                self._close_socket()
                raise
            finally:
                self._limit_s = None

    def _exchange(
        self,
        requests: Sequence[tuple[Api, int, bytes]],
        deadline: float,
        *,
        renew: bool = False,
    ) -> list[bytes]:
        """Send `requests` pipelined and read their answers. `renew`: re-authenticate first when
        the session is due (`reauth`), once the requests in flight are answered; the
        re-authentication has its own deadline and does not count against `deadline`."""
        pending: deque[tuple[int, int, Api, int, int]] = deque()
        results: list[bytes] = [b""] * len(requests)
        outstanding = 0
        index = 0
        while index < len(requests) or pending:
            while index < len(requests):
                if renew and self.session is not None and self.session.due(time.monotonic()):
                    if pending:
                        break  # never while a request is in flight: answers first
                    began = time.monotonic()
                    self._reauthenticate()
                    # as a new connection's authentication, not the waiting requests' time
                    deadline += time.monotonic() - began
                api, version, body = requests[index]
                correlation = (self._correlation + 1) & 0x7FFFFFFF
                header = encode_request_header(
                    api.key,
                    version,
                    correlation,
                    self.client_id,
                    flexible=api.flexible(version),
                )
                payload = frame(header + body)
                if pending and outstanding + len(payload) > PIPELINE_WINDOW_BYTES:
                    break
                self._correlation = correlation
                self._send(payload, api, version, deadline)
                self._on_request(api.name)
                pending.append((self._correlation, index, api, version, len(payload)))
                outstanding += len(payload)
                index += 1
            correlation, slot, api, version, size = pending.popleft()
            outstanding -= size
            data = self._receive(api, version, deadline)
            got, offset = decode_response_header(
                data, flexible=api.response_header_version(version) == 1
            )
            if got != correlation:
                raise ProtocolError(
                    f"{api.name} response has correlation id {got}, expected {correlation}",
                    position=0,
                    field="correlation_id",
                )
            results[slot] = data[offset:]
        return results

    def _send(self, payload: bytes, api: Api, version: int, deadline: float) -> None:
        with self._socket_io(api, version, deadline, "while sending") as sock:
            sock.sendall(payload)

    @contextlib.contextmanager
    def _socket_io(
        self, api: Api, version: int, deadline: float, doing: str
    ) -> Iterator[socket.socket]:
        """The socket, with what is left of `deadline` as its timeout; a timeout in the block is
        a BrokerTimeout, a socket error a ConnectionLost saying when (`doing` `api`)."""
        assert self._sock is not None
        try:
            self._sock.settimeout(self._remaining(deadline, api))
            yield self._sock
        except TimeoutError:
            raise self._timeout(api) from None
        except OSError as exc:
            raise ConnectionLost(
                f"broker {self.address} closed the connection {doing} {api.name} "
                f"({exc.strerror or exc.__class__.__name__})",
                hint=self._lost_hint(api, version),
            ) from None

    def _lost_hint(self, api: Api, version: int) -> str:
        """Why a broker may have closed the connection on a request: the version hint only when
        its ApiVersions answer does not offer this version (a broker drops a request it cannot
        parse); otherwise it went away (stopped, restarted, or its connection was cut)."""
        offered = self.versions.get(api.key)
        if (
            api is not api_table.API_VERSIONS
            and self.versions
            and (offered is None or not offered[0] <= version <= offered[1])
        ):
            span = f"versions {offered[0]}-{offered[1]}" if offered else "no version"
            return (
                f"its ApiVersions answer offers {span} of {api.name}, not v{version}: the broker "
                "does not implement this request version"
            )
        return _LOST_HINT

    def _receive(self, api: Api, version: int, deadline: float) -> bytes:
        head = self._read_exact(4, api, version, deadline)
        size = struct.unpack(">i", head)[0]
        if (size < 4 or size > MAX_RESPONSE_BYTES) and api is api_table.API_VERSIONS:
            # The first answer on a connection: whatever listens there is not a Kafka listener
            # of this security.protocol (an HTTP proxy, a TLS listener read as plaintext, ...).
            raise UnreachableError(
                f"{self.address} does not answer with the Kafka protocol (its answer starts "
                f"with {head!r})",
                hint="check the port and security.protocol of -b/--bootstrap-server",
            )
        if size < 4 or size > MAX_RESPONSE_BYTES:
            raise ProtocolError(
                f"response size {size} is impossible", position=0, field=f"{api.name} response size"
            )
        return self._read_exact(size, api, version, deadline)

    def _read_exact(self, size: int, api: Api, version: int, deadline: float) -> bytes:
        buffer = bytearray(size)
        view = memoryview(buffer)
        got = 0
        while got < size:
            with self._socket_io(api, version, deadline, "during") as sock:
                count = sock.recv_into(view[got:], size - got)
            if count == 0:
                raise ConnectionLost(
                    f"broker {self.address} closed the connection before answering {api.name}",
                    hint=self._lost_hint(api, version),
                )
            got += count
        return bytes(buffer)

    def _remaining(self, deadline: float, api: Api) -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise self._timeout(api)
        return remaining

    def _timeout(self, api: Api) -> UnreachableError:
        limit_s = self.timeout_s if self._limit_s is None else self._limit_s
        return BrokerTimeout(
            f"broker {self.address} did not answer {api.name} within {limit_s:g} s",
            hint="check the network and the broker's health, or raise --timeout",
        )


def handshake_refused(
    address: str, mechanism: str, error: str, enabled: Sequence[str]
) -> SaslError:
    """The error for a SaslHandshake answered with `error`. Kafka answers
    UNSUPPORTED_SASL_MECHANISM only for a mechanism missing from the `enabled` list it sends
    (SaslServerAuthenticator.handleHandshakeRequest); a broker that lists the mechanism and
    refuses it anyway is said to, not to lack it."""
    if mechanism in enabled:
        return SaslError(
            f"broker {address} refused SASL mechanism {mechanism} ({error}) although it lists "
            f"{mechanism} as enabled",
            hint="the broker's SASL setup for this listener is inconsistent; check its "
            "sasl.enabled.mechanisms and listener configuration",
        )
    if error == "UNSUPPORTED_SASL_MECHANISM":
        return SaslError(
            f"broker {address} does not enable SASL mechanism {mechanism}; it enables "
            f"{', '.join(enabled) or 'none'}",
            hint="set sasl.mechanism to one the broker enables",
        )
    return SaslError(
        f"broker {address} refused the SASL handshake for {mechanism} ({error}; it enables "
        f"{', '.join(enabled) or 'none'})",
        hint="check security.protocol and sasl.mechanism against the broker's listener",
    )
