"""The wire calls ask the declarations which versions have a field (issue #25).

Where kgroup/core/wire/*_calls.py used to restate a declaration's range (`with_ids = version >=
10`), it now asks kgroup.protocol.fields. Two kinds of test:

- agreement: at every version the generated module can write, what kgroup sends or returns
  follows the range that the JSON declaration (kgroup/protocol/definitions/wire/, read here with
  the declaration loader, not the generated table) gives the field;
- the mechanism: with the table's range moved in a test copy, the request is built, or the answer
  read, by the moved range (a restated `version >= N` would ignore it).

The bytes themselves are pinned by test_wire_messages.py's hand-written vectors.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kgroup.core.wire import cluster_calls, group_calls, offset_calls
from kgroup.core.wire.calls import read_answer
from kgroup.core.wire.convert import topic_id_text
from kgroup.core.wire.results import READ_COMMITTED, READ_UNCOMMITTED
from kgroup.protocol import fields
from kgroup.protocol import messages as api_table
from kgroup.protocol.generated.field_versions import FIELD_VERSIONS
from kgroup.protocol.generated.wire import find_coordinator_request as fc_req
from kgroup.protocol.generated.wire import find_coordinator_response as fc_res
from kgroup.protocol.generated.wire import leave_group_request as lg_req
from kgroup.protocol.generated.wire import list_groups_request as lgr_req
from kgroup.protocol.generated.wire import list_groups_response as lgr_res
from kgroup.protocol.generated.wire import list_offsets_request as lo_req
from kgroup.protocol.generated.wire import metadata_request as md_req
from kgroup.protocol.generated.wire import metadata_response as md_res
from kgroup.protocol.generated.wire import offset_fetch_request as of_req
from kgroup.protocol.generated.wire import offset_fetch_response as of_res
from kgroup.protocol.model import Array, Struct
from scripts.definitions import load

UUID = bytes(range(1, 17))


def declared(message: str, path: str, version: int) -> bool:
    """Whether the JSON declaration `wire/<message>` gives `path` at `version`."""
    msg = load(f"wire/{message}")
    found = msg.fields
    for i, name in enumerate(path.split(".")):
        fd = next(x for x in found if x.name == name)
        if i < path.count("."):
            inner = fd.type.of if isinstance(fd.type, Array) else fd.type
            assert isinstance(inner, Struct)
            found = inner.fields
    return fd.versions[0] <= version <= fd.versions[1]


def versions(module: object) -> range:
    low, high = module.VALID  # type: ignore[attr-defined]
    return range(low, high + 1)


# --- the table and the helper ---------------------------------------------------------------


def test_table_holds_every_wire_declaration_range() -> None:
    for message, table in FIELD_VERSIONS.items():
        low, high = load(f"wire/{message}").valid
        for path in table:
            for v in range(low, high + 1):
                assert fields.has_field(message, path, v) == declared(message, path, v), (
                    message,
                    path,
                    v,
                )


def test_has_field_names_an_unknown_field() -> None:
    with pytest.raises(KeyError):
        fields.has_field("OffsetFetchRequest", "NoSuchField", 8)


# --- agreement with the declarations, version by version ------------------------------------


@pytest.mark.parametrize("version", api_table.METADATA.versions)
def test_metadata_request_turns_auto_creation_off_where_declared(version: int) -> None:
    sent = md_req.read(cluster_calls.encode_metadata_request(version), version)
    has = declared("MetadataRequest", "AllowAutoTopicCreation", version)
    assert sent.allow_auto_topic_creation is (not has)


@pytest.mark.parametrize("version", versions(md_res))
def test_metadata_response_topic_id_where_declared(version: int) -> None:
    has = declared("MetadataResponse", "Topics.TopicId", version)
    topic = md_res.MetadataResponseTopic(name="t", topic_id=UUID if has else bytes(16))
    body = md_res.write(md_res.MetadataResponse(topics=(topic,)), version)
    (got,) = read_answer(md_res, body, version).topics
    # kgroup's topic id (BrokerPool.topics): none where the version has no TopicId
    assert topic_id_text(got.topic_id) == (topic_id_text(UUID) if has else None)
    assert topic_id_text(UUID) == "AQIDBAUGBwgJCgsMDQ4PEA"


@pytest.mark.parametrize("version", versions(fc_req))
def test_find_coordinator_request_keys_where_declared(version: int) -> None:
    many = declared("FindCoordinatorRequest", "CoordinatorKeys", version)
    sent = fc_req.read(group_calls.encode_find_coordinator_request(version, ["g"]), version)
    assert (sent.coordinator_keys, sent.key) == ((("g",), "") if many else ((), "g"))
    if not many:
        with pytest.raises(ValueError, match="exactly one key"):
            group_calls.encode_find_coordinator_request(version, ["g", "h"])


@pytest.mark.parametrize("version", versions(fc_res))
def test_find_coordinator_response_read_where_declared(version: int) -> None:
    if declared("FindCoordinatorResponse", "Coordinators", version):
        d = fc_res.FindCoordinatorResponse(
            coordinators=(fc_res.Coordinator(key="g", node_id=3, host="h", port=9),)
        )
    else:
        d = fc_res.FindCoordinatorResponse(node_id=3, host="h", port=9)
    (got,) = group_calls.decode_find_coordinator_response(fc_res.write(d, version), version, ["g"])
    assert (got.key, got.node_id, got.host, got.port) == ("g", 3, "h", 9)


@pytest.mark.parametrize("version", versions(lg_req))
def test_leave_group_names_the_member_where_declared(version: int) -> None:
    sent = lg_req.read(group_calls.encode_leave_group_request(version, "g", "m"), version)
    if declared("LeaveGroupRequest", "Members", version):
        assert ([x.member_id for x in sent.members], sent.member_id) == (["m"], "")
    else:
        assert (sent.members, sent.member_id) == ((), "m")


@pytest.mark.parametrize("version", versions(lgr_req))
def test_list_groups_filters_where_declared(version: int) -> None:
    body = group_calls.encode_list_groups_request(version, ["Stable", "Empty"], ["consumer"])
    sent = lgr_req.read(body, version)
    states = declared("ListGroupsRequest", "StatesFilter", version)
    types = declared("ListGroupsRequest", "TypesFilter", version)
    assert sent.states_filter == (("Empty", "Stable") if states else ())
    assert sent.types_filter == (("consumer",) if types else ())


@pytest.mark.parametrize("version", versions(lgr_res))
def test_list_groups_state_and_type_where_declared(version: int) -> None:
    state = declared("ListGroupsResponse", "Groups.GroupState", version)
    kind = declared("ListGroupsResponse", "Groups.GroupType", version)
    group = lgr_res.ListedGroup(
        group_id="g",
        protocol_type="consumer",
        **({"group_state": "Stable"} if state else {}),
        **({"group_type": "consumer"} if kind else {}),
    )
    body = lgr_res.write(lgr_res.ListGroupsResponse(groups=(group,)), version)
    (got,) = read_answer(lgr_res, body, version).groups
    # "" where the version lacks the field: WireClient.list_groups takes it as Unknown, classic
    expected = ("Stable" if state else "", "consumer" if kind else "")
    assert (got.group_state, got.group_type) == expected


@pytest.mark.parametrize("version", api_table.LIST_OFFSETS.versions)
def test_list_offsets_isolation_where_declared(version: int) -> None:
    topics = [("t", [(0, -1)])]
    if declared("ListOffsetsRequest", "IsolationLevel", version):
        body = offset_calls.encode_list_offsets_request(version, topics, READ_COMMITTED)
        assert lo_req.read(body, version).isolation_level == READ_COMMITTED
    else:
        with pytest.raises(ValueError, match="no isolation level"):
            offset_calls.encode_list_offsets_request(version, topics, READ_COMMITTED)
        offset_calls.encode_list_offsets_request(version, topics, READ_UNCOMMITTED)


@pytest.mark.parametrize("version", api_table.OFFSET_FETCH.versions)  # v0-v1: no null Topics
def test_offset_fetch_request_where_declared(version: int) -> None:
    sent = of_req.read(offset_calls.encode_offset_fetch_request(version, ["g"], True), version)
    if declared("OffsetFetchRequest", "Groups", version):
        assert ([g.group_id for g in sent.groups], sent.group_id) == (["g"], "")
    else:
        assert (sent.groups, sent.group_id) == ((), "g")
        with pytest.raises(ValueError, match="exactly one group"):
            offset_calls.encode_offset_fetch_request(version, ["g", "h"])
    assert sent.require_stable is declared("OffsetFetchRequest", "RequireStable", version)


@pytest.mark.parametrize("version", versions(of_res))
def test_offset_fetch_response_read_where_declared(version: int) -> None:
    if declared("OffsetFetchResponse", "Groups", version):
        partition = of_res.OffsetFetchResponsePartitions(partition_index=1, committed_offset=5)
        topic = of_res.OffsetFetchResponseTopics(name="t", partitions=(partition,))
        d = of_res.OffsetFetchResponse(groups=(of_res.OffsetFetchResponseGroup("g", (topic,)),))
    else:
        old = of_res.OffsetFetchResponsePartition(partition_index=1, committed_offset=5)
        d = of_res.OffsetFetchResponse(topics=(of_res.OffsetFetchResponseTopic("t", (old,)),))
    (got,) = offset_calls.decode_offset_fetch_response(of_res.write(d, version), version, ["g"])
    assert got.group_id == "g"
    assert [(x.topic, x.partition, x.offset) for x in got.partitions] == [("t", 1, 5)]


# --- the mechanism: a moved range moves kgroup's behaviour ----------------------------------


def _moved(monkeypatch: pytest.MonkeyPatch, message: str, field: str, low: int) -> None:
    """The table as if `message`'s `field` existed from `low` on (a test copy)."""
    table = dict(FIELD_VERSIONS[message])
    table[field] = (low, table[field][1])
    monkeypatch.setitem(FIELD_VERSIONS, message, table)


