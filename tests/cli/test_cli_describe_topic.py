"""`describe --topic` naming a topic Metadata does not list (issue #24 item 9), against the
scripted ACL cluster of tests/cli/test_cli_acl.py: a topic that does not exist is exit 3 naming
it, a topic the principal may not describe stays exit 1 naming the ACL (never "not found")."""

from __future__ import annotations

from tests.cli.test_cli_acl import cluster, kgroup, one_line  # noqa: F401 (the fixture)


def test_a_topic_that_does_not_exist_is_exit_3_naming_it(cluster, tmp_path) -> None:  # noqa: F811
    result = kgroup(cluster, tmp_path, "describe", "alice-live", "--topic", "nosuch", expect=3)
    line = one_line(result.stderr.replace(_hidden_note(result.stderr), ""))
    assert "topic nosuch does not exist" in line
    assert result.stdout == ""


def test_a_topic_hidden_by_an_acl_is_not_said_not_to_exist(cluster, tmp_path) -> None:  # noqa: F811
    result = kgroup(cluster, tmp_path, "describe", "alice-live", "--topic", "secret", expect=1)
    line = one_line(result.stderr.replace(_hidden_note(result.stderr), ""))
    assert "not authorized to describe topic secret" in line
    assert "does not exist" not in result.stderr


def _hidden_note(stderr: str) -> str:
    """describe's note about alice-live's offsets on `secret` (a line of its own), if printed."""
    return "".join(line + "\n" for line in stderr.splitlines() if "are hidden" in line)
