"""Requests of the cluster-wide APIs kgroup sends: ApiVersions, Metadata, DescribeConfigs,
SaslHandshake and SaslAuthenticate (what kgroup asks; the answers are read as their generated
classes, `calls.read_answer`)."""

from __future__ import annotations

from collections.abc import Sequence

from kgroup.core.wire.calls import (
    spoken_only,
)
from kgroup.protocol import messages as p
from kgroup.protocol.fields import has_field

# The generated message modules are imported where they are used: a command loads only the
# messages it sends (`kgroup describe` half a dozen of the 19 APIs).


# --- ApiVersions ----------------------------------------------------------------------------------


def encode_api_versions_request(version: int = 0) -> bytes:
    from kgroup.protocol.generated.wire import api_versions_request as av_req

    if version != 0:  # policy: v0 is what every broker answers (KIP-511's fallback)
        raise ValueError("kgroup sends ApiVersions v0 only")
    return av_req.write(av_req.ApiVersionsRequest(), version)


# --- Metadata -------------------------------------------------------------------------------------


def encode_metadata_request(version: int = 1, *, all_topics: bool = False) -> bytes:
    """Brokers only (Topics = []) or every topic (Topics = null); never topics by name, no
    auto-creation (4+), no authorized operations (8+)."""
    from kgroup.protocol.generated.wire import metadata_request as md_req

    spoken_only(p.METADATA, version)
    # AllowAutoTopicCreation is not ignorable: turned off where the version has it, left at
    # its default (true) where it has not
    auto_create = not has_field("MetadataRequest", "AllowAutoTopicCreation", version)
    request = md_req.MetadataRequest(
        topics=None if all_topics else (), allow_auto_topic_creation=auto_create
    )
    return md_req.write(request, version)


# --- DescribeConfigs ------------------------------------------------------------------------------


def encode_describe_configs_request(
    version: int, resources: Sequence[tuple[int, str, Sequence[str] | None]]
) -> bytes:
    """(resource type, name, keys or None for all) per resource, synonyms not asked for."""
    from kgroup.protocol.generated.wire import describe_configs_request as dc_req

    # policy, not a field range: the versions kgroup speaks (messages.DESCRIBE_CONFIGS)
    if version not in p.DESCRIBE_CONFIGS.versions:
        raise ValueError("kgroup sends DescribeConfigs v1-v2 only")
    request = dc_req.DescribeConfigsRequest(
        resources=tuple(
            dc_req.DescribeConfigsResource(kind, name, None if keys is None else tuple(keys))
            for kind, name, keys in resources
        ),
        include_synonyms=False,
    )
    return dc_req.write(request, version)


# --- SaslHandshake v1 and SaslAuthenticate --------------------------------------------------------


def encode_sasl_handshake_request(mechanism: str) -> bytes:
    from kgroup.protocol.generated.wire import sasl_handshake_request as sh_req

    return sh_req.write(sh_req.SaslHandshakeRequest(mechanism), 1)


def encode_sasl_authenticate_request(version: int, auth_bytes: bytes) -> bytes:
    from kgroup.protocol.generated.wire import sasl_authenticate_request as sa_req

    return sa_req.write(sa_req.SaslAuthenticateRequest(auth_bytes), version)
