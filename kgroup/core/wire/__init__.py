"""A small Kafka wire-protocol client for the group APIs librdkafka cannot batch.

`cluster_calls`, `offset_calls`, `group_calls` and `member_protocol` (what kgroup sends and how
answers become results; their decoders raise the wire's ProtocolError; no layout: the layouts are
`kgroup.protocol`'s declarations and generated modules), `versions` (which version to send against
a broker's ApiVersions answer; the APIs and versions kgroup speaks are `kgroup.protocol.messages`),
`results` (what requests return, error codes), `frames` (framing, headers, the wire's
ProtocolError), `sasl` (PLAIN, SCRAM), `connection` (one socket per broker: TLS, SASL, pipelined
requests), `pool` (connections per broker, cluster metadata), `leaders` (ListOffsets, Fetch),
`kafka_errors` (error codes as KgroupErrors), `convert` (answers as models) and `client`
(`WireClient`: the group coordinators' requests, on the others). Standard library only;
kgroup.core.admin.GroupAdmin (librdkafka) is the fallback when `WireClient.supports(config)` says
no.
"""
