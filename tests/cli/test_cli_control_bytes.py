"""No raw control bytes reach the terminal from any output path (issue #24 item 4): group,
topic, member, client and host names holding escape sequences, BEL, tabs, newlines and bidi
controls, through every command and output mode that prints them, `check --watch` included,
on a scripted coordinator (tests/unit/wire/fakegroups.py; real Kafka refuses such topic names,
but group ids and client ids are free text)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from tests.helpers import run_kgroup
from tests.unit.wire.fakegroups import FakeConsumerGroup, FakeMember, GroupsCluster

EVIL = "\x1b[31mRED\x1b]0;pwned\x07\tx\ny\u202e\x9b"
GROUP = f"grp{EVIL}"
TOPIC = f"top{EVIL}"
KIP848 = f"kip{EVIL}"
# what a terminal acts on: C0 controls but the line feed ending each line, DEL, C1, bidi
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture(scope="module")
def cluster() -> Iterator[GroupsCluster]:
    member = FakeMember(
        f"member{EVIL}",
        client_id=f"client{EVIL}",
        client_host=f"/host{EVIL}",
        subscribed=(TOPIC,),
        assignment=((TOPIC, 0),),
        target=((TOPIC, 0),),
    )
    made = GroupsCluster(
        topics={TOPIC: 1},
        offsets={GROUP: {(TOPIC, 0): 3}, KIP848: {(TOPIC, 0): 5}},
        consumer_groups={KIP848: FakeConsumerGroup((member,))},
    )
    yield made
    made.close()


def env(tmp_path) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path),
            "KGROUP_NO_PROGRESS": "1"}  # fmt: skip


def assert_clean(text: str, where: str) -> None:
    found = RAW.search(text)
    assert found is None, f"{where}: raw {found.group()!r} in {text!r}"


COMMANDS = [
    ("list",),
    ("describe", "--all-groups"),
    ("describe", "--all-groups", "--members", "--assignments"),
    ("describe", "--all-groups", "--state"),
    ("describe", GROUP, f"nosuch{EVIL}"),
    ("check", "--all-groups", "--window", "1s", "--samples", "2", "--no-lag-time"),
    ("check", f"nosuch{EVIL}", "--window", "1s", "--samples", "2", "--no-lag-time"),
]


@pytest.mark.parametrize("mode", ["table", "csv", "json", "jsonl"])
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:3]).encode().hex()[:24])
def test_no_raw_control_bytes_in_any_mode(cluster, tmp_path, args, mode) -> None:
    result = run_kgroup(
        "-b", cluster.address, "--timeout", "10", *args, "-o", mode, env=env(tmp_path), expect=None
    )
    assert "Traceback" not in result.stderr
    assert result.stdout or result.stderr
    assert_clean(result.stderr, "stderr")
    if mode in ("table", "csv"):
        assert_clean(result.stdout, "stdout")
        if not any("nosuch" in a for a in args):
            assert "\\x1b[31mRED" in result.stdout  # shown, escaped
    else:  # JSON escapes C0 controls itself; nothing else raw either
        assert_clean(result.stdout, "stdout")


def test_check_watch_lines_are_escaped(cluster, tmp_path) -> None:
    import os

    full = {k: v for k, v in os.environ.items() if not k.startswith("KGROUP_")}
    full.update(env(tmp_path))
    watch = subprocess.Popen(
        [sys.executable, "-m", "kgroup", "-b", cluster.address, "check", GROUP, "--window", "1s",
         "--samples", "2", "--no-lag-time", "--watch"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    time.sleep(6)
    watch.send_signal(signal.SIGINT)
    out, err = watch.communicate(timeout=30)
    assert watch.returncode == 130, err
    assert out, err
    assert_clean(out, "--watch stdout")
    assert_clean(err, "--watch stderr")
    assert all("\\x1b[31mRED" in line for line in out.splitlines()), out
