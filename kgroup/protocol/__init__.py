"""Kafka's binary message formats as declarations, with one generic reader and writer.

`model` declares messages (fields, versions, nullable/tagged/flexible ranges, defaults);
`codec` reads and writes any declaration at any version (compiled once by `reader` and
`writer`, on the primitives of `types`); `messages` holds the wire APIs kgroup speaks and
`consumer_protocol` the bytes consumer-group members exchange (also stored in
`__consumer_offsets`, hence outside `messages`, which the offsets decoder does not load), all
transcribed from Kafka's JSON message definitions; `adapters` gives them the signatures and
result types of the wire client (`kgroup.core.wire.messages` re-exports them).
"""
