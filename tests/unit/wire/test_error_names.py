"""kgroup's table of Kafka error names (kgroup/core/wire/error_codes.py) against an outside one.

librdkafka (confluent_kafka.KafkaError) names every broker error code it knows too. For every
code both know the names agree, apart from librdkafka's own spellings listed below (rdkafka.h
RD_KAFKA_RESP_ERR_*: shortened names kept from Kafka 0.8-era, and NOT_LEADER_FOR_PARTITION,
Kafka's name for code 6 before KIP-392 renamed it NOT_LEADER_OR_FOLLOWER).
"""

from __future__ import annotations

from confluent_kafka import KafkaError

from kgroup.core.wire.error_codes import ERROR_NAMES, error_name

# code -> (librdkafka's name, Kafka's name): librdkafka's documented spellings, not Kafka's
LIBRDKAFKA_SPELLINGS = {
    -1: ("UNKNOWN", "UNKNOWN_SERVER_ERROR"),
    0: ("NO_ERROR", "NONE"),
    2: ("INVALID_MSG", "CORRUPT_MESSAGE"),
    3: ("UNKNOWN_TOPIC_OR_PART", "UNKNOWN_TOPIC_OR_PARTITION"),
    4: ("INVALID_MSG_SIZE", "INVALID_FETCH_SIZE"),
    6: ("NOT_LEADER_FOR_PARTITION", "NOT_LEADER_OR_FOLLOWER"),
    10: ("MSG_SIZE_TOO_LARGE", "MESSAGE_TOO_LARGE"),
    11: ("STALE_CTRL_EPOCH", "STALE_CONTROLLER_EPOCH"),
    17: ("TOPIC_EXCEPTION", "INVALID_TOPIC_EXCEPTION"),
}


def librdkafka_names() -> dict[int, str]:
    """The broker error codes librdkafka names (it answers ERR_<n>? for codes it lacks)."""
    names = {code: KafkaError(code).name() for code in range(-1, 200)}
    return {code: name for code, name in names.items() if not name.startswith("ERR_")}


def test_every_code_of_kafka_4_1_is_named() -> None:
    assert sorted(ERROR_NAMES) == list(range(-1, 134))
    assert len(set(ERROR_NAMES.values())) == len(ERROR_NAMES)
    assert error_name(134) == "UNKNOWN_ERROR_CODE_134"


def test_names_agree_with_librdkafka() -> None:
    theirs = librdkafka_names()
    assert len(theirs) > 100  # librdkafka 2.16 knows codes up to 133
    disagree = {
        code: (theirs[code], ERROR_NAMES[code])
        for code in sorted(theirs.keys() & ERROR_NAMES.keys())
        if theirs[code] != ERROR_NAMES[code]
    }
    assert disagree == LIBRDKAFKA_SPELLINGS


def test_librdkafka_knows_no_code_kgroup_lacks() -> None:
    assert sorted(librdkafka_names().keys() - ERROR_NAMES.keys()) == []
