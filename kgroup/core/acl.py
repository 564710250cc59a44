"""Authorization told apart from absence.

Kafka hides what a principal may not Describe instead of refusing: an all-topics Metadata request
leaves such topics out, an all-topics OffsetFetch leaves their offsets out (KafkaApis
handleTopicMetadataRequest / handleOffsetFetchRequest filter by Describe on Topic), and ListGroups
lists only the groups the principal may Describe. So "not there" can mean "not yours to see":
- a group DescribeGroups reports in any state but Dead exists, even with no offsets in sight
  (Kafka answers Dead or GROUP_ID_NOT_FOUND for unknown groups). Only an Empty answer with no
  members, no protocol type and no visible offsets is ambiguous (tansu answers unknown ids so):
  ListGroups, which lists every group this principal may describe, settles it;
- a topic asked for by name that Metadata answers with TOPIC_AUTHORIZATION_FAILED is "not
  authorized to describe topic T" (exit 1, with the ACL to ask for), never "not found" (Kafka
  answers so whether or not the topic exists: it does not tell who may not know);
- topics a group's members subscribe to or are assigned that Metadata hides mean the group's
  offsets on them are hidden too.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from kgroup.core.errors import AuthorizationError, KgroupError
from kgroup.core.models import GroupDescription

if TYPE_CHECKING:
    from kgroup.core.admin import GroupAdmin

TOPIC_AUTHORIZATION_FAILED = 29
UNKNOWN_TOPIC_OR_PARTITION = 3


# --- groups -----------------------------------------------------------------------------------


def is_ambiguous_empty(description: GroupDescription, committed: object) -> bool:
    """An Empty (or Unknown) answer with no members, no protocol type and no visible offsets:
    an unknown group on some brokers, or a group whose offsets this principal may not see."""
    return (
        description.error is None
        and description.state in ("Empty", "Unknown", "")
        and not description.members
        and not description.protocol_type
        and not committed
    )


def missing_groups(
    admin: GroupAdmin,
    descriptions: Mapping[str, GroupDescription],
    offsets: Mapping[str, Any],
) -> set[str]:
    """The groups that do not exist: GROUP_ID_NOT_FOUND or Dead, and ambiguous Empty answers
    (see is_ambiguous_empty) that ListGroups does not list. Any other answer exists."""
    missing: set[str] = set()
    ambiguous: list[str] = []
    for group_id, description in descriptions.items():
        committed = offsets.get(group_id)
        if isinstance(committed, KgroupError):
            continue  # its own error is reported
        if description.error_code == "GROUP_ID_NOT_FOUND" or description.state == "Dead":
            missing.add(group_id)
        elif is_ambiguous_empty(description, committed):
            ambiguous.append(group_id)
    if ambiguous:
        try:
            listed = {listing.group_id for listing in admin.list_groups()}
        except KgroupError:
            listed = set(ambiguous)  # cannot tell: DescribeGroups said it is there
        missing.update(group_id for group_id in ambiguous if group_id not in listed)
    return missing


# --- topics -----------------------------------------------------------------------------------


def topic_errors(admin: GroupAdmin, names: Iterable[str]) -> dict[str, int]:
    """Kafka's error code per topic of a Metadata request naming `names` (no auto-creation)."""
    wanted = sorted(set(names))
    if not wanted:
        return {}
    if admin.wire is not None:
        return _wire_topic_errors(admin.wire, wanted)
    return _rdkafka_topic_errors(admin, wanted)


