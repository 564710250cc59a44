"""The wire declarations against a table transcribed from Kafka 4.1's JSON message files.

Outside reference: `clients/src/main/resources/common/message/<Name>.json` of Apache Kafka 4.1
(validVersions, flexibleVersions, and the nullableVersions / taggedVersions and tag of the
fields where a mistake changes the bytes). A declaration may stop below Kafka's newest version
(kgroup declares what it speaks) and may keep versions Kafka 4.x removed (KIP-896), but its
flexible versions and these field facts must be Kafka's. This replaces a hand-typed table of
first flexible versions that only covered the request files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgroup.protocol import definitions
from kgroup.protocol import messages as api_table
from kgroup.protocol.model import OPEN, Array, Field, Message, Struct, parse_versions
from scripts.definitions import load

# file -> (validVersions, flexibleVersions) in Kafka 4.1
KAFKA_41: dict[str, tuple[str, str]] = {
    "FetchRequest": ("4-17", "12+"),
    "FetchResponse": ("4-17", "12+"),
    "ListOffsetsRequest": ("1-10", "6+"),
    "ListOffsetsResponse": ("1-10", "6+"),
    "MetadataRequest": ("0-13", "9+"),
    "MetadataResponse": ("0-13", "9+"),
    "OffsetCommitRequest": ("2-10", "8+"),
    "OffsetCommitResponse": ("2-10", "8+"),
    "OffsetFetchRequest": ("1-10", "6+"),
    "OffsetFetchResponse": ("1-10", "6+"),
    "FindCoordinatorRequest": ("0-6", "3+"),
    "FindCoordinatorResponse": ("0-6", "3+"),
    "JoinGroupRequest": ("0-9", "6+"),
    "JoinGroupResponse": ("0-9", "6+"),
    "LeaveGroupRequest": ("0-5", "4+"),
    "LeaveGroupResponse": ("0-5", "4+"),
    "SyncGroupRequest": ("0-5", "4+"),
    "SyncGroupResponse": ("0-5", "4+"),
    "DescribeGroupsRequest": ("0-6", "5+"),
    "DescribeGroupsResponse": ("0-6", "5+"),
    "ListGroupsRequest": ("0-5", "3+"),
    "ListGroupsResponse": ("0-5", "3+"),
    "SaslHandshakeRequest": ("0-1", "none"),
    "SaslHandshakeResponse": ("0-1", "none"),
    "ApiVersionsRequest": ("0-4", "3+"),
    "ApiVersionsResponse": ("0-4", "3+"),
    "DescribeConfigsRequest": ("1-4", "4+"),
    "DescribeConfigsResponse": ("1-4", "4+"),
    "SaslAuthenticateRequest": ("0-2", "2+"),
    "SaslAuthenticateResponse": ("0-2", "2+"),
    "OffsetDeleteRequest": ("0", "none"),
    "OffsetDeleteResponse": ("0", "none"),
    "ConsumerGroupDescribeRequest": ("0-1", "0+"),
    "ConsumerGroupDescribeResponse": ("0-1", "0+"),
    "DescribeLogDirsRequest": ("1-4", "2+"),
    "DescribeLogDirsResponse": ("1-4", "2+"),
    # v0 removed in 4.0 (KIP-896): DeleteTopicsRequest.json at apache/kafka 155cc0f5
    "DeleteTopicsRequest": ("1-6", "4+"),
    "DeleteTopicsResponse": ("1-6", "4+"),
    "ResponseHeader": ("0-1", "1+"),
    # Checked against Kafka 4.1 (issue #25): apache/kafka 1636500f (DeleteGroupsRequest, v0-v2;
    # the stored 07a283ac/3ef07f0e with a v3 and an ErrorMessage are no released Kafka's files),
    # 1dff5704 (ShareGroupDescribe v1: "v0 ... removed in Apache Kafka 4.1"), 09f382cf
    # (DescribeShareGroupOffsets v0; v1 is KIP-1226, Kafka 4.2), 27a9a4a3 (DeleteShareGroupOffsets
    # per topic), 78bd2bb5 (AlterShareGroupOffsets), ed368bd5 (StreamsGroupDescribe v0, KIP-1071)
    "DeleteGroupsRequest": ("0-2", "2+"),
    "DeleteGroupsResponse": ("0-2", "2+"),
    "ShareGroupDescribeRequest": ("1", "1+"),
    "ShareGroupDescribeResponse": ("1", "1+"),
    "DescribeShareGroupOffsetsRequest": ("0", "0+"),
    "DescribeShareGroupOffsetsResponse": ("0", "0+"),
    "AlterShareGroupOffsetsRequest": ("0", "0+"),
    "AlterShareGroupOffsetsResponse": ("0", "0+"),
    "DeleteShareGroupOffsetsRequest": ("0", "0+"),
    "DeleteShareGroupOffsetsResponse": ("0", "0+"),
    "StreamsGroupDescribeRequest": ("0", "0+"),
    "StreamsGroupDescribeResponse": ("0", "0+"),
}

# A declaration added later goes here until checked against Kafka 4.1's file (then into KAFKA_41)
NOT_YET_CHECKED: set[str] = set()

# (file, field path) -> nullableVersions in Kafka 4.1
NULLABLE: dict[tuple[str, str], str] = {
    ("MetadataRequest", "Topics"): "1+",
    ("MetadataResponse", "ClusterId"): "2+",
    ("MetadataResponse", "Brokers.Rack"): "1+",
    ("MetadataResponse", "Topics.Name"): "12+",
    ("OffsetFetchRequest", "Topics"): "2-7",
    ("OffsetFetchRequest", "Groups.Topics"): "8+",
    ("OffsetFetchResponse", "Topics.Partitions.Metadata"): "0-7",
    ("OffsetCommitRequest", "GroupInstanceId"): "7+",
    ("OffsetCommitRequest", "Topics.Partitions.CommittedMetadata"): "0+",
    ("JoinGroupRequest", "GroupInstanceId"): "5+",
    ("JoinGroupRequest", "Reason"): "8+",
    ("JoinGroupResponse", "ProtocolType"): "7+",
    ("JoinGroupResponse", "ProtocolName"): "7+",
    ("JoinGroupResponse", "Members.GroupInstanceId"): "5+",
    ("SyncGroupRequest", "GroupInstanceId"): "3+",
    ("SyncGroupRequest", "ProtocolType"): "5+",
    ("SyncGroupRequest", "ProtocolName"): "5+",
    ("SyncGroupResponse", "ProtocolType"): "5+",
    ("SyncGroupResponse", "ProtocolName"): "5+",
    ("LeaveGroupRequest", "Members.GroupInstanceId"): "3+",
    ("LeaveGroupRequest", "Members.Reason"): "5+",
    ("LeaveGroupResponse", "Members.GroupInstanceId"): "3+",
    ("DescribeGroupsResponse", "Groups.Members.GroupInstanceId"): "4+",
    ("FindCoordinatorResponse", "ErrorMessage"): "1-3",
    ("DescribeConfigsRequest", "Resources.ConfigurationKeys"): "0+",
    ("DescribeConfigsResponse", "Results.ErrorMessage"): "0+",
    ("DescribeConfigsResponse", "Results.Configs.Value"): "0+",
    ("DescribeConfigsResponse", "Results.Configs.Documentation"): "0+",
    ("SaslAuthenticateResponse", "ErrorMessage"): "0+",
    ("FetchResponse", "Responses.Partitions.AbortedTransactions"): "4+",
    ("ConsumerGroupDescribeResponse", "Groups.ErrorMessage"): "0+",
    ("ConsumerGroupDescribeResponse", "Groups.Members.InstanceId"): "0+",
    ("ConsumerGroupDescribeResponse", "Groups.Members.RackId"): "0+",
    ("ConsumerGroupDescribeResponse", "Groups.Members.SubscribedTopicRegex"): "0+",
    ("DeleteTopicsRequest", "Topics.Name"): "6+",
    ("DeleteTopicsResponse", "Responses.Name"): "6+",
    ("DeleteTopicsResponse", "Responses.ErrorMessage"): "5+",
    # apache/kafka d2cdfb45, 1af943b7, 0373353f, 06a2dac2, 02ec28bd, b70a9202, 0c37e22a and
    # aiven/inkless 3382a355 (a copy of Kafka's FetchResponse.json, v0-v18+)
    ("DescribeGroupsResponse", "Groups.ErrorMessage"): "6+",
    ("FindCoordinatorResponse", "Coordinators.ErrorMessage"): "4+",
    ("MetadataRequest", "Topics.Name"): "10+",
    ("DescribeLogDirsRequest", "Topics"): "0+",
    ("DescribeConfigsResponse", "Results.Configs.Synonyms.Value"): "0+",
    ("OffsetFetchRequest", "Groups.MemberId"): "9+",
    ("OffsetFetchResponse", "Groups.Topics.Partitions.Metadata"): "8+",
    ("FetchResponse", "Responses.Partitions.Records"): "0+",
    # share and streams groups, the files named in KAFKA_41's comment
    ("ShareGroupDescribeResponse", "Groups.ErrorMessage"): "1+",
    ("ShareGroupDescribeResponse", "Groups.Members.RackId"): "1+",
    ("DescribeShareGroupOffsetsRequest", "Groups.Topics"): "0+",
    ("DescribeShareGroupOffsetsResponse", "Groups.Topics.Partitions.ErrorMessage"): "0+",
    ("DescribeShareGroupOffsetsResponse", "Groups.ErrorMessage"): "0+",
    ("AlterShareGroupOffsetsResponse", "ErrorMessage"): "0+",
    ("AlterShareGroupOffsetsResponse", "Responses.Partitions.ErrorMessage"): "0+",
    ("DeleteShareGroupOffsetsResponse", "ErrorMessage"): "0+",
    ("DeleteShareGroupOffsetsResponse", "Responses.ErrorMessage"): "0+",
    ("StreamsGroupDescribeResponse", "Groups.ErrorMessage"): "0+",
    ("StreamsGroupDescribeResponse", "Groups.Topology"): "0+",
    ("StreamsGroupDescribeResponse", "Groups.Topology.Subtopologies"): "0+",
    ("StreamsGroupDescribeResponse", "Groups.Members.InstanceId"): "0+",
    ("StreamsGroupDescribeResponse", "Groups.Members.RackId"): "0+",
    ("StreamsGroupDescribeResponse", "Groups.Members.UserEndpoint"): "0+",
}

# (file, field path) -> (tag, taggedVersions) in Kafka 4.1
TAGGED: dict[tuple[str, str], tuple[int, str]] = {
    ("ApiVersionsResponse", "SupportedFeatures"): (0, "3+"),
    ("ApiVersionsResponse", "FinalizedFeaturesEpoch"): (1, "3+"),
    ("ApiVersionsResponse", "FinalizedFeatures"): (2, "3+"),
    # a copy of Kafka's ApiVersionsResponse.json (muxun-research/kafka 05780be6, KIP-866)
    ("ApiVersionsResponse", "ZkMigrationReady"): (3, "3+"),
}

ROOT = Path(definitions.__file__).parent
WIRE = sorted(str(p.relative_to(ROOT).with_suffix("")) for p in ROOT.glob("wire/*.json"))


def _field(msg: Message, path: str) -> Field:
    fields = msg.fields
    found: Field | None = None
    for name in path.split("."):
        found = next((fd for fd in fields if fd.name == name), None)
        assert found is not None, f"{msg.name} has no field {path} (Kafka 4.1's name)"
        typ = found.type.of if isinstance(found.type, Array) else found.type
        fields = typ.fields if isinstance(typ, Struct) else ()
    assert found is not None
    return found


def _clip(bounds: tuple[int, int], msg: Message) -> tuple[int, int]:
    """A Kafka range limited to the declared versions (`N+` ends where the declaration does)."""
    lo, hi = bounds
    return max(lo, msg.valid[0]), min(hi, msg.valid[1])


@pytest.mark.parametrize("path", WIRE)
def test_each_wire_declaration_is_in_the_table_with_kafkas_versions(path: str) -> None:
    name = path.rsplit("/", 1)[1]
    spec = json.loads((ROOT / f"{path}.json").read_text())
    assert spec["source"].startswith(f"clients/src/main/resources/common/message/{name}.json")
    if name == "RequestHeader":  # ClientId's own flexibleVersions "none": checked below
        return
    if name in NOT_YET_CHECKED:
        assert name not in KAFKA_41
        return
    assert name in KAFKA_41, f"{name}: transcribe its 4.1 versions into KAFKA_41"
    valid, flexible = KAFKA_41[name]
    msg = load(path)
    assert msg.valid[1] <= parse_versions(valid)[1], f"{name} declares versions Kafka lacks"
    kafka_flexible = None if flexible == "none" else parse_versions(flexible)[0]
    assert msg.flexible_from == kafka_flexible, name


@pytest.mark.parametrize(("name", "path"), sorted(NULLABLE))
def test_nullable_versions_are_kafkas(name: str, path: str) -> None:
    msg = load(f"wire/{name}")
    fd = _field(msg, path)
    want = _clip(parse_versions(NULLABLE[(name, path)]), msg)
    assert fd.nullable is not None, f"{name}.{path} is nullable in Kafka 4.1"
    assert _clip(fd.nullable, msg) == want, f"{name}.{path}"


@pytest.mark.parametrize(("name", "path"), sorted(TAGGED))
def test_tags_are_kafkas(name: str, path: str) -> None:
    msg = load(f"wire/{name}")
    fd = _field(msg, path)
    tag, versions = TAGGED[(name, path)]
    assert fd.tag == tag, f"{name}.{path}"
    tagged = fd.tagged or (msg.flexible_from or OPEN, OPEN)
    assert _clip(tagged, msg) == _clip(parse_versions(versions), msg), f"{name}.{path}"


def _declared(spec: dict) -> list[tuple[str, dict]]:
    """(path, field) of every field of a declaration file, common structs' prefixed with theirs."""

    def walk(fields: list[dict], prefix: str) -> list[tuple[str, dict]]:
        out = []
        for fd in fields:
            out.append((prefix + fd["name"], fd))
            out += walk(fd.get("fields", []), f"{prefix}{fd['name']}.")
        return out

    common = [walk(c["fields"], f"{c['name']}.") for c in spec.get("commonStructs", [])]
    return walk(spec["fields"], "") + [row for rows in common for row in rows]