def _require_stable_v7() -> object:
    return of_req.read(offset_calls.encode_offset_fetch_request(7, ["g"], True), 7).require_stable


def _auto_create_v4() -> object:
    return md_req.read(cluster_calls.encode_metadata_request(4), 4).allow_auto_topic_creation


def _types_filter_v5() -> object:
    body = group_calls.encode_list_groups_request(5, [], ["consumer"])
    return lgr_req.read(body, 5).types_filter


def _states_filter_v4() -> object:
    return lgr_req.read(group_calls.encode_list_groups_request(4, ["Stable"]), 4).states_filter


def _isolation_v2() -> object:
    try:
        body = offset_calls.encode_list_offsets_request(2, [("t", [(0, -1)])], READ_COMMITTED)
    except ValueError as e:
        return str(e)
    return lo_req.read(body, 2).isolation_level


def _leave_v3() -> object:
    try:
        return lg_req.read(group_calls.encode_leave_group_request(3, "g", "m"), 3).member_id
    except Exception as e:  # the writer refuses MemberId where v3 lacks it
        return type(e).__name__


def _find_coordinator_v4() -> object:
    try:
        return fc_req.read(group_calls.encode_find_coordinator_request(4, ["g"]), 4).key
    except Exception as e:  # the writer refuses Key where v4 lacks it
        return type(e).__name__


