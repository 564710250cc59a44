"""Requests and answers of the cluster-wide APIs kgroup sends: ApiVersions, Metadata,
DescribeConfigs, SaslHandshake and SaslAuthenticate (what kgroup asks, how answers become the
results of `results`)."""

from __future__ import annotations

from collections.abc import Sequence

from kgroup.core.wire import results as res
from kgroup.core.wire.calls import (
    spoken_only,
)
from kgroup.core.wire.frames import translated
from kgroup.protocol import messages as p
from kgroup.protocol.fields import has_field
from kgroup.protocol.runtime import Readable

# The generated message modules are imported where they are used: a command loads only the
# messages it sends (`kgroup describe` half a dozen of the 19 APIs).


# --- ApiVersions ----------------------------------------------------------------------------------


def encode_api_versions_request(version: int = 0) -> bytes:
    from kgroup.protocol.generated.wire import api_versions_request as av_req

    if version != 0:  # policy: v0 is what every broker answers (KIP-511's fallback)
        raise ValueError("kgroup sends ApiVersions v0 only")
    return av_req.write(av_req.ApiVersionsRequest(), version)


@translated
def decode_api_versions_response(body: bytes, version: int = 0) -> res.ApiVersionsResult:
    from kgroup.protocol.generated.wire import api_versions_response as av_res

    d = av_res.read_from(Readable(body), version)
    versions = {k.api_key: (k.min_version, k.max_version) for k in d.api_keys}
    return res.ApiVersionsResult(d.error_code, versions)


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


@translated
def decode_metadata_response(body: bytes, version: int = 1) -> res.MetadataResult:
    from kgroup.protocol.generated.wire import metadata_response as md_res

    d = md_res.read_from(Readable(body), version)
    # kgroup's None for "not sent" where the class holds the zero uuid
    with_ids = has_field("MetadataResponse", "Topics.TopicId", version)
    brokers = [res.MetadataBroker(b.node_id, b.host, b.port, b.rack) for b in d.brokers]
    topics = [
        res.MetadataTopic(
            t.error_code,
            t.name,
            t.topic_id if with_ids else None,
            t.is_internal,
            [
                res.MetadataPartition(
                    x.error_code,
                    x.partition_index,
                    x.leader_id,
                    x.leader_epoch,
                    x.replica_nodes,
                    x.isr_nodes,
                    x.offline_replicas,
                )
                for x in t.partitions
            ],
        )
        for t in d.topics
    ]
    return res.MetadataResult(brokers, d.controller_id, topics, d.cluster_id)


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


@translated
def decode_describe_configs_response(body: bytes, version: int) -> list[res.DescribedResource]:
    """Strict about trailing bytes, as the hand-written decoder is."""
    from kgroup.protocol.generated.wire import describe_configs_response as dc_res

    d = dc_res.read(body, version)
    return [
        res.DescribedResource(
            r.error_code,
            r.error_message,
            r.resource_type,
            r.resource_name,
            tuple(
                res.DescribedConfig(c.name, c.value, c.read_only, c.config_source, c.is_sensitive)
                for c in r.configs
            ),
        )
        for r in d.results
    ]


# --- SaslHandshake v1 and SaslAuthenticate --------------------------------------------------------


def encode_sasl_handshake_request(mechanism: str) -> bytes:
    from kgroup.protocol.generated.wire import sasl_handshake_request as sh_req

    return sh_req.write(sh_req.SaslHandshakeRequest(mechanism), 1)


@translated
def decode_sasl_handshake_response(body: bytes) -> tuple[int, list[str]]:
    from kgroup.protocol.generated.wire import sasl_handshake_response as sh_res

    d = sh_res.read_from(Readable(body), 1)
    return d.error_code, list(d.mechanisms)


def encode_sasl_authenticate_request(version: int, auth_bytes: bytes) -> bytes:
    from kgroup.protocol.generated.wire import sasl_authenticate_request as sa_req

    return sa_req.write(sa_req.SaslAuthenticateRequest(auth_bytes), version)


@translated
def decode_sasl_authenticate_response(body: bytes, version: int) -> res.SaslAuthenticateResult:
    from kgroup.protocol.generated.wire import sasl_authenticate_response as sa_res

    d = sa_res.read_from(Readable(body), version)
    return res.SaslAuthenticateResult(d.error_code, d.error_message, d.auth_bytes)
