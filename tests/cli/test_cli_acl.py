"""ACLs told apart from absence, through a real `kgroup` process against a scripted cluster that
answers as Kafka does for a principal (alice) with Describe+Read on her groups and topic `orders`
only (tests/unit/wire/fakeacl.py): group alice-mixed has offsets on `orders` and `secret`."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.helpers import run_kgroup
from tests.unit.wire.fakeacl import AclCluster, LiveMember


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


@pytest.fixture()
def cluster() -> Iterator[AclCluster]:
    made = AclCluster(
        topics={"orders": 2, "secret": 1},
        offsets={
            "alice-mixed": {("secret", 0): 4},  # a simple group: offsets only on a hidden topic
            "alice-live": {("orders", 0): 1, ("secret", 0): 2},
        },
        hidden={"secret"},
        protocol_types={"alice-mixed": ""},
        live={
            "alice-live": (
                LiveMember("m-1", ("orders", "secret"), (("orders", (0, 1)), ("secret", (0,)))),
            )
        },
    )
    yield made
    made.close()


def kgroup(cluster: AclCluster, tmp_path, *args: str, expect: int | None = 0):
    return run_kgroup(
        "-b",
        cluster.address,
        "--timeout",
        "10",
        *args,
        env={"XDG_CONFIG_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)},
        expect=expect,
    )


def test_group_described_empty_is_not_said_to_be_missing(cluster, tmp_path) -> None:
    result = kgroup(cluster, tmp_path, "describe", "alice-mixed", "--state", "-o", "json")
    assert "does not exist" not in result.stdout + result.stderr
    document = json.loads(result.stdout)
    (group,) = document["groups"]
    assert group["group"] == "alice-mixed" and group["state"] == "Empty"


def test_unknown_group_still_exits_3_with_either_answer(cluster, tmp_path) -> None:
    result = kgroup(cluster, tmp_path, "describe", "nobody", "--state", expect=3)
    assert "not found: nobody" in result.stderr
    cluster.unknown_as_empty = True  # tansu: Empty, no protocol type, not listed
    result = kgroup(cluster, tmp_path, "describe", "nobody", "--state", expect=3)
    assert "not found: nobody" in result.stderr


def test_metadata_hiding_a_topic_is_not_authorized_not_not_found(cluster, tmp_path) -> None:
    result = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "alice-mixed",
        "--topic",
        "secret",
        "--to-earliest",
        expect=1,
    )
    line = one_line(result.stderr)
    assert "not authorized to describe topic secret" in line
    assert "Describe on Topic:secret" in line
    assert "not found" not in line
    assert cluster.named_metadata == [["secret"]]


def test_a_topic_that_does_not_exist_is_still_not_found(cluster, tmp_path) -> None:
    result = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "alice-mixed",
        "--topic",
        "nope",
        "--to-earliest",
        expect=3,
    )
    assert "not found: topic nope" in one_line(result.stderr)


def test_delete_offsets_on_a_hidden_topic_is_not_authorized(cluster, tmp_path) -> None:
    result = kgroup(
        cluster, tmp_path, "delete-offsets", "alice-mixed", "--topic", "secret", expect=1
    )
    assert "not authorized to describe topic secret" in one_line(result.stderr)


def test_hidden_offsets_shown_by_protocol_metadata_are_said(cluster, tmp_path) -> None:
    result = kgroup(cluster, tmp_path, "describe", "alice-live", "-o", "json")
    assert (
        "group alice-live: offsets on topics you may not describe are hidden (secret); "
        "ask for an ACL granting Describe on Topic:secret"
    ) in result.stderr
    (group,) = json.loads(result.stdout)["groups"]
    assert {row["topic"] for row in group["partitions"]} == {"orders"}


def test_reset_of_a_group_whose_offsets_are_all_hidden_is_not_a_new_group(
    cluster, tmp_path
) -> None:
    result = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "alice-mixed",
        "--topic",
        "orders",
        "--to-earliest",
        "-o",
        "json",
    )
    assert "does not exist" not in result.stdout + result.stderr
    assert "orders" in result.stdout
