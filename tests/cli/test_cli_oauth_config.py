"""OAUTHBEARER settings a user gets wrong: one line, exit 2, nothing of sasl.oauthbearer.config
(a property kgroup treats as secret) echoed, no 'unexpected ValueError'."""

from __future__ import annotations

from tests.helpers import run_kgroup
from tests.unit.wire.test_wire_oauthbearer import OAuthCluster


class _Any:
    def __contains__(self, token: object) -> bool:
        return True


def test_unsecured_jwt_life_that_is_not_a_number_is_a_usage_error() -> None:
    cluster = OAuthCluster(topics={"orders": 1}, offsets={"ops-app": {("orders", 0): 3}})
    cluster.accepted = _Any()  # type: ignore[assignment]
    try:
        result = run_kgroup(
            "-b",
            cluster.address,
            "-X",
            "security.protocol=SASL_PLAINTEXT",
            "-X",
            "sasl.mechanism=OAUTHBEARER",
            "-X",
            "enable.sasl.oauthbearer.unsecure.jwt=true",
            "-X",
            "sasl.oauthbearer.config=principal=alice lifeSeconds=Xyzzy-9",
            "--timeout",
            "5",
            "list",
            expect=2,
        )
    finally:
        cluster.close()
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "lifeSeconds" in lines[0] and "sasl.oauthbearer.config" in lines[0]
    assert "unexpected" not in lines[0] and "Xyzzy-9" not in lines[0]
