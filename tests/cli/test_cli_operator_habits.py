"""Issue 12 (E1-E3) with no broker: Kafka's spellings (--group, --to-earliest...), partition
ranges and the help synopses, through a real `kgroup` process.

Usage errors come before any broker call: kgroup points at `127.0.0.1:1`, where nothing listens,
so a broker call would exit 6 instead of 2.
"""

from __future__ import annotations

import re

import pytest

from scripts.gen_docs import ROOT
from tests.helpers import run_kgroup

NO_BROKER = ("-b", "127.0.0.1:1", "--timeout", "2")


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


# --- E1: --group beside positional groups, --to-earliest|latest|current ----------------------


@pytest.mark.parametrize(
    "args",
    [
        ["describe", "--group", ""],
        ["describe", "g", "--group", " "],
        ["reset-offsets", "--group", "", "--topic", "t", "--to", "earliest"],
        ["delete", "--group", ""],
        ["delete-offsets", "--group", "", "--topic", "t"],
    ],
)
def test_empty_group_option_is_a_usage_error(args: list[str]) -> None:
    result = run_kgroup(*NO_BROKER, *args, expect=2)
    line = one_line(result.stderr)
    assert "--group: group name" in line
    assert "No such option" not in line


@pytest.mark.parametrize(
    ("strategy", "first", "second"),
    [
        (["--to-earliest", "--to", "latest"], "--to latest", "--to-earliest"),
        (["--to-earliest", "--to-earliest"], "--to-earliest", "--to-earliest"),
        (["--to-latest", "--to-current"], "--to-latest", "--to-current"),
        (["--to-current", "--shift-by", "1"], "--shift-by 1", "--to-current"),
    ],
)
def test_to_aliases_count_as_strategies(strategy: list[str], first: str, second: str) -> None:
    result = run_kgroup(
        *NO_BROKER, "reset-offsets", "--group", "g", "--topic", "t", *strategy, expect=2
    )
    line = one_line(result.stderr)
    assert f"give exactly one reset strategy: got {first} and {second}" in line
    assert "Possible options" not in line


@pytest.mark.parametrize(
    "args",
    [
        ["delete-offsets", "--topic", "t"],
        ["delete-offsets", "a", "--group", "b", "--topic", "t"],
        ["delete-offsets", "--group", "a", "--group", "b", "--topic", "t"],
    ],
)
def test_delete_offsets_takes_exactly_one_group(args: list[str]) -> None:
    line = one_line(run_kgroup(*NO_BROKER, *args, expect=2).stderr)
    assert "delete-offsets takes one group" in line


def test_delete_needs_a_group() -> None:
    line = one_line(run_kgroup(*NO_BROKER, "delete", expect=2).stderr)
    assert "delete needs GROUP... or --group GROUP" in line


def test_kafka_spellings_are_not_unknown_options() -> None:
    """The broker is unreachable (exit 6): the options themselves were accepted."""
    for args in (
        ["describe", "--group", "g"],
        ["reset-offsets", "--group", "g", "--topic", "t", "--to-earliest"],
        ["reset-offsets", "g", "--all-topics", "--to-latest"],
        ["reset-offsets", "g", "--all-topics", "--to-current"],
        ["delete", "--group", "g"],
        ["delete-offsets", "--group", "g", "--topic", "t"],
    ):
        result = run_kgroup(*NO_BROKER, *args, expect=6)
        assert "No such option" not in result.stderr


# --- E2: partition ranges ----------------------------------------------------------------


@pytest.mark.parametrize("bad", ["2-0", "a-b", "0-", "-1", "1,,2", "", "0-99999999999"])
@pytest.mark.parametrize(
    "command",
    [
        ["describe", "g"],
        ["reset-offsets", "g", "--to", "earliest"],
        ["delete-offsets", "g"],
    ],
)
def test_bad_partition_ranges_are_usage_errors_naming_the_text(
    bad: str, command: list[str]
) -> None:
    value = f"orders:{bad}"
    line = one_line(run_kgroup(*NO_BROKER, *command, "--topic", value, expect=2).stderr)
    assert f"--topic '{value}'" in line


# --- E3: synopses and metavars -----------------------------------------------------------

COMMANDS = [
    [],
    ["list"],
    ["describe"],
    ["reset-offsets"],
    ["undo"],
    ["delete"],
    ["delete-offsets"],
    ["simulate-assign"],
    ["decode"],
    ["sandbox"],
    ["sandbox", "start"],
    ["sandbox", "stop"],
    ["sandbox", "status"],
    ["sandbox", "seed"],
]
BROKEN_METAVAR = re.compile(r"\.\.\.\.|\[\[|<(str|int|float|text|path)>", re.IGNORECASE)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "kgroup")
def test_help_has_clean_synopsis_and_metavars(command: list[str]) -> None:
    out = run_kgroup(*command, "--help").stdout
    assert not BROKEN_METAVAR.findall(out), out


def test_man_page_synopses_are_clean() -> None:
    text = (ROOT / "man" / "kgroup.1").read_text(encoding="utf-8")
    assert not BROKEN_METAVAR.findall(text)
    for usage in (
        "kgroup describe [OPTIONS] [GROUP...]",
        "kgroup decode [OPTIONS] [PATH...]",
        "kgroup undo [OPTIONS] [GROUP]",
        "kgroup delete\\-offsets [OPTIONS] [GROUP]",
    ):
        assert usage.replace("-", "\\-").replace("\\\\-", "\\-") in text, usage


def test_choices_show_in_help() -> None:
    assert "--engine auto|local|spark" in run_kgroup("decode", "--help").stdout
    assert "--engine tansu|docker" in run_kgroup("sandbox", "start", "--help").stdout
    undo = " ".join(run_kgroup("undo", "--help").stdout.split())
    assert "required unless --list" in undo
