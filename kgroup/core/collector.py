"""The cyclic garbage collector while a fleet is described or checked (issue #29)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

# the young generation's size while a fleet runs (Python's default: 700): describe and check
# make millions of short-lived objects, which reference counting frees (all but a few hundred)
GC_YOUNG = 50_000


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect garbage less often: what the process has loaded so far (typer, rich, the wire
    client) is kept off the collector (gc.freeze) and the young generation holds at least
    GC_YOUNG objects; both restored when the block ends, however it ends."""
    import gc

    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(threshold[0], GC_YOUNG), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()
