"""The exit code a `check` run ends with, from its verdicts (CLI.md's exit codes)."""

from __future__ import annotations

import pytest

from kgroup.check.model import GroupVerdict, Status
from kgroup.check.run import CheckOptions, CheckRun
from kgroup.core.errors import CheckFailed, NotFoundError, PartialFailure
from kgroup.describe.collect import Selection


def check_outcome(verdicts: list[GroupVerdict], request: CheckOptions) -> None:
    """Print-through of a run whose verdicts are `verdicts`, then its exit (as the CLI does)."""
    listed = request.all_groups or request.match is not None
    selection = Selection([v.group for v in verdicts], listed=listed)
    run = CheckRun(request, selection, "sampling", 0, (), iter(verdicts))
    assert list(run) == verdicts
    run.raise_outcome()


def verdict(name: str, status: Status, error: str | None = None, kind: str | None = None):
    return GroupVerdict(name, status, "r", "why", "sampling", error=error, error_kind=kind)


def test_ok_and_warn_pass_at_the_default_level() -> None:
    check_outcome([verdict("a", Status.OK), verdict("b", Status.WARN)], CheckOptions(["a", "b"]))


def test_warn_fails_with_fail_on_warn() -> None:
    with pytest.raises(CheckFailed) as info:
        check_outcome([verdict("b", Status.WARN)], CheckOptions(["b"], fail_on="warn"))
    assert info.value.exit_code == 5
    assert info.value.one_line() == "1 of 1 groups are WARN or worse: b WARN: why"


def test_a_named_group_missing_is_exit_3_even_beside_an_err() -> None:
    groups = [verdict("gone", Status.NOTFOUND, "group gone does not exist", "not_found")]
    with pytest.raises(NotFoundError) as info:
        check_outcome([*groups, verdict("x", Status.ERR)], CheckOptions(["gone", "x"]))
    assert info.value.exit_code == 3


def test_a_group_that_could_not_be_checked_is_exit_1_and_named() -> None:
    denied = verdict("secret", Status.ERR, "not authorized (GROUP_AUTHORIZATION_FAILED)", "error")
    with pytest.raises(PartialFailure) as info:
        check_outcome([denied, verdict("ok", Status.OK)], CheckOptions(["secret", "ok"]))
    assert info.value.exit_code == 1
    assert "secret" in info.value.one_line()


def test_listed_groups_that_vanished_are_a_partial_failure_not_a_lookup() -> None:
    gone = verdict("gone", Status.NOTFOUND, "group gone does not exist", "not_found")
    with pytest.raises(PartialFailure):
        check_outcome([gone], CheckOptions([], all_groups=True))
