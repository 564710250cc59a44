"""Kafka's binary message formats: declarations, generated message modules, one run-time codec.

`definitions` holds every message as JSON in Kafka's schema language, loaded into `model`'s
declarations; `generated` is one committed module per declaration (typed frozen dataclasses,
`read`/`write` per version, on `runtime`'s primitives), made by scripts/gen_protocol.py;
`messages` names the wire APIs and the versions kgroup speaks, `member_messages` the bytes
consumer-group members exchange. `dicts` reads and writes any declaration as dicts (compiled
by `reader` and `writer`, kept by `cache`), for the `__consumer_offsets` decoder and the
assignors. A leaf: nothing here imports the rest of kgroup (`errors` are its own).
"""
