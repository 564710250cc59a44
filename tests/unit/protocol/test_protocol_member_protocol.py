"""What kgroup makes of malformed consumer-protocol bytes (written out by hand from Kafka's
ConsumerProtocolSubscription.json: int16 version, then the fields)."""

from __future__ import annotations

import pytest

from kgroup.assign import consumer_protocol as assign_cp
from kgroup.core.wire.frames import ProtocolError
from kgroup.core.wire.member_protocol import decode_subscription

SUBSCRIPTION_V1 = bytes.fromhex(
    "0001"  # version 1
    "00000001 0001 74"  # Topics: "t"
    "ffffffff"  # UserData null
    "00000001 0001 74 00000001 00000000".replace(" ", "")  # OwnedPartitions: t [0]
)


def test_a_negative_subscription_version_is_an_error() -> None:
    raw = bytes.fromhex("ffff00000000ffffffff")  # version -1, Topics 0, UserData null
    with pytest.raises(ProtocolError, match="version -1"):
        decode_subscription(raw)


def test_every_cut_of_a_subscription_is_malformed_data_for_assign() -> None:
    assert assign_cp.decode_subscription(SUBSCRIPTION_V1)  # the whole reads
    for cut in range(len(SUBSCRIPTION_V1)):
        with pytest.raises(assign_cp.MalformedData):
            assign_cp.decode_subscription(SUBSCRIPTION_V1[:cut])
