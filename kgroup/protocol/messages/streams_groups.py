"""The streams-group API (KIP-1071) kgroup speaks: StreamsGroupDescribe (89), v0.

Declared in `kgroup.protocol.definitions` `wire/StreamsGroupDescribeRequest.json` and
`wire/StreamsGroupDescribeResponse.json`, transcribed from Kafka's
`clients/src/main/resources/common/message/` (the commit read is in each file's `source`). Kafka
4.1 has streams groups in early access (`group.coordinator.rebalance.protocols` with `streams`,
unstable API versions); a broker that does not list the API in ApiVersions has none.

Not in `kgroup.protocol.messages.APIS` (that table must equal the wire client's): sent by
`kgroup.core.wire.streams_groups`.
"""

from __future__ import annotations

from kgroup.protocol.messages import wire_api

SPOKEN: dict[str, tuple[int, ...]] = {"StreamsGroupDescribe": (0,)}

STREAMS_GROUP_DESCRIBE = wire_api("StreamsGroupDescribe", SPOKEN["StreamsGroupDescribe"])