def _offset_fetch_groups_v8() -> object:
    try:
        return of_req.read(offset_calls.encode_offset_fetch_request(8, ["g"]), 8).group_id
    except Exception as e:  # the writer refuses GroupId where v8 lacks it
        return type(e).__name__


def _offset_fetch_response_v8() -> object:
    partition = of_res.OffsetFetchResponsePartitions(partition_index=0, committed_offset=5)
    topic = of_res.OffsetFetchResponseTopics(name="t", partitions=(partition,))
    group = of_res.OffsetFetchResponseGroup("g", (topic,))
    body = of_res.write(of_res.OffsetFetchResponse(groups=(group,)), 8)
    (got,) = offset_calls.decode_offset_fetch_response(body, 8, ["asked"])
    return got.group_id, len(got.partitions)  # read as the pre-v8 shape: the asked group


def _find_coordinator_response_v4() -> object:
    coordinator = fc_res.Coordinator(key="x", node_id=3, host="h", port=9)
    body = fc_res.write(fc_res.FindCoordinatorResponse(coordinators=(coordinator,)), 4)
    return group_calls.decode_find_coordinator_response(body, 4, ["g"])[0].key


def _delete_topics_v5() -> object:
    from kgroup.core.wire.delete_topics import encode_delete_topics_request
    from kgroup.protocol.generated.wire import delete_topics_request as dt_req

    try:
        return dt_req.read(encode_delete_topics_request(5, ["t"], 1000), 5).topic_names
    except Exception as e:  # the writer refuses Topics where v5 lacks it
        return type(e).__name__


