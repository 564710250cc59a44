"""Kafka's binary message formats: declarations and the message modules generated from them.

`definitions` holds every message as JSON in Kafka's schema language, loaded into `model`'s
declarations; `generated` is one committed module per declaration (typed frozen dataclasses,
`read`/`write` per version, on `runtime`'s primitives), made by scripts/gen_protocol.py;
`messages` names the wire APIs and the versions kgroup speaks, `member_messages` the bytes
consumer-group members exchange (the `__consumer_offsets` decoder's readers are generated from
the same declarations into `kgroup.offsets.generated`; nothing is compiled at run time). A
leaf: nothing here imports the rest of kgroup (`errors` are its own).
"""