def _wire_topic_errors(wire: Any, names: list[str]) -> dict[str, int]:
    from kgroup.core.wire.calls import read_answer
    from kgroup.protocol import messages as api_table
    from kgroup.protocol.fields import has_field
    from kgroup.protocol.generated.wire import metadata_request as md_req
    from kgroup.protocol.generated.wire import metadata_response as md_res

    def work(connection: Any) -> dict[str, int]:
        version = connection.version_for(api_table.METADATA)
        if version is None:
            return {}
        # AllowAutoTopicCreation (not ignorable) can only be turned off where it exists
        auto_create = not has_field("MetadataRequest", "AllowAutoTopicCreation", version)
        message = md_req.MetadataRequest(
            topics=tuple(md_req.MetadataRequestTopic(name=name) for name in names),
            allow_auto_topic_creation=auto_create,
        )
        request = md_req.write(message, version)
        answer = read_answer(md_res, connection.call(api_table.METADATA, version, request), version)
        return {t.name: t.error_code for t in answer.topics if t.name is not None}

    broker = wire.brokers()[0]
    return wire.on_broker(broker.host, broker.port, work)


def _rdkafka_topic_errors(admin: GroupAdmin, names: list[str]) -> dict[str, int]:
    result: dict[str, int] = {}
    for name in names:
        try:
            metadata = admin.admin.list_topics(topic=name, timeout=admin.timeout_s)
        except Exception as exc:
            raise admin.error_for(
                exc, "describe topic", name, acl=f"Describe on Topic:{name}"
            ) from exc
        topic = metadata.topics.get(name)
        if topic is not None and topic.error is not None:
            result[name] = int(topic.error.code())
    return result


def unauthorized_topics_error(names: Collection[str]) -> AuthorizationError:
    """ "not authorized to describe topic T" naming the ACL to ask for."""
    ordered = sorted(names)
    listed = ", ".join(ordered)
    grants = " and ".join(f"Topic:{name}" for name in ordered)
    return AuthorizationError(
        f"not authorized to describe topic{'s' if len(ordered) > 1 else ''} {listed} "
        "(TOPIC_AUTHORIZATION_FAILED)",
        hint=f"ask for an ACL granting Describe on {grants}",
    )


def require_describable(admin: GroupAdmin, names: Iterable[str]) -> None:
    """Raise AuthorizationError when Metadata refuses any of `names` (topics the all-topics
    answer left out); topics that simply do not exist are left to the caller."""
    errors = topic_errors(admin, names)
    refused = [name for name, code in errors.items() if code == TOPIC_AUTHORIZATION_FAILED]
    if refused:
        raise unauthorized_topics_error(refused)


def protocol_topics(description: GroupDescription) -> set[str]:
    """Topics the group's members subscribe to or are assigned (their protocol metadata)."""
    topics: set[str] = set()
    for member in description.members:
        topics.update(member.subscription or ())
        topics.update(tp.topic for tp in member.assignment)
        topics.update(tp.topic for tp in member.target_assignment or ())
    return topics


def hidden_topics(
    admin: GroupAdmin,
    descriptions: Mapping[str, GroupDescription],
    visible_topics: Collection[str],
) -> dict[str, list[str]]:
    """Per group, the topics its members' protocol metadata names that Metadata refuses to
    describe (TOPIC_AUTHORIZATION_FAILED): the group's offsets on them are hidden too."""
    unseen = {
        group_id: protocol_topics(description) - set(visible_topics)
        for group_id, description in descriptions.items()
    }
    asked: set[str] = set().union(*unseen.values()) if unseen else set()
    if not asked:
        return {}
    try:
        errors = topic_errors(admin, asked)
    except KgroupError:
        return {}
    result = {}
    for group_id, topics in unseen.items():
        refused = sorted(t for t in topics if errors.get(t) == TOPIC_AUTHORIZATION_FAILED)
        if refused:
            result[group_id] = refused
    return result


def hidden_offsets_message(group_id: str, topics: Collection[str]) -> str:
    """The note for a group whose offsets on `topics` Kafka hides from this principal."""
    ordered = sorted(topics)
    grants = " and ".join(f"Topic:{t}" for t in ordered)
    return (
        f"group {group_id}: offsets on topics you may not describe are hidden "
        f"({', '.join(ordered)}); ask for an ACL granting Describe on {grants}"
    )