MOVED: list[tuple[str, str, int, Callable[[], object], object, object]] = [
    # message, field, its first version in the test copy, what kgroup does, before, after
    ("OffsetFetchRequest", "RequireStable", 8, _require_stable_v7, True, False),
    ("MetadataRequest", "AllowAutoTopicCreation", 5, _auto_create_v4, False, True),
    ("ListGroupsRequest", "TypesFilter", 6, _types_filter_v5, ("consumer",), ()),
    ("ListGroupsRequest", "StatesFilter", 5, _states_filter_v4, ("Stable",), ()),
    (
        "ListOffsetsRequest",
        "IsolationLevel",
        3,
        _isolation_v2,
        READ_COMMITTED,
        "ListOffsets v2 has no isolation level",
    ),
    ("LeaveGroupRequest", "Members", 4, _leave_v3, "", "ProtocolWriteError"),
    (
        "FindCoordinatorRequest",
        "CoordinatorKeys",
        5,
        _find_coordinator_v4,
        "",
        "ProtocolWriteError",
    ),
    ("FindCoordinatorResponse", "Coordinators", 5, _find_coordinator_response_v4, "x", "g"),
    ("OffsetFetchRequest", "Groups", 9, _offset_fetch_groups_v8, "", "ProtocolWriteError"),
    ("DeleteTopicsRequest", "Topics", 5, _delete_topics_v5, ("t",), "ProtocolWriteError"),
    ("OffsetFetchResponse", "Groups", 9, _offset_fetch_response_v8, ("g", 1), ("asked", 0)),
]


@pytest.mark.parametrize(("message", "field", "low", "act", "before", "after"), MOVED)
def test_a_moved_range_moves_what_kgroup_does(
    monkeypatch: pytest.MonkeyPatch,
    message: str,
    field: str,
    low: int,
    act: Callable[[], object],
    before: object,
    after: object,
) -> None:
    assert act() == before
    _moved(monkeypatch, message, field, low)
    assert act() == after


# --- the client's own checks: ListOffsets' read_committed, ListGroups' group type -------------


def _last_stable_on_list_offsets_v2() -> str:
    from kgroup.core.errors import KafkaOperationError
    from kgroup.core.wire.client import LAST_STABLE, WireClient
    from tests.unit.wire.fakebroker import FULL_VERSIONS
    from tests.unit.wire.test_wire_offsets import T0, Cluster

    offered = dict(FULL_VERSIONS)
    offered[api_table.LIST_OFFSETS.key] = (0, 2)
    cluster = Cluster(offered)
    try:
        with WireClient(cluster.config()) as client:
            (stable,) = client.list_offsets([T0], [LAST_STABLE])
            return f"offset {stable[T0].offset}"
    except KafkaOperationError as e:
        return e.message
    finally:
        cluster.close()


def test_read_committed_refused_where_the_declaration_lacks_isolation_level(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _last_stable_on_list_offsets_v2() == "offset 15"
    _moved(monkeypatch, "ListOffsetsRequest", "IsolationLevel", 3)
    assert _last_stable_on_list_offsets_v2().endswith(
        "offers ListOffsets v2 at most, which cannot read the last stable offset "
        "(read_committed needs v3)"
    )
