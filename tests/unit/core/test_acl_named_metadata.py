"""Topics asked for by name (kgroup.core.acl.topic_errors) must never be auto-created: a Kafka
broker with auto.create.topics.enable=true (its default) creates every name a Metadata request
carries when allow_auto_topic_creation is true (KafkaApis.handleTopicMetadataRequest), and
librdkafka's AdminClient, a producer handle, sends true unless allow.auto.create.topics=false.
So `describe --topic TYPO` through librdkafka (no wire client: GSSAPI, CRLs...) created TYPO."""

from __future__ import annotations

from dataclasses import dataclass, field

from kgroup.core.acl import topic_errors
from kgroup.core.admin import GroupAdmin
from kgroup.core.config import ClusterConfig
from kgroup.core.wire.error_codes import UNKNOWN_TOPIC_OR_PARTITION
from kgroup.protocol import messages as api_table
from tests.unit.wire.fakeacl import AclCluster
from tests.unit.wire.wirecodec import Reader


@dataclass
class AutoCreateWatch(AclCluster):
    """AclCluster noting allow_auto_topic_creation of every Metadata request naming topics."""

    auto_create: list[tuple[list[str], bool]] = field(default_factory=list)

    def handler(self, api: int, version: int, body: bytes) -> bytes:
        if api == api_table.METADATA.key and version >= 4:
            reader = Reader(body, flexible=version >= 9)

            def topic(r: Reader) -> str | None:
                if version >= 10:
                    r.uuid()
                name = r.nullable_string() if version >= 10 else r.string()
                if version >= 9:
                    r.tagged_fields()
                return name

            names = reader.nullable_array(topic)
            if names:
                self.auto_create.append(([n for n in names if n], reader.boolean()))
        return super().handler(api, version, body)


def test_librdkafka_path_asks_for_a_named_topic_without_auto_creation() -> None:
    cluster = AutoCreateWatch(topics={"orders": 1}, hidden={"secret"})
    admin = GroupAdmin(ClusterConfig(cluster.address, timeout_s=5), use_wire=False)
    try:
        errors = topic_errors(admin, ["typo"])
    finally:
        admin.close()
        cluster.close()
    assert errors == {"typo": UNKNOWN_TOPIC_OR_PARTITION}
    asked = [flag for names, flag in cluster.auto_create if names == ["typo"]]
    assert asked and not any(asked), cluster.auto_create


def test_a_user_setting_does_not_make_kgroup_create_topics() -> None:
    cluster = AutoCreateWatch(topics={"orders": 1})
    config = ClusterConfig(
        cluster.address, timeout_s=5, properties={"allow.auto.create.topics": "true"}
    )
    admin = GroupAdmin(config, use_wire=False)
    try:
        topic_errors(admin, ["typo"])
    finally:
        admin.close()
        cluster.close()
    asked = [flag for names, flag in cluster.auto_create if names == ["typo"]]
    assert asked and not any(asked), cluster.auto_create
