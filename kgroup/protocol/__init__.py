"""Kafka's binary message formats: declarations and the message modules generated from them.

`definitions` holds every message as JSON in Kafka's schema language, build input only (never
read when kgroup runs); `generated` is what scripts/gen_protocol.py makes of them, committed: one
module per declaration (typed frozen dataclasses, `read`/`write` per version, on `runtime`'s
primitives), the API table and every declaration as `model`'s objects (`declarations` finds one
by path); `messages` names the wire APIs and the versions kgroup speaks, `member_messages` the
bytes consumer-group members exchange (the `__consumer_offsets` decoder's readers are generated
from the same declarations into `kgroup.offsets.generated`; nothing is compiled at run time). A
leaf: nothing here imports the rest of kgroup (`errors` are its own).
"""
