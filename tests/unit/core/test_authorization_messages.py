"""Every authorization error code, on every answer kgroup reads (wire client) and every librdkafka
call, names the resource and the operation to grant: "ask for an ACL granting OP on KIND:NAME"."""

from __future__ import annotations

import re

import pytest
from confluent_kafka import KafkaError, KafkaException

from kgroup.core.errors import AuthorizationError
from kgroup.core.models import TopicPartition
from kgroup.core.rdkafka_errors import map_kafka_error
from kgroup.core.wire import kafka_errors as ke
from kgroup.core.wire.error_codes import (
    CLUSTER_AUTHORIZATION_FAILED,
    GROUP_AUTHORIZATION_FAILED,
    TOPIC_AUTHORIZATION_FAILED,
    error_name,
)

TP = TopicPartition("orders", 3)
CODES = {
    GROUP_AUTHORIZATION_FAILED: "Group:bob-app",
    TOPIC_AUTHORIZATION_FAILED: "Topic:orders",
    CLUSTER_AUTHORIZATION_FAILED: "Cluster:kafka-cluster",
}
GRANT = re.compile(
    r"ask for an ACL granting (Describe|Read|Delete|DescribeConfigs|Create|Alter) on "
)

MAPPERS = {
    "group_error": lambda code: ke.group_error(code, "bob-app", "fetch the offsets"),
    "partition_error": lambda code: ke.partition_error(code, "bob-app", TP),
    "commit_error": lambda code: ke.commit_error(code, "bob-app", TP),
    "offset_delete_error": lambda code: ke.offset_delete_error(code, "bob-app", TP),
    "offsets_error": lambda code: ke.offsets_error(code, TP),
    "fetch_error": lambda code: ke.fetch_error(code, TP),
    "config_error": lambda code: ke.config_error(code, "orders"),
    "list_groups_error": lambda code: ke.list_groups_error(code, "b1:9092"),
}


NO_GROUP = {"offsets_error", "fetch_error", "config_error", "list_groups_error"}


@pytest.mark.parametrize("code", sorted(CODES))
@pytest.mark.parametrize("mapper", sorted(MAPPERS))
def test_wire_authorization_errors_name_operation_and_resource(mapper: str, code: int) -> None:
    error = MAPPERS[mapper](code)
    assert isinstance(error, AuthorizationError), error.one_line()
    line = error.one_line()
    assert error_name(code) in line
    assert GRANT.search(line), line
    resource = CODES[code]
    # answers that carry no group (or no topic) name the kind, as nothing more is known
    if code == GROUP_AUTHORIZATION_FAILED and mapper in NO_GROUP:
        resource = "the groups involved"
    if code == TOPIC_AUTHORIZATION_FAILED and mapper == "list_groups_error":
        resource = "the topics involved"
    if code == TOPIC_AUTHORIZATION_FAILED and mapper == "group_error":
        resource = "the group's topics"  # a group-level answer names no topic
    assert resource in line, line


def test_commit_errors_name_the_group_or_the_topic_not_both() -> None:
    group = ke.commit_error(GROUP_AUTHORIZATION_FAILED, "bob-app", TP).one_line()
    topic = ke.commit_error(TOPIC_AUTHORIZATION_FAILED, "bob-app", TP).one_line()
    assert "Read on Group:bob-app" in group and "Topic:" not in group
    assert "Read on Topic:orders" in topic


@pytest.mark.parametrize(
    ("code", "acl", "expected"),
    [
        (
            KafkaError.TOPIC_AUTHORIZATION_FAILED,
            {"Group": "Read on Group:bob-app", "Topic": "Read on Topic:orders"},
            "Read on Topic:orders",
        ),
        (
            KafkaError.GROUP_AUTHORIZATION_FAILED,
            {"Group": "Read on Group:bob-app", "Topic": "Read on Topic:orders"},
            "Read on Group:bob-app",
        ),
        (KafkaError.CLUSTER_AUTHORIZATION_FAILED, None, "Cluster:kafka-cluster"),
        # an ACL text naming another kind of resource is not used for this one
        (KafkaError.TOPIC_AUTHORIZATION_FAILED, "Describe on Group:bob-app", "Topic:bob-app"),
    ],
)
def test_librdkafka_authorization_errors_pick_the_grant_for_the_refused_resource(
    code: int, acl: object, expected: str
) -> None:
    error = map_kafka_error(
        KafkaException(KafkaError(code)),
        operation="commit offsets for group",
        subject="bob-app",
        acl=acl,  # type: ignore[arg-type]
    )
    assert isinstance(error, AuthorizationError)
    assert expected in (error.hint or ""), error.one_line()
