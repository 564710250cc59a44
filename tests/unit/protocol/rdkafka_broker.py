"""A loopback listener librdkafka (confluent-kafka) talks to, for the outside-reference tests.

librdkafka is an independent implementation of Kafka's protocol (C, its own hand-written
encoders and decoders). The listener records every request frame librdkafka sends and answers it
with bytes kgroup's generated writers make, so a test can check both directions of kgroup's codec
against another client: decode librdkafka's requests with kgroup's generated classes, and let
librdkafka read kgroup's responses.

ApiVersions is answered with kgroup's declared versions, capped by `versions` (api key -> max
version), which is how a test makes librdkafka send a given version of an API: it picks the
highest version both sides support. Every other request goes to `answers[api key](frame) ->
response object | bytes | None` (None drops the connection); Metadata and FindCoordinator have
default answers naming this broker.
"""

from __future__ import annotations

import importlib
import pkgutil
import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from kgroup.protocol.generated import wire
from kgroup.protocol.generated.wire import (
    api_versions_response,
    find_coordinator_response,
    metadata_response,
    request_header,
    response_header,
)
from kgroup.protocol.runtime import Readable


def _modules() -> dict[tuple[int, str], ModuleType]:
    """(api key, "request"|"response") -> the generated module."""
    out: dict[tuple[int, str], ModuleType] = {}
    for info in pkgutil.iter_modules(wire.__path__):
        module = importlib.import_module(f"{wire.__name__}.{info.name}")
        key = getattr(module, "API_KEY", None)
        if key is None:
            continue
        side = "request" if info.name.endswith("_request") else "response"
        out[(key, side)] = module
    return out


MODULES = _modules()


def request_module(api_key: int) -> ModuleType:
    return MODULES[(api_key, "request")]


def response_module(api_key: int) -> ModuleType:
    return MODULES[(api_key, "response")]


@dataclass(frozen=True)
class Frame:
    """One request as librdkafka sent it: the header read by kgroup's RequestHeader and the body
    bytes after the header."""

    api_key: int
    version: int
    client_id: str | None
    body: bytes
    raw: bytes = b""

    def decode(self) -> Any:
        """The body read by kgroup's generated request class (all bytes consumed)."""
        return request_module(self.api_key).read(self.body, self.version)

    def decode_prefix(self) -> tuple[Any, bytes]:
        """The body read by kgroup's generated request class, and the bytes left after it."""
        r = Readable(self.body)
        obj = request_module(self.api_key).read_from(r, self.version)
        return obj, self.body[r.p :]

    def reencode(self) -> bytes:
        """The decoded body written back by kgroup's generated writer at the same version."""
        module = request_module(self.api_key)
        return module.write(self.decode(), self.version)


Answer = Callable[[Frame], Any]

API_VERSIONS = 18
METADATA = 3
FIND_COORDINATOR = 10


