"""The coordinator requests of the group types with APIs of their own (share groups, KIP-932;
streams groups, KIP-1071): sent and read as the generated message classes
(`kgroup.protocol.generated.wire`), a broker without the API as one error per group, and each
group's answer as its result or its error.

A request goes through a WireClient's coordinator plumbing (`WireClient._per_coordinator`): the
`work` functions here run once per coordinator, retried as the client retries them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from kgroup.core.errors import KgroupError
from kgroup.core.models import BrokerNode, GroupDescription
from kgroup.core.wire.calls import read_answer
from kgroup.core.wire.error_codes import NONE
from kgroup.core.wire.kafka_errors import Retry, coordinator_failure, group_error, unsupported_api
from kgroup.protocol.model import Api
from kgroup.protocol.runtime import Struct

T = TypeVar("T")

if TYPE_CHECKING:
    from kgroup.core.wire.client import WireClient, _GroupAnswer
    from kgroup.core.wire.connection import BrokerConnection

    class GroupAnswer(_GroupAnswer, Protocol):
        """A group's part of an answer: its id and error code (a message where the API has one)."""

    # a coordinator's check for an API; its answer for its groups
    Missing = Callable[[BrokerConnection], KgroupError | None]
    Answer = Callable[[BrokerConnection, BrokerNode, list[str]], dict[str, T | KgroupError | Retry]]


_G = TypeVar("_G", bound="GroupAnswer")


def exchange(connection: BrokerConnection, api: Api, request: Struct) -> Any:
    """`request` (a generated `<Name>Request`) sent at the version the connection speaks for
    `api`, and the generated `<Name>Response` read (bytes after it are not looked at, as Kafka's
    NetworkClient does)."""
    version = connection.version_for(api)
    assert version is not None
    requests = sys.modules[type(request).__module__]
    responses = import_module(requests.__name__.removesuffix("_request") + "_response")
    body = connection.call(api, version, requests.write(request, version))
    return read_answer(responses, body, version)


def needs(api: Api, feature: str | None, why: str, hint: str) -> Missing:
    """The check of a broker for `api`: None when it offers a version kgroup speaks, else the
    one-line error saying so (`feature`: the KIP and the Kafka that has it; `why`: what kgroup
    cannot do without it)."""

    def missing(connection: BrokerConnection) -> KgroupError | None:
        if connection.version_for(api) is not None:
            return None
        versions = ",".join(f"v{v}" for v in api.versions)
        where = f" ({feature})" if feature else ""
        return unsupported_api(
            f"broker {connection.address} does not offer {api.name} {versions}{where}, so "
            f"kgroup cannot {why}",
            hint=hint,
        )

    return missing


def guarded(missing: Missing, answer: Answer[T]) -> Answer[T]:
    """The work of one coordinator (`WireClient._per_coordinator`): the error `missing` finds
    for each group when the coordinator lacks the API, else `answer`'s results."""

    def work(
        connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, T | KgroupError | Retry]:
        unsupported = missing(connection)
        if unsupported is not None:
            return dict.fromkeys(groups, unsupported)
        return answer(connection, node, groups)

    return work


def per_coordinator(
    client: WireClient,
    group_ids: Iterable[str],
    missing: Missing,
    answer: Answer[T],
) -> dict[str, T | KgroupError]:
    """Each group's result, in the order asked: `answer` once per coordinator for its groups
    (`guarded` by `missing`), retried as `WireClient._per_coordinator` retries it."""
    wanted = list(dict.fromkeys(group_ids))
    if not wanted:
        return {}
    results, _ = client._per_coordinator(wanted, guarded(missing, answer))
    return {g: results[g] for g in wanted}


def by_group(
    answers: Iterable[_G],
    operation: str,
    ok: Callable[[_G], T],
    refusals: Mapping[int, Callable[[str], KgroupError]] | None = None,
    api: str | None = None,
) -> dict[str, T | KgroupError | Retry]:
    """Each answered group's result: `ok(group)` without an error, the refusal its code has in
    `refusals`, else its error, to retry where `api`'s rule says (`retry_policy`; without `api`:
    the rule every coordinator request shares)."""
    out: dict[str, T | KgroupError | Retry] = {}
    for group in answers:
        code, group_id = group.error_code, group.group_id
        if code == NONE:
            out[group_id] = ok(group)
        elif refusals and code in refusals:
            out[group_id] = refusals[code](group_id)
        else:
            # DeleteGroups' results carry no message (Kafka 4.1's DeleteGroupsResponse v0-v2)
            message = getattr(group, "error_message", None)
            error = group_error(code, group_id, operation, message)
            out[group_id] = coordinator_failure(code, error, api)
    return out


def describe_groups(
    client: WireClient,
    group_ids: Iterable[str],
    api: Api,
    request: Callable[[tuple[str, ...]], Struct],
    describe: Callable[[Any, BrokerNode], GroupDescription],
    missing: Missing,
    group_type: str,
) -> dict[str, GroupDescription]:
    """Describe groups of `group_type` with `api`, one `request(group ids)` per coordinator:
    each answered group as `describe` makes it, or carrying its error."""

    def answer(
        connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, GroupDescription | KgroupError | Retry]:
        described = exchange(connection, api, request(tuple(groups)))
        return by_group(described.groups, "describe", lambda group: describe(group, node))

    return client._describe_each(group_ids, guarded(missing, answer), group_type)
