"""kgroup.core.files: every file kgroup reads is checked before it is read, and read bounded."""

from __future__ import annotations

import os

import pytest

from kgroup.core.errors import CorruptInputError, NotFoundError, UsageError
from kgroup.core.files import FileKind, check_regular, read_bytes, read_text, size_text

TINY = FileKind("test file", 10)


def test_a_regular_file_within_the_limit_is_read(tmp_path) -> None:
    path = tmp_path / "ok.txt"
    path.write_bytes(b"0123456789")
    assert read_bytes(path, TINY) == b"0123456789"
    assert read_text(str(path), TINY) == "0123456789"


def test_one_byte_over_the_limit_is_refused(tmp_path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"0123456789A")
    with pytest.raises(UsageError, match=r"is 11 bytes, over kgroup's limit of 10 bytes"):
        read_bytes(path, TINY)


def test_a_file_whose_size_stat_does_not_tell_is_still_bounded() -> None:
    """/proc files say size 0; the read stops at limit + 1 bytes and refuses."""
    assert os.stat("/proc/self/maps").st_size == 0
    with pytest.raises(UsageError, match="more than 10 bytes"):
        read_bytes("/proc/self/maps", TINY)


def test_a_link_to_a_device_is_refused_by_the_device_type(tmp_path) -> None:
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(UsageError, match="is a character device, not a regular file"):
        read_bytes(link, TINY)


def test_missing_is_not_found_and_names_the_kind(tmp_path) -> None:
    with pytest.raises(NotFoundError, match=f"test file {tmp_path / 'x'} does not exist"):
        check_regular(str(tmp_path / "x"), TINY)


def test_directories_only_where_allowed(tmp_path) -> None:
    with pytest.raises(UsageError, match="is a directory"):
        check_regular(str(tmp_path), TINY)
    assert check_regular(str(tmp_path), TINY, directory_ok=True)


def test_text_that_is_not_utf8_raises_the_callers_error(tmp_path) -> None:
    path = tmp_path / "bin"
    path.write_bytes(b"ab\xff")
    with pytest.raises(CorruptInputError, match=r"byte 0xff at offset 2"):
        read_text(path, TINY, bad_text=CorruptInputError)
    with pytest.raises(UsageError, match="not UTF-8"):
        read_text(path, TINY)


def test_sizes_read_as_people_write_them() -> None:
    assert [size_text(n) for n in (0, 1023, 1024, 1536, 64 * 2**20, int(20.6 * 2**30))] == [
        "0 bytes",
        "1023 bytes",
        "1 KiB",
        "1.5 KiB",
        "64 MiB",
        "20.6 GiB",
    ]
