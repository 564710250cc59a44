"""Compiling the generic reader's and writer's source once for all runs, not once per process.

Source of truth: Python's own bytecode cache (`importlib`'s `__pycache__`: marshal'ed code
objects, written to a temporary file and renamed into place, checked before use).

`reader` and `writer` turn a declaration at a version into Python source (`SourceCompiler`,
their common base). Compiling that source costs more than a short `kgroup` run spends decoding
(~0.5 ms a message), so the code objects are kept, marshal'ed, in the user cache directory:
`$XDG_CACHE_HOME/kgroup/protocol`, else `~/.cache/kgroup/protocol` (private to its owner, as
its code is run). An entry's key is the source itself with its filename, the compiler's own
code (`COMPILER`, a CRC of the modules whose helpers the code calls) and
Python's bytecode (version, cache tag, optimisation level), and the entry holds that key: it is
used only for exactly that source. The source is a pure function of the declaration's content,
the version, the options and the compiler, so a changed declaration or compiler finds no entry
and none can go stale, wherever the declaration came from. Entries are named by a CRC of the
key (two keys sharing a name only cost a compile) and carry a CRC of their code; one that
cannot be read, is corrupt or holds another key is passed over, and a directory that cannot be
written is not written: either way the source is compiled as if there were no cache, without a
word. A directory or entry another user could have written (not owned by this user, writable by
group or others, a symbolic link) is never used: its code would run as this user. The directory
is emptied when it reaches `MAX_ENTRIES` entries.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import stat
import struct as _struct
import sys
import zlib
from types import CodeType
from typing import Any

from kgroup.protocol.model import Struct

_MAGIC = b"kgroup-protocol-code\n"
_SIZES = _struct.Struct(">II")  # the key's length, the CRC-32 of the code
# kgroup's own messages need a few dozen entries; tests compiling random declarations would
# grow the directory without end, so it is emptied when it reaches this many
MAX_ENTRIES = 1000
_counted: dict[str, int] = {}  # directory -> entries (counted at this process's first store)
_trust: dict[str, bool] = {}  # directory -> whether its entries may be run (see _trusted)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _compiler_id() -> str:
    """A CRC of the modules the compiled code is made by and calls into: a changed helper
    with an unchanged source must not find the old code."""
    here = os.path.dirname(__file__)
    crc = 0
    for name in ("cache.py", "reader.py", "writer.py", "types.py", "runtime.py", "errors.py"):
        with open(os.path.join(here, name), "rb") as fh:
            crc = zlib.crc32(fh.read(), crc)
    return f"{crc:08x}"


COMPILER = _compiler_id()


def cache_dir() -> str:
    """Where compiled code is kept (`$XDG_CACHE_HOME/kgroup/protocol`)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kgroup", "protocol")


def _key(source: str, filename: str) -> bytes:
    """Everything the code object of `source` depends on, the source last."""
    interpreter = (sys.hexversion, sys.implementation.cache_tag, sys.flags.optimize)
    return repr((COMPILER, interpreter, filename)).encode() + b"\n" + source.encode()


def _load(path: str, key: bytes) -> CodeType | None:
    """The code kept at `path` for `key`, or None (no entry, unreadable, corrupt, other key)."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    except OSError:
        return None
    try:
        if not _owned_privately(os.fstat(fd)):
            return None  # code only its owner may have written is run
        with os.fdopen(fd, "rb") as file:
            fd = -1
            data = file.read()
    except OSError:
        return None
    finally:
        if fd >= 0:
            os.close(fd)
    start = len(_MAGIC) + _SIZES.size
    payload = data[start + len(key) :]
    if (
        data[:start] != _MAGIC + _SIZES.pack(len(key), zlib.crc32(payload))
        or data[start : start + len(key)] != key
    ):
        return None
    try:
        code = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, CodeType) else None


def _store(path: str, key: bytes, code: CodeType) -> None:
    """Keep `code` at `path`, atomically (a temporary file renamed into place); any failure
    (read-only or missing home, full disk, a concurrent writer) leaves the cache as it was."""
    payload = marshal.dumps(code)
    temp = f"{path}.{os.getpid()}.tmp"
    try:
        _make_room(os.path.dirname(path))
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(_MAGIC + _SIZES.pack(len(key), zlib.crc32(payload)) + key + payload)
            os.replace(temp, path)
        except BaseException:
            os.unlink(temp)
            raise
    except OSError:
        pass


def _make_room(directory: str) -> None:
    """Create `directory` (private: its code is run), or empty it at `MAX_ENTRIES` entries."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    _trust.pop(directory, None)  # created now, or by someone else since: look again
    if not _trusted(directory):
        raise PermissionError(f"{directory} is not private")
    count = _counted.get(directory)
    if count is None:
        count = len(os.listdir(directory))
    if count >= MAX_ENTRIES:
        for name in os.listdir(directory):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(directory, name))
        count = 0
    _counted[directory] = count + 1


def compile_cached(source: str, filename: str) -> CodeType:
    """`compile(source, filename, "exec")`, from the cache when an earlier run compiled it."""
    directory = cache_dir()
    if not _trusted(directory):
        return compile(source, filename, "exec")
    key = _key(source, filename)
    path = os.path.join(directory, f"{zlib.crc32(key):08x}{len(key):06x}")
    code = _load(path, key)
    if code is None:
        code = compile(source, filename, "exec")
        _store(path, key, code)
    return code


def _owned_privately(status: os.stat_result) -> bool:
    """Owned by this user and writable by no one else."""
    return status.st_uid == os.getuid() and not status.st_mode & 0o022


def _trusted(directory: str) -> bool:
    """Whether the cache may be used: `directory` is missing (it is then created private) or a
    real directory (not a link) owned by this user that no one else may write to, checked once
    a process. A cache another user could write to would run their code: it is not used."""
    verdict = _trust.get(directory)
    if verdict is None:
        try:
            status = os.lstat(directory)
        except FileNotFoundError:
            verdict = True
        except OSError:
            verdict = False
        else:
            verdict = stat.S_ISDIR(status.st_mode) and _owned_privately(status)
        _trust[directory] = verdict
    return verdict


class SourceCompiler:
    """Python source written line by line into `lines`, then compiled (through the cache) into
    functions that share the namespace `ns`; `kind` names the code ("reader", "writer").

    Subclasses write one function per struct in `_function(struct, flexible, path)`, which
    returns the function's name."""

    kind = ""

    def __init__(self, version: int, ns: dict[str, Any]) -> None:
        self.version = version
        self.ns = ns
        self.counter = 0
        self.lines: list[str] = []

    def _name(self, prefix: str) -> str:
        """A fresh variable or function name."""
        self.counter += 1
        return f"{prefix}{self.counter}"

    def _const(self, value: Any) -> str:
        """The name under which the generated code sees `value`."""
        name = self._name("_k")
        self.ns[name] = value
        return name

    def _function(self, struct: Struct, flexible: bool, path: str) -> str:
        raise NotImplementedError

    def compile(self, struct: Struct, flexible: bool) -> Any:
        """The function for `struct` at this version (with those of its nested structs)."""
        fname = self._function(struct, flexible, "")
        filename = f"<kgroup protocol {self.kind} {struct.name} v{self.version}>"
        exec(compile_cached("\n".join(self.lines), filename), self.ns)
        return self.ns[fname]
