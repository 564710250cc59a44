"""OAUTHBEARER settings the wire client does not implement leave the run to librdkafka (which
does them) instead of being ignored: librdkafka 2.x has the JWT bearer grant
(`sasl.oauthbearer.grant.type=urn:ietf:params:oauth:grant-type:jwt-bearer` with
`sasl.oauthbearer.assertion.*`) and Azure IMDS tokens
(`sasl.oauthbearer.metadata.authentication.type=azure_imds`); the wire client asked the token
endpoint for client credentials regardless, and the endpoint's refusal blamed the client secret."""

from __future__ import annotations

import pytest

from kgroup.core.config import ClusterConfig
from kgroup.core.wire.client import WireClient

OIDC = {
    "security.protocol": "SASL_SSL",
    "sasl.mechanisms": "OAUTHBEARER",
    "sasl.oauthbearer.method": "oidc",
    "sasl.oauthbearer.token.endpoint.url": "https://idp.example/oauth2/token",
    "sasl.oauthbearer.client.id": "ops",
}


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("sasl.oauthbearer.grant.type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
        ("sasl.oauthbearer.assertion.private.key.file", "/etc/kafka/assertion.key"),
        ("sasl.oauthbearer.metadata.authentication.type", "azure_imds"),
    ],
)
def test_unimplemented_oauthbearer_setting_goes_to_librdkafka(key: str, value: str) -> None:
    config = ClusterConfig("b:9093", properties={**OIDC, key: value})
    ok, reason = WireClient.supports(config)
    assert not ok
    assert key in reason


def test_implemented_oauthbearer_settings_and_defaults_stay_on_the_wire_client() -> None:
    props = {
        **OIDC,
        "sasl.oauthbearer.client.secret": "s",
        "sasl.oauthbearer.scope": "kafka",
        "sasl.oauthbearer.extensions": "traceId=7",
        "sasl.oauthbearer.grant.type": "client_credentials",
        "sasl.oauthbearer.metadata.authentication.type": "none",
    }
    assert WireClient.supports(ClusterConfig("b:9093", properties=props)) == (True, "")


def test_java_only_oauthbearer_names_stay_ignored_by_the_wire_client() -> None:
    # a Java client's own settings that librdkafka does not know either: as before
    props = {**OIDC, "sasl.oauthbearer.header.urlencode": "true"}
    assert WireClient.supports(ClusterConfig("b:9093", properties=props)) == (True, "")
