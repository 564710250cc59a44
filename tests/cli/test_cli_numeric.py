"""Numeric options that are not finite numbers are usage errors (exit 2), not crashes."""

from __future__ import annotations

import pytest

from tests.helpers import run_kgroup


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400", "0", "-1"])
def test_timeout_not_a_finite_positive_number_is_a_usage_error(value: str) -> None:
    result = run_kgroup("-b", "127.0.0.1:1", f"--timeout={value}", "list", expect=2)
    assert "--timeout must be" in result.stderr and "unexpected" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("value", ["nan", "inf", "0"])
def test_watch_not_a_finite_positive_number_is_a_usage_error(value: str) -> None:
    result = run_kgroup("-b", "127.0.0.1:1", "describe", "g", f"--watch={value}", expect=2)
    assert "--watch must be" in result.stderr and "unexpected" not in result.stderr


def test_timeout_from_the_environment_is_checked_too() -> None:
    result = run_kgroup("-b", "127.0.0.1:1", "list", env={"KGROUP_TIMEOUT": "nan"}, expect=2)
    assert "must be a positive number of seconds" in result.stderr
