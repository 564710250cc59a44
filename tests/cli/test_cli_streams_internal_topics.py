"""What becomes of a streams group's internal topics once kgroup deletes them, per topic:
`reset-offsets --delete-all-internal-topics --execute` and `delete --delete-all-internal-topics`
through a real `kgroup` process against the scripted cluster of tests/unit/wire/fakeshare.py
(no Kafka here: DeleteTopics answers follow Kafka's DeleteTopicsResponse JSON).

- A Ctrl-C or SIGTERM while the topics are being deleted (the offsets committed and read back)
  ended the run without the per-group report: SIGTERM's handler was restored before the
  deletion (the process died, -15), Ctrl-C left a bare "interrupted". Now the report says the
  committed outcome, its backup and undo command, which topics were deleted, not deleted or
  left unknown, and the run exits 130 / 143.
- Internal topics already gone (UNKNOWN_TOPIC_OR_PARTITION from DeleteTopics, or missing from
  the metadata) were passed over in silence (or in a note of the message only): each topic now
  has a status, `already_gone` among them, in the table and the JSON; not a failure.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

from kgroup.core.wire.error_codes import UNKNOWN_TOPIC_OR_PARTITION
from tests.cli.test_cli_reset_fence import kgroup_env
from tests.helpers import run_kgroup
from tests.unit.wire.fakeshare import DELETE_TOPICS_KEY, FakeStreamsGroup, ShareCluster

GROUPS = ("app3", "app4", "app5")


def rep(group: str) -> str:
    return f"{group}-STORE-repartition"


def chl(group: str) -> str:
    return f"{group}-STORE-changelog"


def make(groups: tuple[str, ...] = GROUPS, missing: tuple[str, ...] = (), **extra) -> ShareCluster:
    topics = {"orders": 2} | {t: 1 for g in groups for t in (rep(g), chl(g))}
    return ShareCluster(
        topics={t: n for t, n in topics.items() if t not in missing},
        offsets={g: {("orders", 0): 5, ("orders", 1): 5} for g in groups},
        streams_groups={
            g: FakeStreamsGroup(
                subtopologies={"0": ("orders",), "1": ()},
                repartition_sinks={"0": (rep(g),)},
                repartition_sources={"1": (rep(g),)},
                changelogs={"1": (chl(g),)},
            )
            for g in groups
        },
        **extra,
    )


def deletes(cluster: ShareCluster) -> list[list[str]]:
    return [r["topics"] for key, r in cluster.requests if key == DELETE_TOPICS_KEY]


def statuses(document: dict) -> dict[str, str]:
    return {t["topic"]: t["status"] for t in document["internal_topics"]}


def kgroup(cluster: ShareCluster, tmp_path, *args: str, expect: int = 0):
    return run_kgroup(
        "-b", cluster.address, "--timeout", "10", *args,
        env={"XDG_CONFIG_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)},
        expect=expect,
    )  # fmt: skip


@pytest.fixture
def held() -> Iterator[ShareCluster]:
    made = make(hold_delete_topics=2)  # app3's topics answered, app4's request stalls
    yield made
    made.close()


def start_reset(cluster: ShareCluster, tmp_path, groups: tuple[str, ...]) -> subprocess.Popen:
    command = [sys.executable, "-m", "kgroup", "-b", cluster.address, "--timeout", "10"]
    command += ["reset-offsets", *groups, "--all-topics", "--to", "earliest"]
    command += ["--delete-all-internal-topics", "--execute", "-o", "json"]
    return subprocess.Popen(
        command, env=kgroup_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def interrupt(process: subprocess.Popen, sig: int, code: int) -> tuple[str, str]:
    process.send_signal(sig)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == code, stderr
    assert "Traceback" not in stderr, stderr
    return stdout, stderr


def group_lines(stderr: str) -> dict[str, str]:
    lines = (raw.removeprefix("kgroup: ") for raw in stderr.splitlines())
    return {line.split(":")[0]: line for line in lines if line.startswith("app")}


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupt_during_the_deletion_still_reports_each_group(
    held: ShareCluster, tmp_path, sig: int, code: int
) -> None:
    process = start_reset(held, tmp_path, GROUPS)
    assert held.delete_held.wait(30), process.communicate(timeout=5)
    stdout, stderr = interrupt(process, sig, code)
    assert deletes(held) == [[rep("app3"), chl("app3")], [rep("app4"), chl("app4")]]
    documents = {d["group"]: d for d in json.loads(stdout)["groups"]}
    assert {g: d["status"] for g, d in documents.items()} == dict.fromkeys(GROUPS, "committed")
    assert all(held.offsets[g] == {("orders", 0): 0, ("orders", 1): 0} for g in GROUPS)
    assert statuses(documents["app3"]) == {rep("app3"): "deleted", chl("app3"): "deleted"}
    assert statuses(documents["app4"]) == {rep("app4"): "unknown", chl("app4"): "unknown"}
    assert statuses(documents["app5"]) == {rep("app5"): "not_deleted", chl("app5"): "not_deleted"}
    assert documents["app3"]["deleted_topics"] == [rep("app3"), chl("app3")]
    lines = group_lines(stderr)
    for group in GROUPS:
        backup = documents[group]["backup"]
        assert backup
        assert lines[group].startswith(
            f"{group}: committed and verified; backup {backup}; "
            f"undo with: kgroup undo {group} --backup {backup}"
        ), lines[group]
    assert f"internal topics deleted: {rep('app3')}, {chl('app3')}" in lines["app3"]
    assert f"internal topics unknown whether deleted: {rep('app4')}, {chl('app4')}" in lines["app4"]
    assert f"internal topics not deleted: {rep('app5')}, {chl('app5')}" in lines["app5"]
    name = "SIGTERM" if sig == signal.SIGTERM else "SIGINT"
    assert f"interrupted ({name}) during --execute" in stderr


def test_an_interrupt_during_a_commit_deletes_no_topic(tmp_path) -> None:
    """Ctrl-C while a group's OffsetCommit hangs: that commit is unknown (all of it or none),
    the other group's is not committed, no internal topic is deleted and each says so, exit
    130. Before, the run ended in "unexpected AttributeError: 'ShareGroupFence' object has no
    attribute 'abort'" (exit 1, no report): a share or streams group's fence could not be told
    to leave.

    Both groups' commits run in worker threads, in no fixed order: the broker holds every
    OffsetCommit of app3 and app4 (holding app4's only let app3's commit finish first in about
    one run in 13), so neither is answered before the signal. The first to arrive is the
    unknown one; the other is queued behind it on the coordinator's connection, or held too.
    """
    made = make(("app3", "app4"), hold_commit_of=("app3", "app4"))
    try:
        process = start_reset(made, tmp_path, ("app3", "app4"))
        assert made.commit_held.wait(30), process.communicate(timeout=5)
        stdout, stderr = interrupt(process, signal.SIGINT, 130)
    finally:
        made.close()
    first = made.commits_held[0]
    (other,) = {"app3", "app4"} - {first}
    assert deletes(made) == []
    documents = {d["group"]: d for d in json.loads(stdout)["groups"]}
    lines = group_lines(stderr)
    assert documents[first]["status"] == "unknown"
    assert lines[first].startswith(
        f"{first}: unknown whether committed (all of it or none); backup "
    )
    # The other group: "unknown" once its OffsetCommit was sent (queued behind the held one, or
    # held itself), else "interrupted" (stopped before its commit, nothing written); never
    # "committed", since the broker answers no commit of either group before the signal.
    if documents[other]["status"] == "unknown" or other in made.commits_held:
        assert documents[other]["status"] == "unknown"
        assert lines[other].startswith(f"{other}: unknown whether committed (all of it or none)")
    else:
        assert documents[other]["status"] == "interrupted", documents[other]
        assert lines[other].startswith(f"{other}: not committed (interrupted): nothing changed")
    for group in ("app3", "app4"):
        assert statuses(documents[group]) == dict.fromkeys((rep(group), chl(group)), "not_deleted")


def test_reset_says_which_internal_topics_were_already_gone(tmp_path) -> None:
    """app3's changelog is missing from the metadata; its repartition topic goes between the
    plan and DeleteTopics (UNKNOWN_TOPIC_OR_PARTITION): both already gone, exit 0."""
    made = make(("app3",), missing=(chl("app3"),))
    made.delete_topic_errors[rep("app3")] = UNKNOWN_TOPIC_OR_PARTITION
    try:
        args = ("reset-offsets", "app3", "--all-topics", "--to", "earliest")
        args += ("--delete-all-internal-topics", "--execute")
        result = kgroup(made, tmp_path, *args, "-o", "json")
        table = kgroup(made, tmp_path, *args)
    finally:
        made.close()
    (done,) = json.loads(result.stdout)["groups"]
    assert done["status"] == "committed"
    assert statuses(done) == {rep("app3"): "already_gone", chl("app3"): "already_gone"}
    assert done["deleted_topics"] == []
    assert deletes(made)[0] == [rep("app3")]  # a topic the metadata lacks is not asked for
    assert f"already gone: {rep('app3')}, {chl('app3')}" in table.stdout.replace("\n", " ")


def test_delete_says_which_internal_topics_were_already_gone(tmp_path) -> None:
    made = make(("app3",), missing=(chl("app3"),))
    made.delete_topic_errors[rep("app3")] = UNKNOWN_TOPIC_OR_PARTITION
    try:
        result = kgroup(
            made, tmp_path, "delete", "app3", "--delete-all-internal-topics", "-o", "json"
        )
    finally:
        made.close()
    (row,) = json.loads(result.stdout)["groups"]
    assert (row["status"], row["deleted_topics"]) == ("deleted", [])
    assert statuses(row) == {rep("app3"): "already_gone", chl("app3"): "already_gone"}
    assert f"already gone: {rep('app3')}, {chl('app3')}" in row["message"]
    assert deletes(made) == [[rep("app3")]]


def test_delete_table_lists_deleted_and_gone_topics(tmp_path) -> None:
    made = make(("app3",), missing=(chl("app3"),))
    try:
        result = kgroup(made, tmp_path, "delete", "app3", "--delete-all-internal-topics")
    finally:
        made.close()
    flat = " ".join(result.stdout.split())
    assert f"deleted internal topics {rep('app3')}" in flat
    assert f"already gone: {chl('app3')}" in flat


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupt_while_delete_removes_internal_topics_still_reports_the_groups(
    tmp_path, sig: int, code: int
) -> None:
    """The groups are deleted first, then their topics: an interrupt while app4's DeleteTopics
    hangs said nothing of the deleted groups (SIGTERM killed the process, -15)."""
    made = make(("app3", "app4"), hold_delete_topics=2)
    try:
        command = [sys.executable, "-m", "kgroup", "-b", made.address, "--timeout", "10"]
        command += ["delete", "app3", "app4", "--delete-all-internal-topics", "-o", "json"]
        process = subprocess.Popen(
            command, env=kgroup_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        assert made.delete_held.wait(30), process.communicate(timeout=5)
        stdout, stderr = interrupt(process, sig, code)
    finally:
        made.close()
    rows = {r["group"]: r for r in json.loads(stdout)["groups"]}
    assert {g: r["status"] for g, r in rows.items()} == {"app3": "deleted", "app4": "deleted"}
    assert statuses(rows["app3"]) == dict.fromkeys((rep("app3"), chl("app3")), "deleted")
    assert statuses(rows["app4"]) == dict.fromkeys((rep("app4"), chl("app4")), "unknown")
    assert "unknown whether deleted" in rows["app4"]["message"]
    name = "SIGTERM" if sig == signal.SIGTERM else "SIGINT"
    assert f"interrupted ({name}) while deleting internal topics" in stderr


def test_a_deletion_not_confirmed_in_time_is_unknown_not_said_not_deleted(tmp_path) -> None:
    """DeleteTopics' REQUEST_TIMED_OUT: the controller started the deletion and did not see it
    complete within the request's timeout (DeleteTopicsRequest's `timeout_ms`); it may still
    complete. The topic was `not_deleted` and the message said "not deleted: ... may still
    complete"; it is `unknown`, still exit 1 (kgroup cannot vouch for it)."""
    made = make(("app3",))
    made.delete_topic_errors[chl("app3")] = 7  # REQUEST_TIMED_OUT
    try:
        result = kgroup(
            made, tmp_path, "delete", "app3", "--delete-all-internal-topics", "-o", "json",
            expect=1,
        )  # fmt: skip
    finally:
        made.close()
    (row,) = json.loads(result.stdout)["groups"]
    assert statuses(row) == {rep("app3"): "deleted", chl("app3"): "unknown"}
    assert "not deleted" not in row["message"]
    assert f"unknown whether deleted: the deletion of topic {chl('app3')}" in row["message"]


def test_a_deletion_whose_answer_was_lost_is_unknown_not_said_not_deleted(tmp_path) -> None:
    """The controller deleted the topics, then the connection closed before its answer: kgroup
    cannot know, and said `not_deleted` ("not deleted: ..."), telling the operator to delete
    topics that are gone. They are `unknown`, exit 1 still."""
    made = make(("app3",), drop_delete_topics_answer=True)
    try:
        result = kgroup(
            made, tmp_path, "--timeout", "3", "delete", "app3", "--delete-all-internal-topics",
            "-o", "json", expect=None,
        )  # fmt: skip
    finally:
        made.close()
    assert result.code == 1, result.stderr
    assert rep("app3") not in made.topics  # Kafka did delete them
    (row,) = json.loads(result.stdout)["groups"]
    assert statuses(row) == {rep("app3"): "unknown", chl("app3"): "unknown"}
    assert "not deleted" not in row["message"]
    assert (
        f"unknown whether deleted: DeleteTopics for {rep('app3')}, {chl('app3')} was sent"
        in (row["message"])
    )
    assert row["message"].count("Hint:") == 1
