"""No JSON declaration is read when kgroup runs (issue #25): the files under
kgroup/protocol/definitions/ are build inputs. What run-time code needs of a declaration is
committed generated code: the wire client's API table (kgroup/protocol/generated/apis.py), the
declarations as Python literals (kgroup/protocol/generated/declarations/), the
`__consumer_offsets` readers and writers with the C reader's programs
(kgroup/offsets/generated/), all written by scripts/gen_protocol.py.

kgroup runs as a real process, with an audit hook that records every file opened under a
`definitions` folder: decode (C and pure Python paths, --summary, --latest, share-state
segments), simulate-assign, and describe, list, reset-offsets (dry run and executed) and check
against scripted brokers (tests/unit/wire/fakegroups.py, fakecluster.py, fakecheck.py). An AST
scan fails when a module of kgroup imports the JSON loader (scripts/definitions.py).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.wire.fakegroups import FakeConsumerGroup, FakeMember, GroupsCluster

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "kgroup"
FIXTURE = (
    Path(os.environ.get("KGROUP_KAFKA41_FIXTURES", "/work/shared/fixtures/kafka-4.1"))
    / "every-record-type"
)

AUDIT = """
import os, runpy, sys
if os.environ.get("TEST_PURE"):
    from kgroup.offsets import native
    native.set_enabled(False)
read = []
def hook(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].endswith(".json"):
        if os.sep + "definitions" + os.sep in args[0]:
            read.append(os.path.relpath(args[0], os.path.dirname(args[0]) + "/.."))
sys.addaudithook(hook)
sys.argv = ["kgroup", *sys.argv[1:]]
try:
    runpy.run_module("kgroup", run_name="__main__")
except SystemExit as exc:
    code = exc.code
else:
    code = 0
