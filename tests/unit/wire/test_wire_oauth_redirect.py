"""The OIDC client credentials (HTTP Basic) go to the configured token endpoint only: a token
endpoint answering with a redirect is an error naming it, never followed with the Authorization
header (urllib's redirect handler keeps every non-content header, Authorization included, for
the new URL, whatever its host)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from kgroup.core.errors import KafkaOperationError
from kgroup.core.wire.sasl_oauth import token_source

SECRET = "Redirected-Secret-8"


class _Server:
    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = HTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def servers() -> Iterator[tuple[_Server, _Server, list[str]]]:
    seen: list[str] = []

    class Elsewhere(BaseHTTPRequestHandler):
        def _any(self) -> None:
            seen.append(self.headers.get("Authorization", ""))
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b'{"access_token": "t", "expires_in": 60}')

        do_GET = do_POST = _any

        def log_message(self, *args: object) -> None:
            pass

    other = _Server(Elsewhere)

    class Redirecting(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(302)
            self.send_header("Location", f"{other.url}/steal")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    endpoint = _Server(Redirecting)
    yield endpoint, other, seen
    endpoint.close()
    other.close()


def test_redirecting_token_endpoint_never_gets_the_secret_forwarded(servers) -> None:
    endpoint, _other, seen = servers
    source = token_source(
        {
            "sasl.oauthbearer.method": "oidc",
            "sasl.oauthbearer.token.endpoint.url": f"{endpoint.url}/token",
            "sasl.oauthbearer.client.id": "ops",
            "sasl.oauthbearer.client.secret": SECRET,
        }
    )
    assert source is not None
    with pytest.raises(KafkaOperationError) as caught:
        source.token(timeout_s=5)
    assert seen == []  # the other host was never asked
    line = caught.value.one_line()
    assert "302" in line and SECRET not in line
