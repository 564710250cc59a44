"""Issue 12 against the session's real broker: Kafka's spellings (--group, --to-earliest),
partition ranges (`t:0-2,5`) in describe and reset-offsets, and shell completion that asks the
cluster for group and topic names (bash, and zsh/fish when installed)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scripts.gen_docs import ROOT
from tests.helpers import admin_for, commit_offsets, make_topic, run_kgroup

pytestmark = pytest.mark.integration


def committed(bootstrap: str, group: str) -> dict[tuple[str, int], int]:
    found = admin_for(bootstrap).committed_offsets_or_none(group)
    return {(tp.topic, tp.partition): v.offset for tp, v in found.items()}


def test_describe_group_option_and_partition_ranges(kafka_broker, unique) -> None:
    b = kafka_broker.bootstrap
    topic, g1, g2 = f"rng-{unique}", f"rng-a-{unique}", f"rng-b-{unique}"
    make_topic(b, topic, [3, 3, 3, 3, 3, 3])
    commit_offsets(b, g1, {(topic, p): 1 for p in range(6)})
    commit_offsets(b, g2, {(topic, 0): 2})
    out = run_kgroup(
        "-b", b, "describe", g1, "--group", g2, "--topic", f"{topic}:0-2,5", "-o", "json"
    ).stdout
    rows = {
        g["group"]: sorted(p["partition"] for p in g["partitions"])
        for g in json.loads(out)["groups"]
    }
    assert rows == {g1: [0, 1, 2, 5], g2: [0]}
    # A range far beyond the topic is a filter like any other: no giant list, same rows.
    started = time.monotonic()
    out = run_kgroup("-b", b, "describe", "--group", g1, "--topic", f"{topic}:4-99999999").stdout
    assert time.monotonic() - started < 10
    assert [line.split()[2] for line in out.splitlines()[1:3]] == ["4", "5"]


def test_reset_with_group_option_range_and_to_earliest(kafka_broker, unique) -> None:
    b = kafka_broker.bootstrap
    topic, group = f"rst-{unique}", f"rst-g-{unique}"
    make_topic(b, topic, [4, 4, 4, 4])
    commit_offsets(b, group, {(topic, p): 3 for p in range(4)})
    run_kgroup(
        "-b", b, "reset-offsets", "--group", group, "--topic", f"{topic}:1-2",
        "--to-earliest", "--execute", "--backup", str(Path(os.environ.get("TMPDIR", "/tmp"))),
    )  # fmt: skip
    assert committed(b, group) == {(topic, 0): 3, (topic, 1): 0, (topic, 2): 0, (topic, 3): 3}
    # A huge range is checked against the topic first: exit 3 naming what lies beyond it.
    started = time.monotonic()
    result = run_kgroup(
        "-b", b, "reset-offsets", group, "--topic", f"{topic}:2-99999999", "--to-latest", expect=3
    )
    assert time.monotonic() - started < 10
    assert f"{topic}:4-99999999 (topic has 4 partitions)" in result.stderr
    assert committed(b, group)[(topic, 3)] == 3


def test_delete_with_group_option(kafka_broker, unique) -> None:
    b = kafka_broker.bootstrap
    topic, group = f"delg-{unique}", f"delg-g-{unique}"
    make_topic(b, topic, [1])
    commit_offsets(b, group, {(topic, 0): 1})
    out = run_kgroup("-b", b, "delete", "--group", group, "-o", "json").stdout
    assert [r["status"] for r in json.loads(out)["groups"]] == ["deleted"]


# --- E4: completion ----------------------------------------------------------------------


@pytest.fixture()
def kgroup_on_path(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH has a `kgroup` running this checkout."""
    shim = tmp_path / "bin" / "kgroup"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m kgroup "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGROUP_")}
    env["PATH"] = f"{shim.parent}:{env['PATH']}"
    env["XDG_STATE_HOME"] = str(tmp_path / "state")  # no sandbox to fall back to
    return env


def bash_complete(line: str, env: dict[str, str]) -> list[str]:
    script = ROOT / "completions" / "kgroup.bash"
    probe = (
        f'source {script}; COMP_LINE="$1"; COMP_POINT=${{#1}}; _kgroup; '
        'printf "%s\\n" "${COMPREPLY[@]}"'
    )
    out = subprocess.run(
        ["bash", "-c", probe, "bash", line], capture_output=True, text=True, env=env, check=True
    ).stdout
    return [w for w in out.splitlines() if w]


def test_complete_command_lists_names(kafka_broker, unique, kgroup_on_path) -> None:
    b = kafka_broker.bootstrap
    topic, group = f"cmp-{unique}", f"cmp-g-{unique}"
    make_topic(b, topic, [1])
    commit_offsets(b, group, {(topic, 0): 1})
    groups = run_kgroup("-b", b, "__complete", "groups").stdout.split()
    assert group in groups
    assert run_kgroup("-b", b, "__complete", "topics", f"cmp-{unique}").stdout.split() == [topic]
    assert run_kgroup("-b", "127.0.0.1:1", "__complete", "groups").stdout == ""


