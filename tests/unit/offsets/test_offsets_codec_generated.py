"""kgroup.offsets.generated: the decoder's readers and the encoder's writers are committed
source, current with the declarations, and nothing is compiled or exec'd when kgroup runs.

The modules are written by scripts/gen_offsets_codec.py (`make protocol`); this test fails when
regenerating would change one, as test_protocol_generated.py does for kgroup.protocol.generated.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kgroup.offsets import layouts, schema
from kgroup.protocol.declarations import declaration
from scripts import gen_offsets_codec

FIXTURE = (
    Path(os.environ.get("KGROUP_KAFKA41_FIXTURES", "/work/shared/fixtures/kafka-4.1"))
    / "every-record-type"
)
ROOT = Path(__file__).resolve().parents[3]

# Runs `kgroup decode` with an audit hook that records every compile() and exec() called by
# kgroup's own code (the standard library's dataclasses and imports are not kgroup's doing).
AUDIT = """
import os, runpy, sys
if os.environ.get("TEST_PURE"):
    from kgroup.offsets import native
    native.set_enabled(False)
made = []
def hook(event, args):
    if event in ("compile", "exec"):
        caller = sys._getframe(1).f_code.co_filename
        if os.sep + "kgroup" + os.sep in caller:
            made.append((event, caller))
sys.addaudithook(hook)
sys.argv = ["kgroup", *sys.argv[1:]]
try:
    runpy.run_module("kgroup", run_name="__main__")
except SystemExit as exc:
    code = exc.code
else:
    code = 0
sys.stderr.write("MADE " + repr(sorted(set(made))) + "\\n")
sys.exit(code)
"""


def test_generated_files_are_current() -> None:
    stale = gen_offsets_codec.stale(gen_offsets_codec.formatted())
    assert not stale, f"run `python scripts/gen_offsets_codec.py`: {stale}"


@pytest.mark.parametrize("name", ["readers/coordinator_offset_commit_value.py", "programs.py"])
def test_a_hand_edit_makes_the_check_fail(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    files = gen_offsets_codec.generated_files()
    target = gen_offsets_codec.OUT / name
    assert target in files
    monkeypatch.setitem(files, target, files[target] + "# hand edit\n")
    assert target in gen_offsets_codec.stale(files)


def test_every_declaration_and_version_the_decoder_reads_is_generated() -> None:
    count = 0
    for path in gen_offsets_codec.paths():
        msg = declaration(path)
        for version in range(msg.valid[0], msg.valid[1] + 1):
            fn = layouts.get_py_reader(msg.struct, version, msg.flexible(version))
            assert fn.__module__ == f"kgroup.offsets.generated.readers.{layouts.module_name(path)}"
            count += 1
    assert count > 50  # keys, values, earlier layouts, share state, embedded protocols


def test_the_c_programs_are_generated_from_the_declarations() -> None:
    """The committed programs are the JSON declarations' (the fast path's tables are not
    compiled at run time, and not copied by hand)."""
    from scripts.definitions import load

    count = 0
    for path in gen_offsets_codec.paths():
        msg = load(path)
        for version, program in gen_offsets_codec.programs(msg).items():
            struct = declaration(path).struct
            if program is None:
                with pytest.raises(layouts.Unsupported):
                    layouts.c_program(struct, version, msg.flexible(version))
            else:
                assert layouts.c_program(struct, version, msg.flexible(version)) == program
                count += 1
    assert count > 50


def test_a_declaration_without_generated_code_is_named() -> None:
    """Readers are found by the declaration's path: a table built in code has none, and a
    version the declaration lacks is refused (no reader of another layout is taken)."""
    msg = schema.OFFSET_COMMIT_VALUE
    built = schema.Struct(msg.struct.name, msg.struct.fields)
    with pytest.raises(LookupError, match=r"OffsetCommitValue \(declaration built in code\)"):
        layouts.get_py_reader(built, 3, False)
    with pytest.raises(LookupError, match=r"OffsetCommitValue v5"):
        layouts.get_py_reader(msg.struct, 5, True)
    with pytest.raises(LookupError, match=r"OffsetCommitValue v3 \(flexible\)"):
        layouts.get_py_reader(msg.struct, 3, True)
    unknown = schema.Struct("Nothing", (), "coordinator/NothingValue")
    with pytest.raises(LookupError, match=r"declaration 'coordinator/NothingValue'"):
        layouts.get_reader(unknown, 0, False)


@pytest.mark.skipif(not FIXTURE.is_dir(), reason="the Kafka 4.1 fixtures are not on this machine")
@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
def test_decode_compiles_and_execs_no_code_and_caches_none(tmp_path: Path, pure: bool) -> None:
    """A cold `kgroup decode` (empty cache directory) makes no code from strings at run time and
    writes nothing under XDG_CACHE_HOME (there is no code cache)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGROUP_")}
    env.update(
        PYTHONPATH=str(ROOT),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_STATE_HOME=str(tmp_path / "state"),
    )
    args = ["decode", "--segments", str(FIXTURE), "-o", "jsonl"]
    if pure:
        env["TEST_PURE"] = "1"  # the C fast path switched off: only the Python readers
    proc = subprocess.run(
        [sys.executable, "-c", AUDIT, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(records) > 20
    assert {r["record_type"] for r in records} >= {"offset_commit", "group_metadata"}
    made = [line for line in proc.stderr.splitlines() if line.startswith("MADE ")]
    assert made == ["MADE []"], proc.stderr[-2000:]
    cache = tmp_path / "cache"
    assert not cache.exists() or not any(cache.rglob("*")), sorted(cache.rglob("*"))


def test_no_module_of_kgroup_calls_exec_eval_or_compile() -> None:
    """The code kgroup runs is the code in its files: no code object is made from a string."""
    import ast

    import kgroup

    calls = []
    for path in sorted(Path(kgroup.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("exec", "eval", "compile")
            ):
                calls.append(f"{path.name}:{node.lineno} {node.func.id}")
    assert calls == []
