"""`python scripts/gen_protocol.py` alone regenerates everything the declarations make: the
protocol modules, the C reader's opcodes and kgroup/offsets/generated/ (the `__consumer_offsets`
readers and writers of scripts/gen_offsets_codec.py), so a changed coordinator declaration
leaves nothing stale (`make protocol` runs the same one command).

Run on a copy of the repository's generator inputs with one declaration changed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DECLARATION = Path("kgroup/protocol/definitions/coordinator/OffsetCommitValue.json")
GENERATED = Path("kgroup/offsets/generated")


def _copy(dest: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("kgroup", "scripts"):
        shutil.copytree(ROOT / name, dest / name, ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", dest / "pyproject.toml")


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def _texts(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text("utf-8") for p in folder.rglob("*.py")}


def test_gen_protocol_alone_leaves_no_offsets_module_stale(tmp_path: Path) -> None:
    _copy(tmp_path)
    path = tmp_path / DECLARATION
    decl = json.loads(path.read_text("utf-8"))
    decl["fields"].append(  # a new tagged field of v4+: the readers and writers change
        {"name": "testOnly", "type": "int32", "versions": "4+", "taggedVersions": "4+",
         "tag": 7, "default": "0", "about": "added by this test"}
    )  # fmt: skip
    path.write_text(json.dumps(decl, indent=2), encoding="utf-8")
    before = _texts(tmp_path / GENERATED)
    assert _run(tmp_path, "scripts/gen_offsets_codec.py", "--check").returncode == 1

    done = _run(tmp_path, "scripts/gen_protocol.py")
    assert done.returncode == 0, done.stdout + done.stderr

    offsets = _run(tmp_path, "scripts/gen_offsets_codec.py", "--check")
    assert offsets.returncode == 0, f"left stale by gen_protocol.py:\n{offsets.stdout}"
    assert _run(tmp_path, "scripts/gen_protocol.py", "--check").returncode == 0
    after = _texts(tmp_path / GENERATED)
    changed = {name for name in after if before.get(name) != after[name]}
    assert "readers/coordinator_offset_commit_value.py" in changed, sorted(changed)
    assert any("test_only" in after[name] for name in changed)
