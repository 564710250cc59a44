"""`kgroup sandbox start|status|seed|stop` as a user runs them, in a private state directory."""

from __future__ import annotations

import json
import os

import pytest

from kgroup.sandbox.state import process_alive
from tests.conftest import broker_choice
from tests.helpers import run_kgroup

pytestmark = pytest.mark.integration


@pytest.mark.skipif(
    broker_choice()[0] == "external",
    reason="KGROUP_TEST_BOOTSTRAP names the cluster; the sandbox is not used",
)
def test_sandbox_lifecycle_and_seeded_groups(isolated_state) -> None:
    env = {"XDG_STATE_HOME": str(isolated_state)}
    started = json.loads(run_kgroup("sandbox", "start", "-o", "json", env=env).stdout)
    pid = started["pid"]
    try:
        assert started["started_now"] is True
        assert process_alive(pid)
        again = json.loads(run_kgroup("sandbox", "start", "-o", "json", env=env).stdout)
        assert again["started_now"] is False and again["pid"] == pid

        status = json.loads(run_kgroup("sandbox", "status", "-o", "json", env=env).stdout)
        assert status["answers"] is True and status["brokers"] == 1

        run_kgroup("sandbox", "seed", env=env, timeout=90)
        listed = run_kgroup("list", "-o", "json", env=env)
        assert "using the sandbox broker" in listed.stderr
        groups = {g["group"]: g for g in json.loads(listed.stdout)["groups"]}
        assert groups["billing"]["state"] == "Empty"
        assert groups["shipping"]["state"] == "Stable"
        member_pids = json.loads((isolated_state / "kgroup" / "sandbox.json").read_text())[
            "member_pids"
        ]
        assert member_pids and all(process_alive(p) for p in member_pids)
    finally:
        stopped = json.loads(run_kgroup("sandbox", "stop", "-o", "json", env=env).stdout)
    assert stopped["stopped"] is True and stopped["pid"] == pid
    assert not process_alive(pid, "tansu")
    assert not os.path.exists(isolated_state / "kgroup" / "sandbox.json")
    gone = run_kgroup("sandbox", "status", env=env, expect=3)
    assert "sandbox start" in gone.stderr
