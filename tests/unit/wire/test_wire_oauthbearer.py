"""SASL/OAUTHBEARER in the wire client: RFC 7628 initial response bytes checked by a scripted
broker, tokens from a local OIDC token endpoint (client credentials), refresh before expiry,
unsecured JWTs, Amazon MSK IAM without its package, and the token never printed."""

from __future__ import annotations

import base64
import json
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from kgroup.core.config import ClusterConfig, build_cluster_config
from kgroup.core.errors import ConfigError, KafkaOperationError
from kgroup.core.wire.client import WireClient
from kgroup.core.wire.error_codes import SASL_AUTHENTICATION_FAILED
from kgroup.core.wire.sasl_oauth import Token, TokenSource, initial_response
from kgroup.protocol import messages as api_table
from tests.helpers import run_kgroup
from tests.unit.wire.fakebroker import FakeBroker
from tests.unit.wire.fakegroups import VERSIONS, GroupsCluster
from tests.unit.wire.wirecodec import Reader, Writer

CLIENT_ID, CLIENT_SECRET = "kgroup-ops", "Client-Secret-31"


def jwt(sub: str, exp: float) -> str:
    def part(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'RS256', 'kid': 'k1'})}.{part({'sub': sub, 'exp': exp})}.c2lnbmF0dXJl"


@dataclass
class TokenEndpoint:
    """An OIDC token endpoint on loopback: client credentials as HTTP Basic, a JWT back."""

    lifetime_s: float = 3600.0
    requests: list[dict] = field(default_factory=list)
    issued: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                form = parse_qs(self.rfile.read(length).decode())
                auth = self.headers.get("Authorization", "")
                endpoint.requests.append({"auth": auth, "form": form, "path": self.path})
                expected = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
                if auth != f"Basic {expected}":
                    self.send_response(401, "Unauthorized")
                    self.end_headers()
                    self.wfile.write(b'{"error":"invalid_client"}')
                    return
                token = jwt(f"sub-{len(endpoint.issued)}", time.time() + endpoint.lifetime_s)
                endpoint.issued.append(token)
                body = json.dumps(
                    {"access_token": token, "token_type": "bearer", "expires_in": 3600}
                )
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, *args: object) -> None:
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/oauth2/token"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@dataclass
class OAuthCluster(GroupsCluster):
    """GroupsCluster behind SASL/OAUTHBEARER: accepts the tokens in `accepted` only, and checks
    each initial response against RFC 7628's bytes (Kafka's OAuthBearerClientInitialResponse)."""

    accepted: set[str] = field(default_factory=set)
    responses: list[bytes] = field(default_factory=list)

    def __post_init__(self) -> None:
        versions = {
            **VERSIONS,
            api_table.SASL_HANDSHAKE.key: (0, 1),
            api_table.SASL_AUTHENTICATE.key: (0, 2),
        }
        self.broker = FakeBroker(self.handler, versions=versions)
        self._refused = False

    def handler(self, api: int, version: int, body: bytes) -> bytes:
        if api == api_table.SASL_HANDSHAKE.key:
            assert Reader(body).string() == "OAUTHBEARER"
            return Writer().int16(0).array(["OAUTHBEARER"], Writer.string).getvalue()
        if api == api_table.SASL_AUTHENTICATE.key:
            payload = Reader(body, flexible=version >= 2).bytes_()
            self.responses.append(payload)
            if payload == b"\x01":  # the client's answer to our error challenge
                return self._auth(version, SASL_AUTHENTICATION_FAILED, "invalid_token", b"")
            prefix, suffix = b"n,,\x01auth=Bearer ", b"\x01\x01"
            assert payload.startswith(prefix) and payload.endswith(suffix), payload
            token = payload[len(prefix) : -len(suffix)].decode()
            if token in self.accepted:
                return self._auth(version, 0, None, b"")
            return self._auth(version, 0, None, b'{"status":"invalid_token"}')
        return super().handler(api, version, body)

    @staticmethod
    def _auth(version: int, code: int, message: str | None, auth: bytes) -> bytes:
        writer = Writer(flexible=version >= 2).int16(code).nullable_string(message)
        writer.bytes_(auth)
        if version >= 1:
            writer.int64(0)
        return writer.tagged_fields().getvalue()


@pytest.fixture()
def endpoint() -> Iterator[TokenEndpoint]:
    server = TokenEndpoint()
    yield server
    server.close()


def oidc_props(url: str, secret: str = CLIENT_SECRET) -> dict[str, str]:
    return {
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanisms": "OAUTHBEARER",
        "sasl.oauthbearer.method": "oidc",
        "sasl.oauthbearer.token.endpoint.url": url,
        "sasl.oauthbearer.client.id": CLIENT_ID,
        "sasl.oauthbearer.client.secret": secret,
        "sasl.oauthbearer.scope": "kafka groups",
    }


