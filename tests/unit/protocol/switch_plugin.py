"""Switch-over rehearsal: run any test suite with kgroup.core.wire.messages' encoders and
decoders replaced by their kgroup.protocol.adapters twins (the wire client, SASL and fencing
all call them through the module):

    python -m pytest tests/unit/wire -p tests.unit.protocol.switch_plugin
"""

from __future__ import annotations

import pytest

from kgroup.core.wire import messages as m
from kgroup.protocol import adapters as a

NAMES = [n for n in dir(a) if n.startswith(("encode_", "decode_")) and hasattr(m, n)]


@pytest.fixture(autouse=True)
def _switch(monkeypatch: pytest.MonkeyPatch):
    for n in NAMES:
        monkeypatch.setattr(m, n, getattr(a, n))
    yield
