"""Requests of the group APIs kgroup sends: FindCoordinator, DescribeGroups,
ConsumerGroupDescribe, JoinGroup, SyncGroup, LeaveGroup and ListGroups (sorted filters, one key
before FindCoordinator v4), and the answers kgroup reads its own way (FindCoordinator's
coordinators by key, LeaveGroup's first error); the others are read as
their generated classes (`calls.read_answer`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kgroup.core.wire import results as res
from kgroup.core.wire.frames import translated
from kgroup.protocol.fields import has_field
from kgroup.protocol.runtime import Readable

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


# --- ConsumerGroupDescribe ------------------------------------------------------------------------


def encode_consumer_group_describe_request(version: int, group_ids: Sequence[str]) -> bytes:
    from kgroup.protocol.generated.wire import consumer_group_describe_request as cgd_req

    return cgd_req.write(cgd_req.ConsumerGroupDescribeRequest(tuple(group_ids)), version)


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