def test_initial_response_is_rfc7628_gs2_header_auth_and_kvseps() -> None:
    assert initial_response("eyJ.x.y") == b"n,,\x01auth=Bearer eyJ.x.y\x01\x01"
    assert initial_response("t", {"traceId": "7"}) == b"n,,\x01auth=Bearer t\x01traceId=7\x01\x01"


def test_wire_client_authenticates_with_an_oidc_client_credentials_token(endpoint) -> None:
    cluster = OAuthCluster(topics={"orders": 2})
    cluster.accepted = _Issued(endpoint)  # type: ignore[assignment]
    try:
        config = ClusterConfig(cluster.address, timeout_s=5, properties=oidc_props(endpoint.url))
        assert WireClient.supports(config) == (True, "")
        with WireClient(config) as client:
            assert endpoint.issued == []  # no token before the first connection
            assert [b.id for b in client.brokers()] == [1]
            assert "orders" in client.topics()
    finally:
        cluster.close()
    request = endpoint.requests[0]
    assert request["form"] == {"grant_type": ["client_credentials"], "scope": ["kafka groups"]}
    assert request["path"] == "/oauth2/token"
    assert len(endpoint.issued) == 1  # one token for every connection of the run
    assert (
        cluster.responses[0] == b"n,,\x01auth=Bearer " + endpoint.issued[0].encode() + b"\x01\x01"
    )


class _Issued:
    """The broker's validator: accepts exactly the tokens the endpoint issued."""

    def __init__(self, endpoint: TokenEndpoint) -> None:
        self.endpoint = endpoint

    def __contains__(self, token: object) -> bool:
        return token in self.endpoint.issued


def test_broker_refusing_the_token_is_one_line_without_the_token(endpoint) -> None:
    cluster = OAuthCluster()  # accepts no token
    try:
        config = ClusterConfig(cluster.address, timeout_s=5, properties=oidc_props(endpoint.url))
        with WireClient(config) as client, pytest.raises(KafkaOperationError) as caught:
            client.brokers()
    finally:
        cluster.close()
    line = caught.value.one_line()
    assert "OAUTHBEARER" in line and "SASL_AUTHENTICATION_FAILED" in line
    assert endpoint.issued[0] not in line and CLIENT_SECRET not in line
    assert cluster.responses[-1] == b"\x01"  # RFC 7628 3.2.3: kvsep after the error challenge


def test_wrong_client_secret_names_the_endpoint_and_client_not_the_secret(endpoint) -> None:
    cluster = OAuthCluster()
    try:
        config = ClusterConfig(
            cluster.address, timeout_s=5, properties=oidc_props(endpoint.url, "Wrong-Secret-5")
        )
        with WireClient(config) as client, pytest.raises(KafkaOperationError) as caught:
            client.brokers()
    finally:
        cluster.close()
    line = caught.value.one_line()
    assert "HTTP 401" in line and CLIENT_ID in line and "127.0.0.1" in line
    assert "Wrong-Secret-5" not in line


def test_token_is_fetched_again_once_80_percent_of_its_life_has_passed() -> None:
    calls: list[float] = []
    clock = [0.0]

    def fetch_at(timeout_s: float) -> Token:
        calls.append(timeout_s)
        return Token(f"t{len(calls)}", obtained_s=clock[0], expires_s=clock[0] + 100)

    source = TokenSource(fetch_at, "test")
    assert source.token(now=lambda: clock[0]) == "t1"
    clock[0] = 79.0
    assert source.token(now=lambda: clock[0]) == "t1"
    clock[0] = 80.0
    assert source.token(now=lambda: clock[0]) == "t2"
    assert source.fetches == 2


def test_unsecured_jwt_as_kafkas_unsecured_login_handler_makes_it() -> None:
    seen: list[bytes] = []
    cluster = OAuthCluster()

    class Any:
        def __contains__(self, token: object) -> bool:
            seen.append(str(token).encode())
            return True

    cluster.accepted = Any()  # type: ignore[assignment]
    try:
        props = {
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanisms": "OAUTHBEARER",
            "enable.sasl.oauthbearer.unsecure.jwt": "true",
            "sasl.oauthbearer.config": "principal=alice",
        }
        with WireClient(ClusterConfig(cluster.address, timeout_s=5, properties=props)) as client:
            client.brokers()
    finally:
        cluster.close()
    header, payload, signature = seen[0].decode().split(".")
    assert signature == ""

    def claims(part: str) -> dict:
        return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))

    assert claims(header) == {"alg": "none"}
    body = claims(payload)
    assert body["sub"] == "alice" and body["exp"] > body["iat"] > time.time() - 60


def test_java_config_with_kafkas_oidc_login_handler(endpoint, tmp_path: Path) -> None:
    conf = tmp_path / "oidc.properties"
    conf.write_text(
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"
        "sasl.login.callback.handler.class="
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler\n"
        f"sasl.oauthbearer.token.endpoint.url={endpoint.url}\n"
        "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule "
        f'required clientId="{CLIENT_ID}" clientSecret="{CLIENT_SECRET}" scope="kafka";\n'
    )
    config = build_cluster_config(bootstrap="127.0.0.1:1", command_config=str(conf))
    assert config.properties["sasl.oauthbearer.method"] == "oidc"
    assert config.properties["sasl.oauthbearer.client.id"] == CLIENT_ID
    assert WireClient.supports(config) == (True, "")


