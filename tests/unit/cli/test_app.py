"""The CLI root: global options anywhere, version, usage errors (exit 2), one-line errors."""

from __future__ import annotations

from kgroup import __version__
from kgroup.cli.app import hoist_global_options, run


def test_global_options_after_the_command_move_to_the_front() -> None:
    assert hoist_global_options(["list", "-o", "json", "--state", "Empty", "-b", "h:1"]) == [
        "-o",
        "json",
        "-b",
        "h:1",
        "list",
        "--state",
        "Empty",
    ]
    assert hoist_global_options(["sandbox", "status", "--output=csv", "-Xclient.id=a"]) == [
        "--output=csv",
        "-Xclient.id=a",
        "sandbox",
        "status",
    ]
    assert hoist_global_options(["describe", "g", "--", "-o"]) == ["describe", "g", "--", "-o"]


def test_version(capsys) -> None:
    assert run(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"kgroup {__version__}"


def test_bad_output_value_is_a_one_line_usage_error(capsys) -> None:
    assert run(["-o", "yaml", "list"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "yaml" in err and "table, json, jsonl, csv" in err


def test_unknown_option_is_exit_2(capsys) -> None:
    assert run(["list", "--bogus"]) == 2
    assert "--bogus" in capsys.readouterr().err


def test_bad_timeout(capsys) -> None:
    assert run(["--timeout", "soon", "list"]) == 2
    assert "--timeout" in capsys.readouterr().err


def test_unknown_state_filter(capsys) -> None:
    assert run(["-b", "127.0.0.1:1", "list", "--state", "Sleeping"]) == 2
    err = capsys.readouterr().err
    assert "Sleeping" in err and "Stable" in err
