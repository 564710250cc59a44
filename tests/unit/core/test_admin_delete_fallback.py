"""GroupAdmin.delete_groups where kgroup's own client cannot go (GSSAPI, ...): librdkafka deletes,
and its answers read as the wire client's do (no broker: a stand-in AdminClient)."""

from __future__ import annotations

from concurrent.futures import Future

from confluent_kafka import KafkaError, KafkaException

from kgroup.core.admin import GroupAdmin
from kgroup.core.config import ClusterConfig
from kgroup.core.errors import KgroupError, NotFoundError, SafetyRefusal


class StandInAdmin:
    def __init__(self, codes: dict[str, int]) -> None:
        self.codes = codes

    def delete_consumer_groups(self, group_ids, request_timeout=None):
        futures = {}
        for group_id in group_ids:
            future: Future = Future()
            code = self.codes.get(group_id, 0)
            if code:
                future.set_exception(KafkaException(KafkaError(code)))
            else:
                future.set_result(None)
            futures[group_id] = future
        return futures


def test_librdkafka_answers_read_as_the_wire_clients() -> None:
    admin = GroupAdmin(ClusterConfig("127.0.0.1:1", timeout_s=1), use_wire=False)
    admin._admin = StandInAdmin(
        {
            "busy": KafkaError.NON_EMPTY_GROUP,
            "ghost": KafkaError.GROUP_ID_NOT_FOUND,
            "moved": KafkaError.NOT_COORDINATOR,
        }
    )
    outcome = admin.delete_groups(["ok", "busy", "ghost", "moved"])
    assert outcome["ok"] is None
    assert isinstance(outcome["busy"], SafetyRefusal)
    assert "NON_EMPTY_GROUP" in outcome["busy"].one_line()
    assert isinstance(outcome["ghost"], NotFoundError)
    moved = outcome["moved"]
    assert isinstance(moved, KgroupError) and not isinstance(moved, SafetyRefusal | NotFoundError)
    assert "NOT_COORDINATOR" in moved.one_line()