def test_java_msk_iam_config_needs_the_region(tmp_path: Path) -> None:
    conf = tmp_path / "msk.properties"
    conf.write_text(
        "security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\n"
        "sasl.login.callback.handler.class="
        "software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler\n"
        "sasl.client.callback.handler.class="
        "software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler\n"
        "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule "
        "required;\n"
    )
    with pytest.raises(ConfigError, match=r"kgroup\.aws\.region"):
        build_cluster_config(bootstrap="b:9098", command_config=str(conf))
    config = build_cluster_config(
        bootstrap="b:9098", command_config=str(conf), overrides=["kgroup.aws.region=eu-west-1"]
    )
    assert WireClient.supports(config) == (True, "")
    # librdkafka gets an oauth_cb; without the signer package that is one clear error at once
    # (librdkafka would wait 10 s for a token and then say only "OAuth token not set")
    with pytest.raises(ConfigError, match="aws-msk-iam-sasl-signer-python"):
        config.client_properties()


def oauth_cli_cluster(endpoint: TokenEndpoint) -> OAuthCluster:
    cluster = OAuthCluster(topics={"orders": 1}, offsets={"ops-app": {("orders", 0): 3}})
    cluster.accepted = _Issued(endpoint)  # type: ignore[assignment]
    return cluster


def test_cli_list_over_oauthbearer_never_prints_the_token_or_secret(endpoint, tmp_path) -> None:
    cluster = oauth_cli_cluster(endpoint)
    conf = tmp_path / "oidc.properties"
    conf.write_text("".join(f"{k}={v}\n" for k, v in oidc_props(endpoint.url).items()))
    try:
        result = run_kgroup("-v", "-b", cluster.address, "-c", str(conf), "list", timeout=60)
    finally:
        cluster.close()
    assert "ops-app" in result.stdout
    assert endpoint.issued, "no token was requested"
    for secret in (*endpoint.issued, CLIENT_SECRET):
        assert secret not in result.stdout + result.stderr


def test_cli_aws_region_without_the_package_is_one_clear_line() -> None:
    cluster = OAuthCluster()
    try:
        result = run_kgroup(
            "-b",
            cluster.address,
            "-X",
            "security.protocol=SASL_PLAINTEXT",
            "-X",
            "sasl.mechanism=OAUTHBEARER",
            "-X",
            "kgroup.aws.region=eu-west-1",
            "--timeout",
            "5",
            "list",
            expect=2,
        )
    finally:
        cluster.close()
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "aws-msk-iam-sasl-signer-python" in lines[0] and "kgroup[aws]" in lines[0]


def test_java_unsecured_login_module_becomes_unsecured_jwts(tmp_path: Path) -> None:
    conf = tmp_path / "unsecured.properties"
    conf.write_text(
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"
        "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule "
        'required unsecuredLoginStringClaim_sub="alice";\n'
    )
    config = build_cluster_config(bootstrap="127.0.0.1:1", command_config=str(conf))
    assert config.properties["enable.sasl.oauthbearer.unsecure.jwt"] == "true"
    assert config.properties["sasl.oauthbearer.config"] == "principal=alice"
    assert WireClient.supports(config) == (True, "")


def test_msk_iam_tokens_come_from_the_signer_package(monkeypatch) -> None:
    """The package's documented call: MSKAuthTokenProvider.generate_auth_token(region) ->
    (token, expiry in ms); a stand-in module plays it (the package is an optional extra)."""
    import importlib.machinery
    import types

    asked: list[str] = []
    expiry_ms = int((time.time() + 900) * 1000)

    class MSKAuthTokenProvider:
        @staticmethod
        def generate_auth_token(region: str) -> tuple[str, int]:
            asked.append(region)
            return "msk-signed-token", expiry_ms

    module = types.ModuleType("aws_msk_iam_sasl_signer")
    module.__spec__ = importlib.machinery.ModuleSpec("aws_msk_iam_sasl_signer", None)
    module.MSKAuthTokenProvider = MSKAuthTokenProvider  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "aws_msk_iam_sasl_signer", module)
    cluster = OAuthCluster(accepted={"msk-signed-token"})
    props = {
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanisms": "OAUTHBEARER",
        "kgroup.aws.region": "eu-west-1",
    }
    config = ClusterConfig(cluster.address, timeout_s=5, properties=props)
    try:
        with WireClient(config) as client:
            assert [b.id for b in client.brokers()] == [1]
    finally:
        cluster.close()
    assert cluster.responses == [b"n,,\x01auth=Bearer msk-signed-token\x01\x01"]
    callback = config.client_properties()["oauth_cb"]
    assert callback("") == ("msk-signed-token", expiry_ms / 1000)
    assert asked == ["eu-west-1", "eu-west-1"]