def test_bash_completes_cluster_names_and_choices(kafka_broker, unique, kgroup_on_path) -> None:
    b = kafka_broker.bootstrap
    topic, group = f"bc-{unique}", f"bc-g-{unique}"
    make_topic(b, topic, [1])
    commit_offsets(b, group, {(topic, 0): 1})
    env = kgroup_on_path
    assert bash_complete(f"kgroup -b {b} describe bc-g-", env) == [group]
    assert bash_complete(f"kgroup describe -b {b} --group bc-g-", env) == [group]
    assert bash_complete(f"kgroup --bootstrap-server={b} reset-offsets --topic bc-", env) == [topic]
    assert bash_complete(f"kgroup -b {b} -o ", env) == ["table", "json", "jsonl", "csv"]
    assert bash_complete("kgroup -o json desc", env) == ["describe"]
    assert bash_complete("kgroup reset-offsets --to ", env) == [
        "earliest", "latest", "none", "current"
    ]  # fmt: skip
    assert "--to-earliest" in bash_complete("kgroup reset-offsets g --to-", env)
    assert bash_complete("kgroup simulate-assign --strategy coop", env) == ["cooperative-sticky"]
    assert bash_complete("kgroup list --type c", env) == ["classic", "consumer"]
    assert bash_complete("kgroup decode --engine ", env) == ["auto", "local", "spark"]
    assert bash_complete("kgroup describe --ou", env) == ["--output"]  # global after command
    assert "--help" in bash_complete("kgroup describe --", env)
    assert "-X" in bash_complete("kgroup -", env)


def test_bash_completion_never_hangs_on_a_silent_broker(kgroup_on_path) -> None:
    """A listener that accepts and never answers: names are given up on within ~1 s."""
    import socket

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        address = f"127.0.0.1:{server.getsockname()[1]}"
        started = time.monotonic()
        found = bash_complete(f"kgroup -b {address} describe --group ", kgroup_on_path)
        elapsed = time.monotonic() - started
    print(f"silent broker: completion gave {found} after {elapsed:.2f} s")
    assert found == []
    assert elapsed < 3


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completes_values_and_names(kafka_broker, unique, kgroup_on_path) -> None:
    b = kafka_broker.bootstrap
    topic, group = f"fc-{unique}", f"fc-g-{unique}"
    make_topic(b, topic, [1])
    commit_offsets(b, group, {(topic, 0): 1})

    def complete(line: str) -> list[str]:
        script = ROOT / "completions" / "kgroup.fish"
        out = subprocess.run(
            ["fish", "-c", f"source {script}; complete -C $argv[1]", line],
            capture_output=True, text=True, env=kgroup_on_path, check=True,
        ).stdout  # fmt: skip
        return [row.split("\t")[0] for row in out.splitlines()]

    assert complete("kgroup -o ") == ["csv", "json", "jsonl", "table"]
    assert "describe" in complete("kgroup -o json ")
    assert complete(f"kgroup -b {b} describe fc-g-") == [group]
    assert complete(f"kgroup describe -b {b} --topic fc-") == [topic]
    assert "--output" in complete("kgroup describe --")


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_completes_values_and_names(kafka_broker, unique, kgroup_on_path) -> None:
    """zsh's completion builtins only work inside a widget: stubs print what would be offered."""
    b = kafka_broker.bootstrap
    topic, group = f"zc-{unique}", f"zc-g-{unique}"
    make_topic(b, topic, [1])
    commit_offsets(b, group, {(topic, 0): 1})
    script = ROOT / "completions" / "kgroup.zsh"
    probe = f"""
compdef() {{ : }}
source {script}
compadd() {{ while [[ $# -gt 0 && "$1" != "--" ]]; do shift; done; shift; print -rl -- "$@" }}
_describe() {{ local -a arr; arr=("${{(@P)2}}"); print -rl -- "${{arr[@]%%:*}}" }}
_files() {{ print -r -- "<files>" }}
compset() {{ : }}
words=(${{=1}}); [[ "$1" == *" " ]] && words+=(""); CURRENT=${{#words}}
_kgroup
"""

    def complete(line: str) -> list[str]:
        out = subprocess.run(
            ["zsh", "-f", "-c", probe, "zsh", line],
            capture_output=True, text=True, env=kgroup_on_path, check=True,
        ).stdout  # fmt: skip
        return out.split()

    assert complete("kgroup -o ") == ["table", "json", "jsonl", "csv"]
    assert "describe" in complete("kgroup -o json ")
    assert complete(f"kgroup -b {b} describe ") == sorted(complete(f"kgroup -b {b} describe "))
    assert group in complete(f"kgroup -b {b} describe ")
    assert topic in complete(f"kgroup describe -b {b} --topic ")
    assert complete("kgroup decode ") == ["<files>"]
