"""Requests and answers of the group APIs kgroup sends: FindCoordinator, DescribeGroups,
ConsumerGroupDescribe, JoinGroup, SyncGroup, LeaveGroup and ListGroups (sorted filters, one key
before FindCoordinator v4)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from kgroup.core.wire import results as res
from kgroup.core.wire.frames import translated
from kgroup.protocol.fields import has_field
from kgroup.protocol.runtime import Readable

if TYPE_CHECKING:
    from kgroup.protocol.generated.wire import consumer_group_describe_response as cgd_res

# The generated message modules are imported where they are used: a command loads only the
# messages it sends (`kgroup describe` half a dozen of the 19 APIs).


# --- FindCoordinator ------------------------------------------------------------------------------


def encode_find_coordinator_request(version: int, keys: Sequence[str]) -> bytes:
    """CoordinatorKeys (v4+, KIP-699) carries many keys; Key (v0-v3) exactly one."""
    from kgroup.protocol.generated.wire import find_coordinator_request as fc_req

    if has_field("FindCoordinatorRequest", "CoordinatorKeys", version):
        request = fc_req.FindCoordinatorRequest(
            key_type=res.KEY_TYPE_GROUP, coordinator_keys=tuple(keys)
        )
    else:
        if len(keys) != 1:
            raise ValueError(f"FindCoordinator v{version} takes exactly one key")
        request = fc_req.FindCoordinatorRequest(key=keys[0], key_type=res.KEY_TYPE_GROUP)
    return fc_req.write(request, version)


@translated
def decode_find_coordinator_response(
    body: bytes, version: int, keys: Sequence[str]
) -> list[res.CoordinatorResult]:
    from kgroup.protocol.generated.wire import find_coordinator_response as fc_res

    d = fc_res.read_from(Readable(body), version)
    if has_field("FindCoordinatorResponse", "Coordinators", version):
        return [
            res.CoordinatorResult(c.key, c.node_id, c.host, c.port, c.error_code, c.error_message)
            for c in d.coordinators
        ]
    return [
        res.CoordinatorResult(keys[0], d.node_id, d.host, d.port, d.error_code, d.error_message)
    ]


# --- DescribeGroups -------------------------------------------------------------------------------


def encode_describe_groups_request(version: int, group_ids: Sequence[str]) -> bytes:
    from kgroup.protocol.generated.wire import describe_groups_request as dg_req

    return dg_req.write(dg_req.DescribeGroupsRequest(tuple(group_ids)), version)


@translated
def decode_describe_groups_response(body: bytes, version: int) -> list[res.DescribedGroup]:
    from kgroup.protocol.generated.wire import describe_groups_response as dg_res

    d = dg_res.read_from(Readable(body), version)
    # kgroup's None for "not sent" (the class holds INT32_MIN)
    with_operations = has_field("DescribeGroupsResponse", "Groups.AuthorizedOperations", version)
    return [
        res.DescribedGroup(
            g.error_code,
            g.group_id,
            g.group_state,
            g.protocol_type,
            g.protocol_data,
            [
                res.DescribedMember(
                    x.member_id,
                    x.group_instance_id,
                    x.client_id,
                    x.client_host,
                    x.member_metadata,
                    x.member_assignment,
                )
                for x in g.members
            ],
            g.authorized_operations if with_operations else None,
        )
        for g in d.groups
    ]


# --- ConsumerGroupDescribe ------------------------------------------------------------------------


def encode_consumer_group_describe_request(version: int, group_ids: Sequence[str]) -> bytes:
    from kgroup.protocol.generated.wire import consumer_group_describe_request as cgd_req

    return cgd_req.write(cgd_req.ConsumerGroupDescribeRequest(tuple(group_ids)), version)


def _pairs(assignment: cgd_res.Assignment) -> tuple[tuple[str, int], ...]:
    return tuple(
        sorted(
            (t.topic_name, partition)
            for t in assignment.topic_partitions
            for partition in t.partitions
        )
    )


@translated
def decode_consumer_group_describe_response(
    body: bytes, version: int
) -> list[res.ConsumerGroupDescribed]:
    from kgroup.protocol.generated.wire import consumer_group_describe_response as cgd_res

    d = cgd_res.read_from(Readable(body), version)
    return [
        res.ConsumerGroupDescribed(
            error_code=g.error_code,
            error_message=g.error_message,
            group_id=g.group_id,
            state=g.group_state,
            group_epoch=g.group_epoch,
            assignment_epoch=g.assignment_epoch,
            assignor=g.assignor_name,
            members=tuple(
                res.ConsumerGroupMember(
                    member_id=x.member_id,
                    instance_id=x.instance_id,
                    rack_id=x.rack_id,
                    member_epoch=x.member_epoch,
                    client_id=x.client_id,
                    client_host=x.client_host,
                    subscribed_topic_names=x.subscribed_topic_names,
                    subscribed_topic_regex=x.subscribed_topic_regex,
                    assignment=_pairs(x.assignment),
                    target_assignment=_pairs(x.target_assignment),
                    member_type=x.member_type,
                )
                for x in g.members
            ),
        )
        for g in d.groups
    ]


# --- JoinGroup, SyncGroup, LeaveGroup -------------------------------------------------------------


def encode_join_group_request(
    version: int,
    group_id: str,
    member_id: str,
    *,
    session_timeout_ms: int,
    rebalance_timeout_ms: int,
    protocol_type: str,
    protocols: Sequence[tuple[str, bytes]],
    reason: str | None = None,
) -> bytes:
    from kgroup.protocol.generated.wire import join_group_request as jg_req

    request = jg_req.JoinGroupRequest(
        group_id=group_id,
        session_timeout_ms=session_timeout_ms,
        rebalance_timeout_ms=rebalance_timeout_ms,
        member_id=member_id,
        group_instance_id=None,
        protocol_type=protocol_type,
        protocols=tuple(jg_req.JoinGroupRequestProtocol(name, meta) for name, meta in protocols),
        reason=reason,
    )
    return jg_req.write(request, version)


@translated
def decode_join_group_response(body: bytes, version: int) -> res.JoinResult:
    from kgroup.protocol.generated.wire import join_group_response as jg_res

    d = jg_res.read_from(Readable(body), version)
    members = tuple((x.member_id, x.metadata) for x in d.members)
    return res.JoinResult(
        d.error_code, d.generation_id, d.protocol_name, d.leader, d.member_id, members
    )


def encode_sync_group_request(
    version: int,
    group_id: str,
    generation: int,
    member_id: str,
    *,
    protocol_type: str,
    protocol_name: str | None,
    assignments: Sequence[tuple[str, bytes]],
) -> bytes:
    from kgroup.protocol.generated.wire import sync_group_request as sg_req

    request = sg_req.SyncGroupRequest(
        group_id=group_id,
        generation_id=generation,
        member_id=member_id,
        group_instance_id=None,
        protocol_type=protocol_type,
        protocol_name=protocol_name,
        assignments=tuple(sg_req.SyncGroupRequestAssignment(mid, raw) for mid, raw in assignments),
    )
    return sg_req.write(request, version)


@translated
def decode_sync_group_response(body: bytes, version: int) -> tuple[int, bytes]:
    from kgroup.protocol.generated.wire import sync_group_response as sg_res

    d = sg_res.read_from(Readable(body), version)
    return d.error_code, d.assignment


def encode_leave_group_request(
    version: int, group_id: str, member_id: str, reason: str | None = None
) -> bytes:
    """MemberId (v0-v2) names the member; Members (v3+, KIP-345) lists members, each with a
    reason from v5 (the writer leaves it out before)."""
    from kgroup.protocol.generated.wire import leave_group_request as lg_req

    if not has_field("LeaveGroupRequest", "Members", version):
        request = lg_req.LeaveGroupRequest(group_id=group_id, member_id=member_id)
    else:
        member = lg_req.MemberIdentity(member_id=member_id, group_instance_id=None, reason=reason)
        request = lg_req.LeaveGroupRequest(group_id=group_id, members=(member,))
    return lg_req.write(request, version)


@translated
def decode_leave_group_response(body: bytes, version: int) -> int:
    """The first error: the top-level code, else the member's (v3+)."""
    from kgroup.protocol.generated.wire import leave_group_response as lg_res

    d = lg_res.read_from(Readable(body), version)
    return d.error_code or next((x.error_code for x in d.members if x.error_code), 0)


