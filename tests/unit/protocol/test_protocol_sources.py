"""Every declaration names the Kafka file it transcribes and the apache/kafka commit it was
compared with (issue #25 point 4), so a reader can open the same version of Kafka's file.

`source` is kgroup's key (not loaded, see kgroup.protocol.definitions): a path in the
apache/kafka repository (a JSON message file, or the Java class whose `Schema` is written
down), then the commit read, as "(apache/kafka <8+ hex digits>...)", "at apache/kafka commit
<40 hex digits>" or "the stored apache/kafka version, commit <hex digits>".
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kgroup.protocol import definitions

ROOT = Path(definitions.__file__).parent
DECLARATIONS = sorted(str(p.relative_to(ROOT))[: -len(".json")] for p in ROOT.rglob("*.json"))
KAFKA_PATH = re.compile(
    r"^(clients|group-coordinator|share-coordinator|connect/runtime)/src/main/"
    r"(resources/common/message/\w+\.json|java/org/apache/kafka/[\w/]+\.java)"
)
COMMIT = re.compile(r"apache/kafka[ \w,(]*?(commit )?[0-9a-f]{8,40}\b")

# Declarations whose layout no stored version of Kafka's file has: their source names the file
# and says why no commit. A declaration that gains a commit fails below until it leaves this set.
NO_COMMIT_YET = {
    # both stored versions read (2d484d18, b091e287) are the Topics-with-racks layout, not this
    # InitializedTopics/DeletingTopics one
    "coordinator/kafka-3.9/ShareGroupPartitionMetadataValue",
    # kgroup's earlier main declaration: no stored Kafka file has this layout (its source says so)
    "coordinator/kafka-trunk/ShareGroupStatePartitionMetadataValue",
}


# Stored apache/kafka versions that are no released Kafka's files (issue #25): 07a283ac and
# 78bd2bb5 carry a headerVersions key Kafka's message files never have (07a283ac also a
# DeleteGroups v3), 3ef07f0e the same DeleteGroups v3, 0effb0fe a ResponseHeader v2 and a
# SaslAuthenticateResponse without its ignorable flag, 33128146 an OffsetDeleteResponse v1 with
# a headerVersions key. A source may name them to say so, but never as the commit it was
# compared with (the first named).
NOT_RELEASED = {"07a283ac", "78bd2bb5", "3ef07f0e", "0effb0fe", "33128146"}


def _sources(path: str) -> list[str]:
    src = json.loads((ROOT / f"{path}.json").read_text())["source"]
    return src if isinstance(src, list) else [src]


def test_there_are_declarations() -> None:
    assert len(DECLARATIONS) > 100


@pytest.mark.parametrize("path", DECLARATIONS)
def test_each_declaration_names_a_kafka_file(path: str) -> None:
    for src in _sources(path):
        assert KAFKA_PATH.match(src), f"{path}: source {src!r} names no file of apache/kafka"


@pytest.mark.parametrize("path", DECLARATIONS)
def test_each_declaration_names_the_kafka_commit_it_was_compared_with(path: str) -> None:
    named = all(COMMIT.search(src) for src in _sources(path))
    if path in NO_COMMIT_YET:
        assert not named, f"{path} names its commit now: remove it from NO_COMMIT_YET"
        return
    assert named, (
        f"{path}: its source names no apache/kafka commit; read Kafka's file (one stored "
        "version) and add '(apache/kafka <commit>)' after the path"
    )


def test_a_source_without_a_commit_fails() -> None:
    assert not COMMIT.search("clients/src/main/resources/common/message/FetchRequest.json")
    assert COMMIT.search("x.json (apache/kafka 6541f940)")
    assert COMMIT.search("x.json (the stored apache/kafka version, commit 1b9e7a6d25ad83bc)")
    assert COMMIT.search("x.json at apache/kafka commit 25002b6a64b07c60e5777685732620ad6df6bbd5")


@pytest.mark.parametrize("path", DECLARATIONS)
def test_no_declaration_was_compared_with_a_stored_file_kafka_never_released(path: str) -> None:
    for src in _sources(path):
        found = COMMIT.search(src)
        compared = found.group(0).split()[-1][:8] if found else ""
        assert compared not in NOT_RELEASED, f"{path}: compared with {compared}, not Kafka's file"
