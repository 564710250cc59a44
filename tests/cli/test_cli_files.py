"""Files kgroup reads and writes, through a real `kgroup` process (issue 24 items 1, 3, 13 and
the file rows of item 11).

Reads: every file named (scenario, plan, backup, properties, PEM, settings) is refused with
exit 2 naming it when it is not a regular file or is over its limit, before a byte is read
(`/dev/zero` once grew kgroup to 20 GB). Writes: `--export` never overwrites, never writes
into the backup directory; empty paths are usage errors; a directory named for writing that
is missing or read-only is exit 2. No broker is needed: each refusal comes before the cluster
is asked (127.0.0.1:1 would exit 6).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from tests.helpers import Result, run_kgroup

NOWHERE = ("-b", "127.0.0.1:1", "--timeout", "5")


def env_for(tmp_path: Path) -> dict[str, str]:
    return {
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }


def refused(tmp_path: Path, *args: str, expect: int) -> str:
    result: Result = run_kgroup(*args, env=env_for(tmp_path), expect=expect, timeout=30)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stdout == ""
    assert result.seconds < 15  # refused, not read: /dev/zero would run out of memory
    return lines[0]


READERS = {
    "scenario": lambda path: ("simulate-assign", "--scenario", path),
    "plan": lambda path: (*NOWHERE, "reset-offsets", "g", "--from-file", path),
    "properties": lambda path: (*NOWHERE, "-c", path, "describe", "g"),
    "backup": lambda path: (*NOWHERE, "undo", "g", "--backup", path),
    "pem": lambda path: (*NOWHERE, "-X", f"ssl.ca.location={path}", "describe", "g"),
    "truststore": lambda path: (
        *NOWHERE,
        "-c",
        properties(f"ssl.truststore.location={path}\n"),
        "describe",
        "g",
    ),
}


def properties(text: str) -> str:
    """A client properties file holding `text` (removed with the test session's temp files)."""
    fd, name = tempfile.mkstemp(suffix=".properties")
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    return name


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_device_is_refused_by_its_type_naming_the_file(tmp_path, reader) -> None:
    line = refused(tmp_path, *READERS[reader]("/dev/zero"), expect=2)
    assert "/dev/zero is a character device, not a regular file" in line


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_fifo_is_refused_without_opening_it(tmp_path, reader) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)  # opening it for reading would block until a writer comes
    line = refused(tmp_path, *READERS[reader](str(fifo)), expect=2)
    assert f"{fifo} is a FIFO (named pipe), not a regular file" in line


@pytest.mark.parametrize("reader", ["scenario", "plan", "properties", "backup"])
def test_a_directory_is_refused(tmp_path, reader) -> None:
    line = refused(tmp_path, *READERS[reader](str(tmp_path)), expect=2)
    assert f"{tmp_path} is a directory, not a regular file" in line


@pytest.mark.parametrize(
    ("reader", "size", "limit"),
    [
        ("scenario", 65 * 2**20, "64 MiB"),
        ("plan", 257 * 2**20, "256 MiB"),
        ("backup", 257 * 2**20, "256 MiB"),
        ("properties", 2 * 2**20, "1 MiB"),
        ("pem", 17 * 2**20, "16 MiB"),
        ("truststore", 17 * 2**20, "16 MiB"),
    ],
)
def test_a_file_over_its_limit_is_refused_before_reading(tmp_path, reader, size, limit) -> None:
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(size)  # sparse: costs no disk
    line = refused(tmp_path, *READERS[reader](str(big)), expect=2)
    assert f"{big} is {size // 2**20} MiB, over kgroup's limit of {limit}" in line


def test_a_settings_file_that_is_a_fifo_is_refused(tmp_path) -> None:
    (tmp_path / "config" / "kgroup").mkdir(parents=True)
    os.mkfifo(tmp_path / "config" / "kgroup" / "reset.properties")
    line = refused(
        tmp_path, *NOWHERE, "reset-offsets", "g", "--all-topics", "--to", "earliest", expect=2
    )
    assert "reset.properties is a FIFO" in line


@pytest.mark.parametrize(
    "args",
    [
        ("reset-offsets", "g", "--all-topics", "--to", "earliest", "--execute", "--backup", ""),
        ("reset-offsets", "g", "--all-topics", "--to", "earliest", "--backup", " "),
        ("undo", "g", "--backup", ""),
        ("reset-offsets", "g", "--all-topics", "--to", "earliest", "--export", ""),
        ("reset-offsets", "g", "--from-file", ""),
    ],
)
def test_an_empty_path_is_a_usage_error(tmp_path, args) -> None:
    line = refused(tmp_path, *NOWHERE, *args, expect=2)
    assert "needs a path, got an empty one" in line


RESET = (*NOWHERE, "reset-offsets", "billing", "--all-topics", "--to", "earliest")


def test_export_never_overwrites_a_file(tmp_path) -> None:
    existing = tmp_path / "plan.json"
    existing.write_text("precious\n")
    line = refused(tmp_path, *RESET, "--export", str(existing), expect=4)
    assert f"--export file {existing} exists already" in line
    assert existing.read_text() == "precious\n"


def test_export_refuses_a_dangling_symlink(tmp_path) -> None:
    link = tmp_path / "plan.csv"
    link.symlink_to(tmp_path / "nowhere.csv")
    line = refused(tmp_path, *RESET, "--export", str(link), expect=4)
    assert f"{link} exists already" in line
    assert not (tmp_path / "nowhere.csv").exists()


def test_export_never_writes_into_the_backup_directory(tmp_path) -> None:
    backups = tmp_path / "state" / "kgroup" / "backups"
    backups.mkdir(parents=True)
    backup = backups / "billing-20261122T062249399Z.json"
    backup.write_text('{"kind": "backup"}\n')
    line = refused(tmp_path, *RESET, "--export", str(backup), expect=4)
    assert "in kgroup's backup directory" in line
    assert backup.read_text() == '{"kind": "backup"}\n'
    fresh = backups / "new-plan.json"
    refused(tmp_path, *RESET, "--export", str(fresh), expect=4)
    assert not fresh.exists()
    # also through a link that points into it
    (tmp_path / "elsewhere").symlink_to(backups)
    refused(tmp_path, *RESET, "--export", str(tmp_path / "elsewhere" / "p.json"), expect=4)
    assert sorted(p.name for p in backups.iterdir()) == [backup.name]


def test_backup_directory_missing_or_read_only_is_a_usage_error(tmp_path) -> None:
    missing = tmp_path / "no" / "b.json"
    line = refused(tmp_path, *RESET, "--execute", "--backup", str(missing), expect=2)
    assert f"directory {missing.parent} does not exist" in line
    if os.geteuid() == 0:
        read_only = Path("/proc/self")  # root may write anywhere a mode allows; not here
    else:
        read_only = tmp_path / "ro"
        read_only.mkdir(mode=0o500)
    line = refused(tmp_path, *RESET, "--execute", "--backup", str(read_only), expect=2)
    assert f"directory {read_only} is not writable" in line


def test_decode_out_never_writes_into_the_backup_directory(tmp_path) -> None:
    backups = tmp_path / "state" / "kgroup" / "backups"
    backups.mkdir(parents=True)
    segment = tmp_path / "00000000000000000000.log"
    segment.write_bytes(b"")
    line = refused(
        tmp_path, "decode", "--segments", str(segment), "--out", str(backups / "d"), expect=4
    )
    assert "--out" in line and "backup directory" in line
    assert list(backups.iterdir()) == []
