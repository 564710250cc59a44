"""OAUTHBEARER settings a user gets wrong, and a token endpoint that cannot be reached: one line,
the documented exit code, nothing of sasl.oauthbearer.config (a property kgroup treats as secret)
or the client secret echoed, no 'unexpected ValueError'."""

from __future__ import annotations

import socket

from tests.helpers import Result, run_kgroup
from tests.unit.wire.test_wire_oauthbearer import OAuthCluster


class _Any:
    def __contains__(self, token: object) -> bool:
        return True


def _list_over_oauthbearer(expect: int, **props: str) -> Result:
    """`kgroup list` against a scripted OAUTHBEARER broker with `props` as -X settings."""
    cluster = OAuthCluster(topics={"orders": 1}, offsets={"ops-app": {("orders", 0): 3}})
    cluster.accepted = _Any()  # type: ignore[assignment]
    settings = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER", **props}
    args = [arg for key, value in settings.items() for arg in ("-X", f"{key}={value}")]
    try:
        return run_kgroup("-b", cluster.address, *args, "--timeout", "5", "list", expect=expect)
    finally:
        cluster.close()


def one_line(result: Result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_unsecured_jwt_life_that_is_not_a_number_is_a_usage_error() -> None:
    result = _list_over_oauthbearer(
        2,
        **{
            "enable.sasl.oauthbearer.unsecure.jwt": "true",
            "sasl.oauthbearer.config": "principal=alice lifeSeconds=Xyzzy-9",
        },
    )
    line = one_line(result)
    assert "lifeSeconds" in line and "sasl.oauthbearer.config" in line
    assert "unexpected" not in line and "Xyzzy-9" not in line


def test_token_endpoint_that_cannot_be_reached_is_exit_6() -> None:
    """As librdkafka's path ends (no token: the cluster is not reached in time), and as the
    README's exit codes say for what cannot be reached."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    result = _list_over_oauthbearer(
        6,
        **{
            "sasl.oauthbearer.method": "oidc",
            "sasl.oauthbearer.token.endpoint.url": f"http://127.0.0.1:{port}/token",
            "sasl.oauthbearer.client.id": "ops",
            "sasl.oauthbearer.client.secret": "Client-Secret-44",
        },
    )
    line = one_line(result)
    assert f"127.0.0.1:{port}" in line and "Client-Secret-44" not in line
