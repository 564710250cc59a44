"""A small Kafka wire-protocol client for the group APIs librdkafka cannot batch.

`messages` (the APIs and versions kgroup speaks; encoders and decoders re-exported from
`kgroup.protocol.adapters`, which hold no layout either: the layouts are the declarations of
`kgroup.protocol.messages`), `results` (what requests return, error codes), `codec` (framing and
headers), `sasl` (PLAIN, SCRAM), `connection` (one socket per broker: TLS, SASL, pipelined
requests), `pool` (connections per broker, cluster metadata), `leaders` (ListOffsets, Fetch),
`kafka_errors` (error codes as KgroupErrors), `convert` (answers as models) and `client`
(`WireClient`: the group coordinators' requests, on the others). Standard library only;
kgroup.core.admin.GroupAdmin (librdkafka) is the fallback when `WireClient.supports(config)`
says no.
"""
