"""Which topics of a streams group's topology `--delete-all-internal-topics` deletes: Kafka's
StreamsGroupCommand.retrieveInternalTopics (repartition sources and changelogs that are not
source topics) and isInferredInternalTopic (`<group>-` and an internal topic's ending)."""

from __future__ import annotations

import pytest

from kgroup.core.wire.streams_topology import StreamsTopology, Subtopology
from kgroup.reset.streams import internal_topics, is_inferred_internal


@pytest.mark.parametrize(
    ("topic", "expected"),
    [
        ("app-KSTREAM-AGGREGATE-STATE-STORE-0000000003-changelog", True),
        ("app-KSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition", True),
        ("app-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic", True),
        ("app-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000013-topic", True),
        ("app-x-subscription-registration-topic", True),
        ("app-x-subscription-response-topic", True),
        ("app2-store-changelog", False),  # another application's
        ("app-store-changelog-v2", False),
        ("store-changelog", False),
        ("app-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-x-topic", False),
    ],
)
def test_inferred_internal_names(topic: str, expected: bool) -> None:
    assert is_inferred_internal(topic, "app") is expected


def test_sources_are_never_deleted_and_sinks_only_through_their_reader() -> None:
    topology = StreamsTopology(
        "app",
        "Empty",
        0,
        (
            Subtopology("0", ("orders", "app-in-repartition"), (), ("app-a-repartition",), ()),
            Subtopology(
                "1",
                (),
                ("app-a-repartition", "app-in-repartition"),
                ("app-sink-only-repartition",),
                ("app-store-changelog", "shared-changelog"),
            ),
        ),
    )
    found = internal_topics(topology)
    assert found.deletable == ("app-a-repartition", "app-store-changelog")
    assert found.not_inferred == ("shared-changelog",)
    assert "app-sink-only-repartition" in found.named  # --delete-internal-topic may name it
    assert "app-in-repartition" not in found.named  # a source topic


def test_each_topic_gets_its_status_and_the_message_says_them() -> None:
    from kgroup.core.errors import AuthorizationError, NotFoundError
    from kgroup.core.wire.delete_topics import DeletionProgress
    from kgroup.reset.streams import topics_deleted

    answered = {
        "a-x-changelog": None,
        "a-y-changelog": NotFoundError("topic a-y-changelog does not exist (already deleted?)"),
        "a-z-changelog": AuthorizationError("not allowed to delete topic a-z-changelog"),
    }
    wanted = [*answered, "a-w-repartition", "a-v-repartition"]
    progress = DeletionProgress(asked={"a-w-repartition"}, answered=answered)
    result = topics_deleted(wanted, ["a-gone-changelog"], progress, interrupted=True)
    assert result.statuses == {
        "a-x-changelog": "deleted",
        "a-y-changelog": "already_gone",
        "a-z-changelog": "not_deleted",
        "a-w-repartition": "unknown",
        "a-v-repartition": "not_deleted",
        "a-gone-changelog": "already_gone",
    }
    assert result.errors == ["not allowed to delete topic a-z-changelog"]
    message = result.message() or ""
    assert "deleted internal topics a-x-changelog" in message
    assert "already gone: a-y-changelog, a-gone-changelog" in message
    assert "not deleted: not allowed to delete topic a-z-changelog" in message
    assert "not deleted: a-v-repartition (interrupted before asking)" in message
    assert "unknown whether deleted: a-w-repartition" in message
    assert result.said() == (
        "internal topics deleted: a-x-changelog; already gone: a-y-changelog, a-gone-changelog; "
        "not deleted: a-z-changelog, a-v-repartition; unknown whether deleted: a-w-repartition"
    )