sys.stderr.write("READ " + repr(sorted(set(read))) + "\\n")
sys.exit(code)
"""


@pytest.fixture()
def cluster() -> Iterator[GroupsCluster]:
    made = GroupsCluster(
        topics={"orders": 2},
        offsets={"billing": {("orders", 0): 5}},
        consumer_groups={
            "kip848": FakeConsumerGroup(
                (FakeMember("m-1", subscribed=("orders",), assignment=(("orders", 0),)),)
            )
        },
    )
    yield made
    made.close()


def audited(
    tmp_path: Path, *args: str, address: str | None = None, pure: bool = False
) -> tuple[int, str, list[str]]:
    """Run kgroup `args` (against the broker at `address`); (exit code, output, JSON files
    opened under a definitions folder)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGROUP_")}
    env.pop("TEST_PURE", None)
    env.update(
        PYTHONPATH=str(ROOT),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
    )
    if pure:
        env["TEST_PURE"] = "1"  # the C fast path switched off: the Python readers only
    broker = ["-b", address, "--timeout", "10"] if address else []
    proc = subprocess.run(
        [sys.executable, "-c", AUDIT, *broker, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("READ ")][-1]
    return proc.returncode, proc.stdout + proc.stderr, ast.literal_eval(line[5:])


def _no_read(tmp_path: Path, *args: str, **kw: object) -> str:
    code, output, read = audited(tmp_path, *args, **kw)  # type: ignore[arg-type]
    assert code == 0, output[-2000:]
    assert read == [], f"kgroup {' '.join(args)} read {read}"
    return output


@pytest.mark.parametrize(
    "args",
    [
        ("describe", "billing"),
        ("list",),
        ("reset-offsets", "billing", "--topic", "orders", "--to-earliest"),
        ("simulate-assign", "--from-group", "kip848", "-o", "json"),
    ],
    ids=["describe", "list", "reset-offsets-dry-run", "simulate-assign-from-group"],
)
def test_commands_on_a_broker_read_no_declaration(
    cluster: GroupsCluster, tmp_path: Path, args: tuple[str, ...]
) -> None:
    _no_read(tmp_path, *args, address=cluster.address)


needs_fixture = pytest.mark.skipif(
    not FIXTURE.is_dir(), reason="the Kafka 4.1 fixtures are not on this machine"
)


@needs_fixture
@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
@pytest.mark.parametrize(
    "extra",
    [("-o", "jsonl"), ("--summary", "-o", "json"), ("--latest", "-o", "jsonl")],
    ids=["records", "summary", "latest"],
)
def test_decode_reads_no_declaration(tmp_path: Path, pure: bool, extra: tuple[str, ...]) -> None:
    output = _no_read(tmp_path, "decode", "--segments", str(FIXTURE), *extra, pure=pure)
    assert "offset_commit" in output or "billing" in output or '"group"' in output


@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
def test_decode_of_share_state_reads_no_declaration(tmp_path: Path, pure: bool) -> None:
    from tests.cli.test_cli_decode_share_state import _segments

    segments = _segments(tmp_path)
    output = _no_read(tmp_path, "decode", "--segments", str(segments), "-o", "jsonl", pure=pure)
    assert "share_snapshot" in output and "share_update" in output


def test_simulate_assign_reads_no_declaration(tmp_path: Path) -> None:
    output = _no_read(
        tmp_path,
        "simulate-assign",
        "--strategy",
        "cooperative-sticky",
        "--members",
        "c1,c2",
        "--topics",
        "orders:4",
        "--events",
        "+c3,-c1",
    )
    assert "c3" in output


def test_an_executed_reset_reads_no_declaration(tmp_path: Path) -> None:
    from tests.unit.wire.fakecluster import FakeCluster

    cluster = FakeCluster(
        topics={"orders": 2},
        offsets={"billing": {("orders", 0): 3, ("orders", 1): 4}},
        coordinators={"billing": 2},
    )
    try:
        args = ("reset-offsets", "billing", "--all-topics", "--to-offset", "5", "--execute")
        _no_read(tmp_path, *args, "-o", "json", address=cluster.address)
        assert cluster.committed("billing") == {("orders", 0): 5, ("orders", 1): 5}
    finally:
        cluster.close()


def test_check_reads_no_declaration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kgroup.core.wire.log_dirs import WIRE_API
    from kgroup.protocol import messages as api_table
    from tests.unit.wire.fakecluster import CheckFakeCluster

    # FakeBroker picks header layouts from the wire client's API table, which does not list
    # DescribeLogDirs (as tests/cli/test_cli_check.py)
    monkeypatch.setitem(api_table.APIS, WIRE_API.key, WIRE_API)
    cluster = CheckFakeCluster(coordinators={"billing": 2})
    try:
        args = ("check", "billing", "--window", "2s", "--samples", "3", "-o", "json")
        output = _no_read(tmp_path, *args, address=cluster.address)
        assert '"partitions"' in output
    finally:
        cluster.close()


def test_the_generated_table_is_the_declarations() -> None:
    """Each Api's key, valid and flexible versions are its request's and response's, and every
    version kgroup speaks is declared by both (the checks Api made on the declarations)."""
    from kgroup.protocol import messages
    from kgroup.protocol.generated.apis import API_TABLE
    from kgroup.protocol.messages.share_groups import SHARE_APIS

    apis = {**messages.APIS, **SHARE_APIS}
    assert {api.name for api in apis.values()} <= set(API_TABLE)
    for api in apis.values():
        request, response = api.request, api.response
        assert request.api_key == response.api_key == api.key, api.name
        assert request.flexible_from == response.flexible_from == api.flexible_from, api.name
        for version in api.versions:
            assert request.supports(version) and response.supports(version), (api.name, version)


def test_an_undeclared_version_is_refused_without_reading_json() -> None:
    from kgroup.protocol.model import Api

    with pytest.raises(ValueError, match="does not declare v12"):
        Api(1, "Fetch", (0, 11), 12, (11, 12))


def test_a_hand_edited_table_makes_the_freshness_check_fail(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scripts import gen_protocol

    files = gen_protocol.formatted()
    target = gen_protocol.OUT / "apis.py"
    assert target in files
    monkeypatch.setitem(
        files, target, files[target].replace("(1, (0, 11), 12)", "(1, (0, 12), 12)")
    )
    assert target in gen_protocol.stale(files)


# ---------------------------------------------------------------------------------------------
# The JSON loader is build tooling: no module of kgroup imports it


LOADER = "scripts.definitions"


def _imports(path: Path, source: str | None = None) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def loader_importers(edited: dict[Path, str] | None = None) -> set[str]:
    """Modules of kgroup importing the JSON loader, or anything of scripts/ (at any depth,
    lazily too); `edited` gives modules' text in place of the files'."""
    edited = edited or {}
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        for module in _imports(path, edited.get(path)):
            if module == "scripts" or module.startswith("scripts.") or module == LOADER:
                found.add(str(path.relative_to(ROOT)))
    return found


def test_no_module_of_kgroup_imports_the_json_loader() -> None:
    found = loader_importers()
    assert not found, (
        f"kgroup reads no JSON declaration when it runs: use kgroup.protocol.declarations "
        f"(generated Python), not {LOADER}:\n" + "\n".join(sorted(found))
    )


def test_the_definitions_package_holds_no_code() -> None:
    """kgroup/protocol/definitions/ is JSON (build input) and a docstring: no loader."""
    tree = ast.parse((PACKAGE / "protocol" / "definitions" / "__init__.py").read_text())
    assert [type(node) for node in tree.body] == [ast.Expr], "move code to scripts/definitions.py"
    assert sorted(p.name for p in (PACKAGE / "protocol" / "definitions").glob("*.py")) == [
        "__init__.py"
    ]


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("offsets/schema.py", "from scripts.definitions import load"),
        ("protocol/model.py", "import scripts.definitions"),
        ("decode/run.py", "from scripts import definitions"),
    ],
)
def test_an_added_loader_import_is_caught(module: str, line: str) -> None:
    path = PACKAGE / module
    text = path.read_text(encoding="utf-8") + f"\n\ndef _added():\n    {line}\n"
    assert f"kgroup/{module}" in loader_importers({path: text})


# ---------------------------------------------------------------------------------------------
# The generated declarations are the JSON files'


def test_every_generated_declaration_equals_its_json_file() -> None:
    from kgroup.protocol.declarations import declaration
    from scripts.definitions import load, paths

    every = paths()
    assert len(every) > 90
    for path in every:
        built, loaded = declaration(path), load(path)
        assert built is declaration(path)  # built once
        assert repr(built) == repr(loaded), path
        assert built.path == loaded.path == path


def test_an_unknown_declaration_is_named() -> None:
    from kgroup.protocol.declarations import declaration

    with pytest.raises(LookupError, match="no declaration 'coordinator/NoSuchValue'"):
        declaration("coordinator/NoSuchValue")
    with pytest.raises(LookupError, match="no declaration 'nowhere/X'"):
        declaration("nowhere/X")


def test_a_hand_edited_declaration_module_makes_the_freshness_check_fail(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scripts import gen_protocol

    files = gen_protocol.formatted()
    target = gen_protocol.OUT / "declarations" / "coordinator.py"
    assert target in files and '"coordinator/OffsetCommitValue"' in files[target]
    monkeypatch.setitem(files, target, files[target].replace("valid=(0, 4)", "valid=(0, 5)", 1))
    assert target in gen_protocol.stale(files)
