"""Every declaration by its path (`coordinator/OffsetCommitValue`, `wire/RequestHeader`), as
`kgroup.protocol.model` objects: the committed Python literals of
kgroup/protocol/generated/declarations/ (one module per top folder of the definitions), written
by scripts/gen_protocol.py from the JSON files. No JSON is read: the JSON files are build input.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable

from kgroup.protocol.model import Message

_built: dict[str, Message] = {}
_building = threading.Lock()  # first uses may come from several request threads at once


def declaration(path: str) -> Message:
    """The message declared at `path`, built once: later calls return the same object (the
    readers' caches in kgroup.offsets key on it)."""
    msg = _built.get(path)
    if msg is None:
        with _building:
            msg = _built.get(path)
            if msg is None:
                msg = _built[path] = _builder(path)()
    return msg


def _builder(path: str) -> Callable[[], Message]:
    name = f"kgroup.protocol.generated.declarations.{path.split('/', 1)[0]}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        module = None
    build = None if module is None else module.BUILDERS.get(path)
    if build is None:
        raise LookupError(
            f"no declaration {path!r}: run `make protocol` (scripts/gen_protocol.py) after "
            "adding one"
        )
    return build
