"""One module per message declaration, generated from kgroup/protocol/definitions/ by
scripts/gen_protocol.py (typed frozen dataclasses, `read`/`write` per version). Do not edit."""
