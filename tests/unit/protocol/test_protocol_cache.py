"""The persistent cache of compiled readers and writers (kgroup/protocol/cache.py): a hit gives
the same code, and a corrupt, foreign, stale or unwritable cache falls back to compiling,
silently, with messages still read and written correctly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kgroup.protocol import cache, reader, writer
from kgroup.protocol import dicts as codec
from kgroup.protocol import messages as p

VALUES = {
    "throttle_time_ms": 7,
    "error_code": 0,
    "coordinators": [
        {"key": "g1", "node_id": 3, "host": "broker-3", "port": 9092, "error_code": 0},
    ],
}


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private XDG_CACHE_HOME and empty in-process caches, so every call compiles again."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(reader, "_READERS", {})
    monkeypatch.setattr(writer, "_WRITERS", {})
    monkeypatch.setattr(cache, "_counted", {})
    monkeypatch.setattr(cache, "_trust", {})
    return tmp_path / "cache"


def round_trip() -> dict:
    """FindCoordinatorResponse v4 written and read back, through freshly compiled code."""
    reader._READERS.clear()
    writer._WRITERS.clear()
    data = codec.encode(p.FIND_COORDINATOR.response, 4, VALUES)
    return codec.decode(p.FIND_COORDINATOR.response, 4, data)


def entries(home: Path) -> list[Path]:
    directory = home / "kgroup" / "protocol"
    return sorted(directory.iterdir()) if directory.exists() else []


def test_entries_written_then_used(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = round_trip()
    assert first["coordinators"][0]["host"] == "broker-3"
    written = entries(cache_home)
    assert len(written) == 2  # the response's reader and writer
    assert not [path for path in written if path.name.endswith(".tmp")]
    for path in [cache_home / "kgroup" / "protocol", *written]:  # code others cannot change
        assert path.stat().st_mode & 0o077 == 0

    def no_compiling(*args: object) -> None:
        raise AssertionError("compiled although cached")

    monkeypatch.setattr(cache, "compile", no_compiling, raising=False)
    assert round_trip() == first


def rename_constant(data: bytes) -> bytes:
    """A name in the code changed: the entry still unmarshals, into other code."""
    at = data.rfind(b"node_id")
    return data[:at] + b"N" + data[at + 1 :]


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"",  # empty
        lambda data: b"not a cache entry at all",  # garbage
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: data[:-1] + bytes([data[-1] ^ 0xFF]),  # the code's last byte
        rename_constant,  # a byte inside the code that marshal does not notice
        lambda data: data[:40] + bytes([data[40] ^ 0xFF]) + data[41:],  # a byte of the key
    ],
    ids=["empty", "garbage", "truncated", "code-end", "code-constant", "key"],
)
def test_corrupt_entries_are_recompiled(cache_home: Path, damage) -> None:
    expected = round_trip()
    damaged = {}
    for path in entries(cache_home):
        damaged[path] = damage(path.read_bytes())
        path.write_bytes(damaged[path])
    assert round_trip() == expected
    for path, data in damaged.items():  # not used: compiled again and rewritten whole
        assert path.read_bytes() != data


def test_entry_of_another_key_is_not_used(cache_home: Path) -> None:
    expected = round_trip()
    paths = entries(cache_home)
    foreign = paths[0].read_bytes()
    for path in paths[1:]:
        path.write_bytes(foreign)  # valid entries, but for other sources
    assert round_trip() == expected


def test_stale_compiler(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = round_trip()
    current = {path: path.read_bytes() for path in entries(cache_home)}
    version = cache.COMPILER
    monkeypatch.setattr(cache, "COMPILER", "00000000")
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home.parent / "old"))
    assert round_trip() == expected
    old = [path.read_bytes() for path in entries(cache_home.parent / "old")]
    assert set(old).isdisjoint(current.values())
    monkeypatch.setattr(cache, "COMPILER", version)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home))
    for path, data in zip(current, old, strict=True):
        path.write_bytes(data)  # the old version's entries where this version looks
    assert round_trip() == expected
    assert {path.read_bytes() for path in current}.isdisjoint(old)  # compiled and rewritten


@pytest.mark.parametrize("where", ["a file", "a missing parent under a file"])
def test_unwritable_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("not a directory")
    home = blocker if where == "a file" else blocker / "deeper"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.setattr(reader, "_READERS", {})
    monkeypatch.setattr(writer, "_WRITERS", {})
    monkeypatch.setattr(cache, "_counted", {})
    monkeypatch.setattr(cache, "_trust", {})
    assert round_trip()["coordinators"][0]["node_id"] == 3
    assert blocker.read_text() == "not a directory"


def test_read_only_cache_dir(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = os.open

    def refuse_cache(path: str, *args: int) -> int:
        if path.startswith(str(cache_home)):
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, *args)

    monkeypatch.setattr(cache.os, "open", refuse_cache)
    assert round_trip()["coordinators"][0]["port"] == 9092
    assert entries(cache_home) == []


def test_full_cache_is_emptied(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "MAX_ENTRIES", 1)
    expected = round_trip()  # the reader's store finds the writer's entry: emptied first
    assert len(entries(cache_home)) == 1
    assert round_trip() == expected


@pytest.mark.parametrize("how", ["group-writable dir", "other-writable entry", "linked dir"])
def test_cache_others_could_write_is_not_used(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    expected = round_trip()
    directory = cache_home / "kgroup" / "protocol"
    if how == "group-writable dir":
        directory.chmod(0o770)
    elif how == "other-writable entry":
        for path in entries(cache_home):
            path.chmod(0o666)
    else:
        moved = cache_home / "elsewhere"
        directory.rename(moved)
        directory.symlink_to(moved, target_is_directory=True)
    monkeypatch.setattr(cache, "_trust", {})

    def no_loading(data: bytes) -> object:
        raise AssertionError("ran code from a cache others could write")

    monkeypatch.setattr(cache.marshal, "loads", no_loading)
    assert round_trip() == expected  # compiled, never loaded
