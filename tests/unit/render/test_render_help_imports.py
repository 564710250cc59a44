"""`kgroup --help` stays fast: the streamed-output writer is imported only where a stream is
written (issue #29), not by the help of every command."""

from __future__ import annotations

import subprocess
import sys


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