@pytest.mark.parametrize("path", [p for p in WIRE if p.rsplit("/", 1)[1] in KAFKA_41])
def test_every_nullable_or_tagged_field_declared_is_in_the_table(path: str) -> None:
    """The other way round: a field the declaration makes nullable or tagged is one Kafka's file
    makes so (a null or a tag where Kafka has none changes the bytes as much as a missing one)."""
    name = path.rsplit("/", 1)[1]
    spec = json.loads((ROOT / f"{path}.json").read_text())
    for field_path, fd in _declared(spec):
        if "nullableVersions" in fd:
            assert (name, field_path) in NULLABLE, f"{name}.{field_path}: nullable in Kafka 4.1?"
        if "tag" in fd or "taggedVersions" in fd:
            assert (name, field_path) in TAGGED, f"{name}.{field_path}: tagged in Kafka 4.1?"


def test_request_header_client_id_is_never_compact() -> None:
    fd = _field(load("wire/RequestHeader"), "ClientId")
    assert fd.flexible == parse_versions("none") and fd.nullable == parse_versions("1+")


def test_every_api_the_client_speaks_has_kafkas_flexible_versions_and_headers() -> None:
    for api in api_table.APIS.values():
        valid, flexible = KAFKA_41[f"{api.name}Request"]
        flexible_from = None if flexible == "none" else parse_versions(flexible)[0]
        assert api.flexible_from == flexible_from, api.name
        for version in api.versions:
            assert parse_versions(valid)[0] <= version or api.name in ("Fetch", "DescribeConfigs")
            is_flexible = flexible_from is not None and version >= flexible_from
            assert api.request_header_version(version) == (2 if is_flexible else 1)
            # ApiVersionsResponse keeps header v0 so that any client can read its error
            expected = 1 if is_flexible and api.name != "ApiVersions" else 0
            assert api.response_header_version(version) == expected, (api.name, version)


def test_fetch_request_uses_kafka_41_names() -> None:
    msg = load("wire/FetchRequest")
    for path in (
        "MaxWaitMs",
        "SessionEpoch",
        "Topics.Topic",
        "Topics.Partitions.Partition",
        "Topics.Partitions.PartitionMaxBytes",
        "ForgottenTopicsData.Topic",
        "ForgottenTopicsData.Partitions",
    ):
        _field(msg, path)
