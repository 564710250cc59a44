"""A scripted Kafka broker on a loopback socket, for the WireClient's behaviour tests.

It answers ApiVersions with a configurable version table and hands every other request to a
handler the test writes (api key, version, body bytes) -> response body bytes, so tests can
play brokers that lack FindCoordinator v4 or OffsetFetch v8, move a coordinator, or hang.
"""

from __future__ import annotations

import socket
import ssl
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from kgroup.core.wire import messages as m
from kgroup.core.wire.codec import Writer, decode_request_header, encode_response_header

Handler = Callable[[int, int, bytes], bytes]

FULL_VERSIONS = {
    m.METADATA.key: (0, 12),
    m.OFFSET_FETCH.key: (0, 9),
    m.FIND_COORDINATOR.key: (0, 6),
    m.DESCRIBE_GROUPS.key: (0, 6),
    m.LIST_GROUPS.key: (0, 5),
    m.SASL_HANDSHAKE.key: (0, 1),
    m.API_VERSIONS.key: (0, 4),
    m.SASL_AUTHENTICATE.key: (0, 2),
}


@dataclass
class FakeBroker:
    handler: Handler
    versions: dict[int, tuple[int, int]] = field(default_factory=lambda: dict(FULL_VERSIONS))
    node_id: int = 1
    received: list[tuple[int, int]] = field(default_factory=list)
    client_ids: list[str | None] = field(default_factory=list)
    tls: ssl.SSLContext | None = None

    def __post_init__(self) -> None:
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(8)
        self.port = self._server.getsockname()[1]
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def close(self) -> None:
        self._stop = True
        self._server.close()

    def _serve(self) -> None:
        while not self._stop:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._session, args=(conn,), daemon=True).start()

    def _session(self, conn: socket.socket) -> None:
        if self.tls is not None:
            try:
                conn = self.tls.wrap_socket(conn, server_side=True)
            except (ssl.SSLError, OSError):
                conn.close()
                return
        with conn:
            while True:
                head = _read(conn, 4)
                if head is None:
                    return
                data = _read(conn, struct.unpack(">i", head)[0])
                if data is None:
                    return
                api_key = struct.unpack(">h", data[:2])[0]
                version = struct.unpack(">h", data[2:4])[0]
                api = m.APIS.get(api_key)
                flexible = api.flexible(version) if api else False
                _, _, correlation, client_id, offset = decode_request_header(
                    data, flexible=flexible
                )
                self.received.append((api_key, version))
                self.client_ids.append(client_id)
                if api_key == m.API_VERSIONS.key:
                    body = api_versions_body(self.versions)
                else:
                    body = self.handler(api_key, version, data[offset:])
                    if body == b"DROP":
                        return
                    if body == b"HANG":
                        threading.Event().wait(30)
                        return
                header_flexible = api.response_header_flexible(version) if api else False
                payload = encode_response_header(correlation, flexible=header_flexible) + body
                conn.sendall(struct.pack(">i", len(payload)) + payload)


def _read(conn: socket.socket, size: int) -> bytes | None:
    buf = b""
    while len(buf) < size:
        try:
            chunk = conn.recv(size - len(buf))
        except OSError:
            return None
        if not chunk:
            return None
        buf += chunk
    return buf


def api_versions_body(versions: dict[int, tuple[int, int]]) -> bytes:
    writer = Writer().int16(0)
    writer.array(
        sorted(versions.items()), lambda w, kv: w.int16(kv[0]).int16(kv[1][0]).int16(kv[1][1])
    )
    return writer.getvalue()


def metadata_body(brokers: list[tuple[int, str, int]]) -> bytes:
    writer = Writer()
    writer.array(brokers, lambda w, b: w.int32(b[0]).string(b[1]).int32(b[2]).nullable_string(None))
    writer.int32(brokers[0][0])
    writer.int32(0)
    return writer.getvalue()
