"""`reset-offsets` of streams groups with the rules of Kafka's kafka-streams-groups, through a
real `kgroup` process against the scripted coordinator of tests/unit/wire/fakeshare.py.

Kafka's StreamsGroupCommand resets the input topics (`--all-input-topics`: the committed
partitions of the topology's source topics; `--input-topic`: only partitions the group has
committed, else "not part of the group"), and with `--delete-all-internal-topics` /
`--delete-internal-topic` deletes the internal (repartition, changelog) topics after the reset.
Before, kgroup reset every committed partition, repartition topics included, knew no internal
topic, and reset partitions a streams group never committed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from kgroup.core.wire.error_codes import TOPIC_AUTHORIZATION_FAILED
from kgroup.protocol import messages as api_table
from tests.helpers import run_kgroup
from tests.unit.wire.fakeshare import (
    DELETE_TOPICS_KEY,
    FakeShareGroup,
    FakeStreamsGroup,
    FakeStreamsMember,
    ShareCluster,
)

NOT_CONTROLLER, THROTTLING_QUOTA_EXCEEDED = 41, 89  # Kafka's Errors codes
REPARTITION = "app3-KSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition"
CHANGELOG = "app3-KSTREAM-AGGREGATE-STATE-STORE-0000000003-changelog"
SHARED = "lookup-changelog"  # in the topology, but not named as app3's: Kafka keeps it


def make(**extra) -> ShareCluster:
    return ShareCluster(
        topics={"orders": 3, REPARTITION: 3, CHANGELOG: 3, SHARED: 1},
        offsets={
            "app3": {
                ("orders", 0): 5,
                ("orders", 1): 5,
                ("orders", 2): 5,
                (REPARTITION, 0): 7,
            },
            "busy": {("orders", 0): 5},
        },
        streams_groups={
            "app3": FakeStreamsGroup(
                # Kafka Streams lists a repartition topic among repartition sources only
                subtopologies={"0": ("orders",), "1": ()},
                repartition_sinks={"0": (REPARTITION,)},
                repartition_sources={"1": (REPARTITION,)},
                changelogs={"1": (CHANGELOG, SHARED)},
            ),
            "busy": FakeStreamsGroup(
                subtopologies={"0": ("orders",)},
                changelogs={"0": ("busy-store-changelog",)},
                members=(FakeStreamsMember("s-m1", active=(("0", (0,)),)),),
            ),
        },
        share_groups={"sg1": FakeShareGroup()},
        **extra,
    )


@pytest.fixture
def cluster() -> Iterator[ShareCluster]:
    made = make()
    yield made
    made.close()


def kgroup(cluster: ShareCluster, tmp_path, *args: str, expect: int = 0):
    return run_kgroup(
        "-b",
        cluster.address,
        "--timeout",
        "10",
        *args,
        env={"XDG_CONFIG_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)},
        expect=expect,
    )


def deletes(cluster: ShareCluster) -> list[list[str]]:
    return [r["topics"] for key, r in cluster.requests if key == DELETE_TOPICS_KEY]


def test_dry_run_resets_input_topics_and_lists_internal_topics_it_would_delete(
    cluster, tmp_path
) -> None:
    result = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "app3",
        "--all-topics",
        "--to",
        "earliest",
        "--delete-all-internal-topics",
        "-o",
        "json",
    )
    (plan,) = json.loads(result.stdout)["groups"]
    # the source topic's committed partitions; the repartition topic is deleted, not reset
    assert [(r["topic"], r["partition"]) for r in plan["partitions"]] == [
        ("orders", 0),
        ("orders", 1),
        ("orders", 2),
    ]
    assert plan["delete_topics"] == [REPARTITION, CHANGELOG]
    assert any(SHARED in w and "kept" in w for w in plan["warnings"])
    # a dry run deletes nothing and commits nothing
    assert deletes(cluster) == [] and REPARTITION in cluster.topics
    assert cluster.offsets["app3"][("orders", 0)] == 5
    table = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "app3",
        "--all-topics",
        "--to",
        "earliest",
        "--delete-all-internal-topics",
    )
    assert f"app3: --execute then deletes internal topics {REPARTITION}, {CHANGELOG}" in (
        table.stdout + table.stderr
    )


def test_execute_commits_then_deletes_the_internal_topics(cluster, tmp_path) -> None:
    result = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "app3",
        "--all-topics",
        "--to",
        "earliest",
        "--delete-all-internal-topics",
        "--execute",
        "-o",
        "json",
    )
    (done,) = json.loads(result.stdout)["groups"]
    assert done["status"] == "committed"
    assert done["deleted_topics"] == [REPARTITION, CHANGELOG]
    assert cluster.offsets["app3"] == {("orders", 0): 0, ("orders", 1): 0, ("orders", 2): 0}
    assert deletes(cluster) == [[REPARTITION, CHANGELOG]]
    assert REPARTITION not in cluster.topics and CHANGELOG not in cluster.topics
    assert SHARED in cluster.topics  # not named as the group's: kept
    # the deletion came after the commit (Kafka deletes after AlterStreamsGroupOffsets)
    order = [key for key, _r in cluster.requests if key in (api_table.OFFSET_COMMIT.key, 20)]
    assert order == [api_table.OFFSET_COMMIT.key, DELETE_TOPICS_KEY]


def test_a_named_internal_topic_only(cluster, tmp_path) -> None:
    kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "app3",
        "--all-topics",
        "--to-offset",
        "1",
        "--delete-internal-topic",
        CHANGELOG,
        "--execute",
    )
    assert deletes(cluster) == [[CHANGELOG]] and REPARTITION in cluster.topics


def test_deleting_a_topic_that_is_not_internal_is_refused(cluster, tmp_path) -> None:
    result = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "app3",
        "--all-topics",
        "--to",
        "earliest",
        "--delete-internal-topic",
        "orders",
        "--execute",
        expect=4,
    )
    assert "--delete-internal-topic orders: not an internal" in result.stderr
    assert deletes(cluster) == [] and cluster.offsets["app3"][("orders", 0)] == 5


def test_partitions_the_streams_group_never_committed_are_refused(cluster, tmp_path) -> None:
    result = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "busy",
        "--topic",
        "orders",
        "--to",
        "earliest",
        expect=4,
    )
    assert "has no committed offset for orders:1, orders:2" in result.stderr
    assert "Traceback" not in result.stderr


def test_deletion_options_apply_to_streams_groups_only(cluster, tmp_path) -> None:
    result = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "sg1",
        "--all-topics",
        "--to",
        "earliest",
        "--delete-all-internal-topics",
        expect=2,
    )
    assert "applies to streams groups only; sg1 is not one" in result.stderr


def test_an_active_streams_group_is_refused_and_nothing_is_deleted(cluster, tmp_path) -> None:
    result = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "busy",
        "--all-topics",
        "--to",
        "earliest",
        "--delete-all-internal-topics",
        "--execute",
        expect=4,
    )
    assert "s-m1" in result.stderr
    assert deletes(cluster) == [] and cluster.offsets["busy"][("orders", 0)] == 5


def test_a_failed_deletion_after_the_commit_exits_1_naming_the_acl(tmp_path) -> None:
    made = make(delete_topic_errors={CHANGELOG: TOPIC_AUTHORIZATION_FAILED})
    try:
        result = kgroup(
            made,
            tmp_path,
            "reset-offsets",
            "app3",
            "--all-topics",
            "--to",
            "earliest",
            "--delete-all-internal-topics",
            "--execute",
            expect=1,
        )
        assert made.offsets["app3"][("orders", 0)] == 0  # the reset stands
        assert REPARTITION not in made.topics and CHANGELOG in made.topics
    finally:
        made.close()
    assert "offsets committed and verified, but not allowed to delete topic" in result.stderr
    assert "Traceback" not in result.stderr


def test_delete_with_its_internal_topics(cluster, tmp_path) -> None:
    """kafka-streams-groups --delete --delete-all-internal-topics: the topics are read from the
    topology before the group goes, and deleted once it is gone."""
    result = kgroup(
        cluster, tmp_path, "delete", "app3", "--delete-all-internal-topics", "-o", "json"
    )
    (row,) = json.loads(result.stdout)["groups"]
    assert (row["group"], row["status"]) == ("app3", "deleted")
    assert row["deleted_topics"] == [REPARTITION, CHANGELOG]
    assert "app3" not in cluster.streams_groups and SHARED in cluster.topics
    assert deletes(cluster) == [[REPARTITION, CHANGELOG]]


def test_delete_of_an_active_streams_group_deletes_no_topic(cluster, tmp_path) -> None:
    kgroup(cluster, tmp_path, "delete", "busy", "--delete-all-internal-topics", expect=4)
    assert deletes(cluster) == [] and "busy" in cluster.streams_groups


def test_delete_option_is_refused_for_other_group_types(cluster, tmp_path) -> None:
    result = kgroup(cluster, tmp_path, "delete", "sg1", "--delete-all-internal-topics", expect=2)
    assert "applies to streams groups only; sg1 is not one" in result.stderr
    assert "sg1" in cluster.share_groups


def test_delete_of_an_unknown_group_with_the_option_is_not_found(cluster, tmp_path) -> None:
    """A group that does not exist is not found (exit 3), as `kgroup delete` says without the
    option; it was a usage error (exit 2, "nosuch is not one") before, though nothing in the
    command line was wrong. The streams group beside it is deleted with its topics."""
    result = kgroup(
        cluster, tmp_path, "delete", "nosuch", "app3", "--delete-all-internal-topics", expect=3
    )
    assert "nosuch: group nosuch does not exist" in result.stderr
    assert "is not one" not in result.stderr
    assert "app3" not in cluster.streams_groups
    assert deletes(cluster) == [[REPARTITION, CHANGELOG]]


def test_reset_of_an_unknown_group_with_the_option_is_not_found(cluster, tmp_path) -> None:
    result = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "nosuch",
        "--all-topics",
        "--to",
        "earliest",
        "--delete-all-internal-topics",
        "--execute",
        expect=3,
    )
    assert "nothing to reset for group(s) nosuch" in result.stderr  # as without the option
    assert "is not one" not in result.stderr and deletes(cluster) == []


def test_a_moving_controller_and_a_quota_are_retried_until_the_topics_go(tmp_path) -> None:
    """Kafka's Admin retries DeleteTopics on NOT_CONTROLLER (handleNotControllerError) and on
    THROTTLING_QUOTA_EXCEEDED (retryOnQuotaViolation, on by default) until its timeout; kgroup
    asked once more on NOT_CONTROLLER only, so a controller election of two answers, or a
    quota, left the topics in place after the commit (exit 1)."""
    made = make(
        delete_topic_answers={
            CHANGELOG: [NOT_CONTROLLER, NOT_CONTROLLER],
            REPARTITION: [THROTTLING_QUOTA_EXCEEDED],
        }
    )
    try:
        result = kgroup(
            made,
            tmp_path,
            "reset-offsets",
            "app3",
            "--all-topics",
            "--to",
            "earliest",
            "--delete-all-internal-topics",
            "--execute",
            "-o",
            "json",
        )
        (done,) = json.loads(result.stdout)["groups"]
        assert sorted(done["deleted_topics"]) == sorted([REPARTITION, CHANGELOG])
        assert REPARTITION not in made.topics and CHANGELOG not in made.topics
        # each retry asks again only for the topics not yet answered for good
        assert deletes(made) == [[REPARTITION, CHANGELOG], [REPARTITION, CHANGELOG], [CHANGELOG]]
    finally:
        made.close()


def test_a_broker_without_delete_topics_still_reports_the_committed_reset(tmp_path) -> None:
    """The offsets are committed before the topics go: a DeleteTopics that cannot be sent at
    all (no such API, an unreachable controller) left stdout empty, so the committed reset, its
    backup and its undo command were never said (exit 1 with the DeleteTopics error only)."""
    made = make(delete_topics_versions=None)
    try:
        result = kgroup(
            made,
            tmp_path,
            "reset-offsets",
            "app3",
            "--all-topics",
            "--to",
            "earliest",
            "--delete-all-internal-topics",
            "--execute",
            "-o",
            "json",
            expect=1,
        )
        assert made.offsets["app3"][("orders", 0)] == 0  # committed
        assert REPARTITION in made.topics and CHANGELOG in made.topics
    finally:
        made.close()
    (done,) = json.loads(result.stdout)["groups"]
    assert (done["status"], done["deleted_topics"]) == ("committed", [])
    assert done["backup"]
    assert "does not offer DeleteTopics" in done["note"]
    assert "offsets committed and verified, but broker" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_broker_without_delete_topics_still_reports_the_deleted_group(tmp_path) -> None:
    made = make(delete_topics_versions=None)
    try:
        result = kgroup(
            made, tmp_path, "delete", "app3", "--delete-all-internal-topics", "-o", "json", expect=1
        )
        assert "app3" not in made.streams_groups and CHANGELOG in made.topics
    finally:
        made.close()
    (row,) = json.loads(result.stdout)["groups"]
    assert (row["status"], row["deleted_topics"]) == ("deleted", [])
    assert "does not offer DeleteTopics" in row["message"]
    assert "app3: deleted, but broker" in result.stderr


def test_an_offline_dry_run_refuses_the_deletion_options(tmp_path) -> None:
    """`--to-committed-at --segments` plans a dry run without the cluster, so it cannot read a
    streams group's topology: the deletion options were ignored (exit 0), and the dry run did
    not list the topics `--execute` would delete. A usage error now (exit 2)."""
    from tests.cli.test_cli_decode import ZEY

    for option in (["--delete-all-internal-topics"], ["--delete-internal-topic", CHANGELOG]):
        result = run_kgroup(
            "reset-offsets", "node-api-group", "--all-topics", "--to-committed-at", "2h",
            "--segments", str(ZEY), *option,
            env={"XDG_CONFIG_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)},
            expect=2,
        )  # fmt: skip
        assert f"{option[0]} needs the cluster" in result.stderr
        assert "Traceback" not in result.stderr


def test_a_group_whose_internal_topics_are_all_kept_is_not_said_to_have_none(tmp_path) -> None:
    """Every internal topic of the topology is named otherwise than Kafka Streams names the
    group's (kept): the plan said both that it keeps lookup-changelog and that the group "has no
    internal topic"."""
    made = ShareCluster(
        topics={"orders": 1, SHARED: 1},
        offsets={"app4": {("orders", 0): 5}},
        streams_groups={
            "app4": FakeStreamsGroup(subtopologies={"0": ("orders",)}, changelogs={"0": (SHARED,)})
        },
    )
    try:
        result = kgroup(
            made, tmp_path, "reset-offsets", "app4", "--all-topics", "--to", "earliest",
            "--delete-all-internal-topics", "-o", "json",
        )  # fmt: skip
    finally:
        made.close()
    (plan,) = json.loads(result.stdout)["groups"]
    assert plan["delete_topics"] == []
    assert any(SHARED in w and "kept" in w for w in plan["warnings"])
    assert not any("has no internal topic" in w for w in plan["warnings"])
    assert any("none of app4's internal topics is named as its own" in w for w in plan["warnings"])
