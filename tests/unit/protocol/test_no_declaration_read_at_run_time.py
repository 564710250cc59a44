"""The wire path reads no JSON declaration when kgroup runs (issue #25): what the wire client
needs of each API (key, name, valid and flexible versions) is the committed generated module
kgroup/protocol/generated/apis.py, written by scripts/gen_protocol.py.

kgroup runs as a real process against a scripted broker (tests/unit/wire/fakegroups.py), with an
audit hook that records every file opened under kgroup/protocol/definitions/.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.wire.fakegroups import GroupsCluster

ROOT = Path(__file__).resolve().parents[3]

AUDIT = """
import os, runpy, sys
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
    made = GroupsCluster(topics={"orders": 2}, offsets={"billing": {("orders", 0): 5}})
    yield made
    made.close()


def audited(cluster: GroupsCluster, tmp_path: Path, *args: str) -> tuple[int, str, list[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGROUP_")}
    env.update(
        PYTHONPATH=str(ROOT),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
    )
    proc = subprocess.run(
        [sys.executable, "-c", AUDIT, "-b", cluster.address, "--timeout", "10", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("READ ")][-1]
    return proc.returncode, proc.stdout + proc.stderr, ast.literal_eval(line[5:])


@pytest.mark.parametrize(
    "args",
    [
        ("describe", "billing"),
        ("list",),
        ("reset-offsets", "billing", "--topic", "orders", "--to-earliest"),
    ],
    ids=["describe", "list", "reset-offsets-dry-run"],
)
def test_the_wire_path_reads_no_wire_declaration(
    cluster: GroupsCluster, tmp_path: Path, args: tuple[str, ...]
) -> None:
    code, output, read = audited(cluster, tmp_path, *args)
    assert code == 0, output
    wire = [path for path in read if path.startswith("wire" + os.sep)]
    assert wire == [], f"kgroup {args[0]} read {wire}"
    if args[0] != "reset-offsets":  # it still reads embedded/ through kgroup.offsets.schema
        assert read == [], f"kgroup {args[0]} read {read}"


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
