"""A small Kafka wire-protocol client for the group APIs librdkafka cannot batch.

`messages` (the APIs and versions kgroup speaks; encoders and decoders re-exported from
`kgroup.protocol.adapters`, which hold no layout either: the layouts are the declarations of
`kgroup.protocol.messages`), `results` (what requests return, error codes), `codec` (framing and
headers), `sasl` (PLAIN, SCRAM), `connection` (one socket per broker: TLS, SASL, pipelined
requests) and `client` (`WireClient`). Standard library only; kgroup.core.admin.GroupAdmin
(librdkafka) is the fallback when `WireClient.supports(config)` says no.
"""
