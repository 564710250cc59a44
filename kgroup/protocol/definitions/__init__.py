"""Every message layout kgroup reads or writes, as JSON in Kafka's own schema language: build
input only, never read when kgroup runs.

One file per message: `wire/` (request and response of each wire API, and the request and
response headers; Kafka's `clients/src/main/resources/common/message/`), `coordinator/` (every
`__consumer_offsets` key and value, `group-coordinator/src/main/resources/common/message/`;
`coordinator/kafka-X.Y/` holds the earlier layouts a record type id also had), `share/`
(`__share_group_state`) and `embedded/` (bytes carried inside other messages: the consumer
protocol, the sticky assignors' user data and Kafka Connect's protocol). scripts/definitions.py
loads them into `kgroup.protocol.model`'s declarations for the generators (`make protocol`,
scripts/gen_protocol.py), which write what kgroup runs: kgroup/protocol/generated/ (the message
modules, the API table and the declarations as Python literals) and kgroup/offsets/generated/
(the `__consumer_offsets` readers, writers and the C reader's programs).
"""
