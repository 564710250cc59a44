"""`kgroup decode --segments PATH` on a path it cannot use: README's exit-code table decides.

A path that exists but cannot be read (no read permission on the file or directory, no search
permission on a directory above it) or is not a segment directory is a bad argument: exit 2, one
line naming the path and what to do. A path that does not exist: exit 3. Before, unreadable paths
ended in "unexpected PermissionError" (exit 1) and a directory without segments in exit 3.

The tests run as root here, which reads everything: kgroup is then started through `setpriv` with
CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH out of its bounding set, so file permissions apply to it
as to any user.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

FIXTURE = Path("/work/shared/fixtures")
ROOT = Path(__file__).resolve().parents[2]


def unprivileged() -> list[str]:
    """The command prefix that makes file permissions apply to kgroup."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: file permissions cannot apply to kgroup")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]


def decode(tmp_path: Path, *paths: Path | str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGROUP_")}
    env.update(
        PYTHONPATH=str(ROOT),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
    )
    command = [*unprivileged(), sys.executable, "-m", "kgroup", "decode", "--segments"]
    return subprocess.run(
        [*command, *map(str, paths)], capture_output=True, text=True, env=env, timeout=60
    )


def one_line(result: subprocess.CompletedProcess) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr and "unexpected" not in result.stderr
    return lines[0]


@pytest.fixture()
def logdir(tmp_path: Path) -> Iterator[Path]:
    """A Kafka log directory with one __consumer_offsets partition holding one segment."""
    part = tmp_path / "logs" / "__consumer_offsets-0"
    part.mkdir(parents=True)
    (part / "00000000000000000000.log").write_bytes(b"")
    yield tmp_path / "logs"
    for path in (tmp_path / "logs").rglob("*"):  # let pytest clean up
        path.chmod(0o755 if path.is_dir() else 0o644)
    (tmp_path / "logs").chmod(0o755)


def test_a_readable_log_directory_decodes(tmp_path, logdir) -> None:
    result = decode(tmp_path, logdir)
    assert result.returncode == 0, result.stderr


def test_an_unreadable_segment_file_is_a_usage_error(tmp_path, logdir) -> None:
    segment = logdir / "__consumer_offsets-0" / "00000000000000000000.log"
    segment.chmod(0)
    result = decode(tmp_path, segment)
    line = one_line(result)
    assert result.returncode == 2, line
    assert f"cannot read {segment}: permission denied" in line
    assert "Hint:" in line


@pytest.mark.parametrize("given", ["partition", "logdir"])
def test_an_unreadable_directory_is_a_usage_error(tmp_path, logdir, given) -> None:
    part = logdir / "__consumer_offsets-0"
    part.chmod(0o300)  # no read: its files cannot be listed
    result = decode(tmp_path, part if given == "partition" else logdir)
    line = one_line(result)
    assert result.returncode == 2, line
    assert f"cannot read {part}: permission denied" in line


def test_a_file_below_a_directory_without_search_permission(tmp_path, logdir) -> None:
    part = logdir / "__consumer_offsets-0"
    part.chmod(0o600)  # no search: the file's status cannot be read
    segment = part / "00000000000000000000.log"
    result = decode(tmp_path, segment)
    line = one_line(result)
    assert result.returncode == 2, line
    assert f"cannot read {segment}: permission denied" in line


def test_a_directory_without_segments_is_a_usage_error(tmp_path) -> None:
    other = tmp_path / "photos"
    other.mkdir()
    (other / "cat.jpg").write_bytes(b"\xff\xd8")
    result = decode(tmp_path, other)
    line = one_line(result)
    assert result.returncode == 2, line
    assert f"{other} is not a segment directory" in line
    assert "Hint: give .log files" in line


def test_a_missing_path_is_not_found(tmp_path) -> None:
    result = decode(tmp_path, tmp_path / "nope")
    line = one_line(result)
    assert result.returncode == 3, line
    assert f"no such file or directory: {tmp_path / 'nope'}" in line
