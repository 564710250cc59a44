"""A small Kafka wire-protocol client for the group APIs librdkafka cannot batch.

`codec` (primitive types, headers), `messages` (the group APIs' layouts), `sasl` (PLAIN, SCRAM),
`connection` (one socket per broker: TLS, SASL, pipelined requests) and `client` (`WireClient`).
Standard library only; kgroup.core.admin.GroupAdmin (librdkafka) is the fallback when
`WireClient.supports(config)` says no.
"""
