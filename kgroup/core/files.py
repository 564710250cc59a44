"""Reading the files a user names, bounded: every file kgroup reads goes through here.

A file is read only when it is a regular file (a directory, FIFO, device or socket is refused
by its type, never opened: opening a FIFO blocks, `/dev/zero` never ends) of at most its kind's
size limit (README, "Files kgroup reads"). The checks come before any byte is read:

- the path does not exist: `NotFoundError` (exit 3), naming the file;
- not a regular file, over the limit, or unreadable (permissions): `UsageError` (exit 2),
  naming the file and what to do.

The size is checked twice: from `stat` before opening, and by reading at most limit + 1 bytes,
so a file that grows meanwhile (or a `/proc` file reporting size 0) cannot push past the limit.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from kgroup.core.errors import KgroupError, NotFoundError, UsageError

KIB = 1024
MIB = 1024 * KIB


@dataclass(frozen=True, slots=True)
class FileKind:
    """A kind of file kgroup reads: how errors name it, and its size limit in bytes."""

    name: str
    limit: int
    hint: str = ""


# The limits, documented in README "Files kgroup reads": far above any real file of the kind.
SCENARIO = FileKind("scenario file", 64 * MIB, "a scenario lists topics, members and events")
PLAN = FileKind("plan file", 256 * MIB, "a plan or backup holds one line per partition")
BACKUP = FileKind("backup file", 256 * MIB, "a backup holds one line per partition")
PROPERTIES = FileKind(
    "command config file", 1 * MIB, "a client properties file holds a few dozen lines"
)
# a truststore with every public CA is well under 1 MiB
PEM = FileKind("PEM file", 16 * MIB, "a PEM file holds a few certificates or keys")
KEYSTORE = FileKind("store file", 16 * MIB, "a key or trust store holds a few certificates")
SETTINGS = FileKind("kgroup settings file", 1 * MIB, "kgroup's settings files hold a few lines")

_NOT_REGULAR = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def size_text(size: int) -> str:
    """A byte count for messages: `512 bytes`, `1.5 MiB`, `20.6 GiB`."""
    if size < KIB:
        return f"{size} bytes"
    value = float(size)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024:
            return f"{value:.1f}".rstrip("0").rstrip(".") + f" {unit}"
    return f"{value:.1f} PiB"


def _kind_of(mode: int) -> str | None:
    return next((name for test, name in _NOT_REGULAR if test(mode)), None)


def _too_large(path: str, kind: FileKind, size: str) -> UsageError:
    return UsageError(
        f"{kind.name} {path} is {size}, over kgroup's limit of {size_text(kind.limit)}",
        hint=f"{kind.hint}; is this the right file?" if kind.hint else "is this the right file?",
    )


def _unreachable(shown: str, kind: FileKind, exc: OSError) -> KgroupError:
    """The error for a path that `stat` or `open` failed on: missing, or not readable."""
    if isinstance(exc, (FileNotFoundError, NotADirectoryError)):
        return NotFoundError(f"{kind.name} {shown} does not exist", hint="check the path")
    return UsageError(
        f"cannot read {kind.name} {shown}: {exc.strerror or exc}",
        hint="check the path and its permissions",
    )


def check_regular(path: str, kind: FileKind, *, directory_ok: bool = False) -> os.stat_result:
    """`path`'s status when it is a regular file (or, with `directory_ok`, a directory) within
    `kind`'s limit; otherwise the error the module docstring describes. Never opens the file."""
    shown = os.fspath(path)
    try:
        info = os.stat(os.path.expanduser(shown))
    except OSError as exc:
        raise _unreachable(shown, kind, exc) from None
    if directory_ok and stat.S_ISDIR(info.st_mode):
        return info
    if not stat.S_ISREG(info.st_mode):
        what = _kind_of(info.st_mode) or "a special file"
        raise UsageError(
            f"{kind.name} {shown} is {what}, not a regular file",
            hint="give the path of a regular file (save a stream to a file first)",
        )
    if info.st_size > kind.limit:
        raise _too_large(shown, kind, size_text(info.st_size))
    return info


def read_bytes(path: str | os.PathLike[str], kind: FileKind) -> bytes:
    """The whole content of a regular file of at most `kind.limit` bytes (see the module)."""
    shown = os.fspath(path)
    check_regular(shown, kind)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(os.path.expanduser(shown), flags)
    except OSError as exc:
        raise _unreachable(shown, kind, exc) from None
    try:
        # replaced between the check and the open: check what was opened
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise UsageError(
                f"{kind.name} {shown} is {_kind_of(mode) or 'a special file'}, not a regular file",
                hint="give the path of a regular file",
            )
        chunks: list[bytes] = []
        left = kind.limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, MIB))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as exc:
        raise UsageError(
            f"cannot read {kind.name} {shown}: {exc.strerror or exc}",
            hint="check the file",
        ) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > kind.limit:
        raise _too_large(shown, kind, f"more than {size_text(kind.limit)}")
    return data


def read_text(
    path: str | os.PathLike[str],
    kind: FileKind,
    *,
    bad_text: type[KgroupError] = UsageError,
    hint: str | None = None,
) -> str:
    """`read_bytes` decoded as UTF-8; text that is not UTF-8 raises `bad_text` naming the file
    and the byte offset (plans and backups are data: CorruptInputError; configuration: usage)."""
    data = read_bytes(path, kind)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise bad_text(
            f"{kind.name} {os.fspath(path)} is not UTF-8 text (byte {data[exc.start]:#04x} at "
            f"offset {exc.start})",
            hint=hint or f"is this a {kind.name}?",
        ) from None