def test_a_run_interrupted_before_the_deletion_deletes_nothing() -> None:
    """Ctrl-C came while another group was still being reset (`report.interrupted` set): every
    group stops at its next step, so a group that got committed and verified meanwhile keeps
    its internal topics (they were deleted after the interrupt) and its outcome says so."""
    from types import SimpleNamespace

    from kgroup.core.config import ClusterConfig
    from kgroup.core.wire.client import WireClient
    from kgroup.reset.apply import ExecutionReport, GroupOutcome
    from kgroup.reset.model import GroupPlan
    from kgroup.reset.streams import delete_after_commit
    from tests.unit.wire.fakeshare import DELETE_TOPICS_KEY, ShareCluster

    made = ShareCluster(topics={"a-x-changelog": 1})
    client = WireClient(ClusterConfig(made.address, timeout_s=5))
    report = ExecutionReport(
        outcomes=[GroupOutcome("a", "committed", exit_code=130)], interrupted="SIGINT"
    )
    plan = GroupPlan("a", (), "to earliest", delete_topics=("a-x-changelog",))
    notes: list[str] = []
    try:
        admin = SimpleNamespace(wire=client, timeout_s=5)
        failures = delete_after_commit(admin, [plan], report, notes.append)
    finally:
        client.close()
        made.close()
    assert [r for k, r in made.requests if k == DELETE_TOPICS_KEY] == []
    assert "a-x-changelog" in made.topics and failures == []
    (outcome,) = report.outcomes
    assert outcome.internal_topics.statuses == {"a-x-changelog": "not_deleted"}
    assert "not deleted: a-x-changelog (interrupted before asking)" in (outcome.message or "")
    assert (report.interrupted, outcome.exit_code) == ("SIGINT", 130)


@pytest.mark.parametrize(
    ("status", "said"),
    [
        ("committed_unverified", "committed, not verified"),
        ("committed_at_risk", "committed, at risk"),
        ("unknown", "unknown whether committed"),
        ("failed", "not committed"),
    ],
)
def test_a_group_committed_but_not_verified_is_not_said_not_committed(
    status: str, said: str
) -> None:
    """Its offsets did land (apply.LANDED), so its topics stay, but the note said "not
    committed", telling the operator nothing had changed."""
    from types import SimpleNamespace

    from kgroup.reset.apply import ExecutionReport, GroupOutcome
    from kgroup.reset.model import GroupPlan
    from kgroup.reset.streams import delete_after_commit

    report = ExecutionReport(outcomes=[GroupOutcome("a", status, exit_code=1)])
    plan = GroupPlan("a", (), "to earliest", delete_topics=("a-x-changelog",))
    notes: list[str] = []
    admin = SimpleNamespace(wire=None, timeout_s=5)
    assert delete_after_commit(admin, [plan], report, notes.append) == []
    assert notes == [f"a: {said}: internal topics not deleted"]
    assert report.outcomes[0].internal_topics.statuses == {"a-x-changelog": "not_deleted"}


def test_an_interrupt_between_two_deletions_still_gives_every_topic_its_status() -> None:
    """Ctrl-C landing between two DeleteTopics (here while a group's note is printed) escaped
    delete_after_commit bare: no group's topics were said. Now the deletions stop there: the
    topics deleted before are `deleted`, those not asked for yet `not_deleted`."""
    from types import SimpleNamespace

    from kgroup.core.config import ClusterConfig
    from kgroup.core.wire.client import WireClient
    from kgroup.reset.apply import ExecutionReport, GroupOutcome
    from kgroup.reset.model import GroupPlan
    from kgroup.reset.streams import delete_after_commit
    from tests.unit.wire.fakeshare import DELETE_TOPICS_KEY, ShareCluster

    made = ShareCluster(topics={"a-x-changelog": 1, "b-x-changelog": 1, "c-x-changelog": 1})
    client = WireClient(ClusterConfig(made.address, timeout_s=5))
    report = ExecutionReport(
        outcomes=[
            GroupOutcome("a", "committed"),
            GroupOutcome("b", "committed_unverified", exit_code=1),
            GroupOutcome("c", "committed"),
        ]
    )
    plans = [GroupPlan(g, (), "to earliest", delete_topics=(f"{g}-x-changelog",)) for g in "abc"]

    def note(line: str) -> None:
        raise KeyboardInterrupt  # Ctrl-C while b's note is written

    try:
        admin = SimpleNamespace(wire=client, timeout_s=5)
        failures = delete_after_commit(admin, plans, report, note)
    except KeyboardInterrupt:
        pytest.fail("the Ctrl-C escaped delete_after_commit: no topic's status was said")
    finally:
        client.close()
        made.close()
    assert [r["topics"] for k, r in made.requests if k == DELETE_TOPICS_KEY] == [["a-x-changelog"]]
    assert failures == []
    assert report.interrupted == "SIGINT"
    a, b, c = report.outcomes
    assert a.internal_topics.statuses == {"a-x-changelog": "deleted"}
    assert a.deleted_topics == ("a-x-changelog",)
    assert b.internal_topics.statuses == {"b-x-changelog": "not_deleted"}
    assert c.internal_topics.statuses == {"c-x-changelog": "not_deleted"}
    assert "not deleted: c-x-changelog (interrupted before asking)" in (c.message or "")
    assert [o.exit_code for o in report.outcomes] == [130, 130, 130]