@dataclass
class RdkafkaBroker:
    """One broker (node `node_id`) on 127.0.0.1; `frames` holds every request received,
    `errors` what went wrong answering one (the connection is then dropped)."""

    answers: dict[int, Answer] = field(default_factory=dict)
    versions: dict[int, int] = field(default_factory=dict)
    topics: dict[str, int] = field(default_factory=lambda: {"t": 2})
    node_id: int = 1
    frames: list[Frame] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(16)
        self.port = self._server.getsockname()[1]
        self._stop = False
        self._lock = threading.Lock()
        self._conns: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def close(self) -> None:
        self._stop = True
        self._server.close()
        for conn in list(self._conns):
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()

    def sent(self, api_key: int) -> list[Frame]:
        with self._lock:
            return [f for f in self.frames if f.api_key == api_key]

    def coordinator(self, frame: Frame) -> Any:
        """A FindCoordinatorResponse naming this broker, in the layout of the version asked."""
        m = find_coordinator_response
        request = frame.decode()
        if frame.version >= 4:
            return m.FindCoordinatorResponse(
                coordinators=tuple(
                    m.Coordinator(key, self.node_id, "127.0.0.1", self.port)
                    for key in request.coordinator_keys
                )
            )
        return m.FindCoordinatorResponse(node_id=self.node_id, host="127.0.0.1", port=self.port)

    def metadata(self, topics: dict[str, int] | None = None) -> Any:
        """A MetadataResponse naming this broker as the only one and the controller."""
        m = metadata_response
        return m.MetadataResponse(
            brokers=(m.MetadataResponseBroker(self.node_id, "127.0.0.1", self.port, None),),
            cluster_id="reference-cluster",
            controller_id=self.node_id,
            topics=tuple(
                m.MetadataResponseTopic(
                    name=name,
                    topic_id=bytes([i + 1]) * 16,
                    partitions=tuple(
                        m.MetadataResponsePartition(
                            partition_index=p,
                            leader_id=self.node_id,
                            leader_epoch=0,
                            replica_nodes=(self.node_id,),
                            isr_nodes=(self.node_id,),
                        )
                        for p in range(count)
                    ),
                )
                for i, (name, count) in enumerate(sorted((topics or {}).items()))
            ),
        )

    # ------------------------------------------------------------------ serving

    def _serve(self) -> None:
        while not self._stop:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            self._conns.append(conn)
            threading.Thread(target=self._session, args=(conn,), daemon=True).start()

    def _session(self, conn: socket.socket) -> None:
        with conn:
            while not self._stop:
                head = _read(conn, 4)
                if head is None:
                    return
                data = _read(conn, struct.unpack(">i", head)[0])
                if data is None:
                    return
                api_key, version = struct.unpack_from(">hh", data)
                flexible = self._flexible(api_key, version)
                r = Readable(data)
                header = request_header.read_from(r, 2 if flexible else 1)
                body = data[r.p :]
                frame = Frame(api_key, version, header.client_id, body, data)
                with self._lock:
                    self.frames.append(frame)
                try:
                    reply = self._reply(frame)
                except Exception as exc:  # kept for the test to report
                    self.errors.append(f"api {api_key} v{version}: {exc!r}")
                    return
                if reply is None:
                    return
                # response header v1 (tagged fields) when flexible, but ApiVersions always v0
                header_version = 1 if flexible and api_key != API_VERSIONS else 0
                out = response_header.write(
                    response_header.ResponseHeader(header.correlation_id), header_version
                )
                payload = out + reply
                try:
                    conn.sendall(struct.pack(">i", len(payload)) + payload)
                except OSError:
                    return

    def _reply(self, frame: Frame) -> bytes | None:
        if frame.api_key == API_VERSIONS:
            return self._api_versions(frame.version)
        if frame.api_key in self.answers:
            reply = self.answers[frame.api_key](frame)
        elif frame.api_key == METADATA:
            reply = self.metadata(self.topics)
        elif frame.api_key == FIND_COORDINATOR:
            reply = self.coordinator(frame)
        else:
            return None
        if reply is None or isinstance(reply, bytes):
            return reply
        return response_module(frame.api_key).write(reply, frame.version)

    @staticmethod
    def _flexible(api_key: int, version: int) -> bool:
        module = MODULES.get((api_key, "request"))
        if module is None:
            return False
        flexible_from = module.FLEXIBLE_FROM
        return flexible_from is not None and version >= flexible_from

    def _api_versions(self, version: int) -> bytes:
        m = api_versions_response
        table = {key: mod.VALID for (key, side), mod in MODULES.items() if side == "request"}
        for key, high in self.versions.items():
            table[key] = (table.get(key, (0, high))[0], high)
        keys = tuple(m.ApiVersion(key, low, high) for key, (low, high) in sorted(table.items()))
        return m.write(m.ApiVersionsResponse(api_keys=keys), min(version, m.VALID[1]))


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
