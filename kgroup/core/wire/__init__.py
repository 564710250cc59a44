"""A small Kafka wire-protocol client for the group APIs librdkafka cannot batch.

`cluster_calls`, `offset_calls`, `group_calls` and `member_protocol` (what kgroup sends, and the
few answers it reads its own way; no layout: the layouts are `kgroup.protocol`'s generated
modules), `calls` (what the calls share; `read_answer`: any other answer read as its generated
class, which callers use directly; malformed bytes are the wire's ProtocolError), `versions`
(which version to send against a broker's ApiVersions answer; the APIs and versions kgroup speaks
are `kgroup.protocol.messages`), `results` (the answer shapes kgroup decides: coordinators by
key, OffsetFetch, ListOffsets, Fetch), `error_codes` (Kafka's error codes and names), `frames`
(framing, headers, the wire's ProtocolError), `sasl` (PLAIN, SCRAM), `connection` (one socket
per broker: TLS, SASL, pipelined requests), `pool` (connections per broker, cluster metadata),
`leaders` (ListOffsets, Fetch), `kafka_errors` (error codes as KgroupErrors), `retry_policy`
(which errors are retried, how), `convert` (answers as models) and `client` (`WireClient`: the
group coordinators' requests, on the others). Standard library only;
kgroup.core.admin.GroupAdmin (librdkafka) is the fallback when `WireClient.supports(config)`
says no.
"""