# --- ListGroups -----------------------------------------------------------------------------------


def encode_list_groups_request(
    version: int, states: Iterable[str] = (), types: Iterable[str] = ()
) -> bytes:
    """Filters where the version has them (StatesFilter v4+, KIP-518; TypesFilter v5+,
    KIP-848); older versions drop them, as the hand-written encoder did."""
    from kgroup.protocol.generated.wire import list_groups_request as lgr_req

    with_states = has_field("ListGroupsRequest", "StatesFilter", version)
    with_types = has_field("ListGroupsRequest", "TypesFilter", version)
    request = lgr_req.ListGroupsRequest(
        states_filter=tuple(sorted(states)) if with_states else (),
        types_filter=tuple(sorted(types)) if with_types else (),
    )
    return lgr_req.write(request, version)


@translated
def decode_list_groups_response(body: bytes, version: int) -> res.ListGroupsResult:
    from kgroup.protocol.generated.wire import list_groups_response as lgr_res

    d = lgr_res.read_from(Readable(body), version)
    # kgroup's None for "not sent"
    with_state = has_field("ListGroupsResponse", "Groups.GroupState", version)
    with_type = has_field("ListGroupsResponse", "Groups.GroupType", version)
    groups = [
        res.ListedGroup(
            g.group_id,
            g.protocol_type,
            g.group_state if with_state else None,
            g.group_type if with_type else None,
        )
        for g in d.groups
    ]
    return res.ListGroupsResult(d.error_code, groups)
