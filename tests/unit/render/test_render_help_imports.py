"""`kgroup --help` stays fast: the streamed-output writer is imported only where a stream is
written (issue #29), not by the help of every command."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _modules_after(*argv: str) -> set[str]:
    code = (
        "import sys\nfrom kgroup.cli.app import run\n"
        f"try:\n    run({list(argv)!r})\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sorted(sys.modules)))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return set(proc.stdout.splitlines()[-1].split())  # the last line: after the help text


def test_help_does_not_import_the_stream_writer() -> None:
    loaded = _modules_after("--help")
    assert "kgroup.cli.app" in loaded  # the probe ran kgroup
    assert "kgroup.render.stream" not in loaded


def test_describe_help_does_not_import_the_stream_writer() -> None:
    loaded = _modules_after("describe", "--help")
    assert "kgroup.cli.describe" in loaded
    assert "kgroup.render.stream" not in loaded


# What kgroup runs from generated code (issue #25: no JSON declaration read at run time) is
# imported where a command needs it, never by a help text.
GENERATED = (
    "kgroup.protocol.generated",
    "kgroup.protocol.declarations",
    "kgroup.offsets.generated",
    "kgroup.offsets.layouts",
    "kgroup.core.wire",
)


@pytest.mark.parametrize(
    "argv",
    [("--help",), ("describe", "--help"), ("decode", "--help"), ("reset-offsets", "--help")],
    ids=lambda argv: " ".join(argv),
)
def test_help_imports_no_generated_protocol_module(argv: tuple[str, ...]) -> None:
    loaded = _modules_after(*argv)
    assert "kgroup.cli.app" in loaded
    assert sorted(m for m in loaded if m.startswith(GENERATED)) == []