def test_delete_interrupted_between_two_groups_topics_still_says_each_row(monkeypatch) -> None:
    """`delete --delete-all-internal-topics`: Ctrl-C landing after app3's DeleteTopics answered,
    before its row was written, escaped the loop bare (no row said). Now app3's topics are
    `deleted` (its answer is known), app4's `not_deleted` (never asked)."""
    from kgroup.reset import streams
    from tests.cli.test_cli_streams_internal_topics import chl, make, rep
    from tests.helpers import admin_for
    from tests.unit.wire.fakeshare import DELETE_TOPICS_KEY

    real = streams.topics_deleted
    calls: list[int] = []

    def interrupted_once(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt  # after app3's DeleteTopics answered
        return real(*args, **kwargs)

    monkeypatch.setattr(streams, "topics_deleted", interrupted_once)
    made = make(("app3", "app4"))
    admin = admin_for(made.address, timeout_s=5)
    try:
        rows, failures, interrupted = streams.delete_with_internal_topics(admin, ["app3", "app4"])
    except KeyboardInterrupt:
        pytest.fail("the Ctrl-C escaped delete_with_internal_topics: no row was said")
    finally:
        admin.close()
        made.close()
    assert interrupted == "SIGINT" and failures == []
    asked = [r["topics"] for k, r in made.requests if k == DELETE_TOPICS_KEY]
    assert [sorted(t) for t in asked] == [sorted([rep("app3"), chl("app3")])]
    by_group = {r["group"]: r for r in rows}
    said = {g: {t["topic"]: t["status"] for t in r["internal_topics"]} for g, r in by_group.items()}
    assert said == {
        "app3": dict.fromkeys((rep("app3"), chl("app3")), "deleted"),
        "app4": dict.fromkeys((rep("app4"), chl("app4")), "not_deleted"),
    }
    assert sorted(by_group["app3"]["deleted_topics"]) == sorted([rep("app3"), chl("app3")])
    assert "interrupted before asking" in by_group["app4"]["message"]


def test_deleted_topics_come_from_the_statuses_alone() -> None:
    """One source of truth: a group's `deleted_topics` (JSON and outcome) is what its topic
    statuses say, and the JSON's `internal_topics` is TopicsDeleted.listed()."""
    from kgroup.render.reset import execution_output
    from kgroup.reset.apply import ExecutionReport, GroupOutcome
    from kgroup.reset.model import GroupPlan
    from kgroup.reset.streams import TopicsDeleted

    topics = TopicsDeleted({"a-x-changelog": "deleted", "a-y-repartition": "unknown"})
    outcome = GroupOutcome("a", "committed", internal_topics=topics)
    assert outcome.deleted_topics == ("a-x-changelog",)
    plan = GroupPlan("a", (), "to earliest", delete_topics=("a-x-changelog", "a-y-repartition"))
    (document,) = execution_output([plan], ExecutionReport([outcome])).document["groups"]
    assert document["deleted_topics"] == ["a-x-changelog"]
    assert document["internal_topics"] == [
        {"topic": "a-x-changelog", "status": "deleted"},
        {"topic": "a-y-repartition", "status": "unknown"},
    ]
