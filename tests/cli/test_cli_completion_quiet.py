"""TAB completion never prints to the terminal (issue #24 item 16): the script
`kgroup --install-completion` installs runs kgroup with stderr on the terminal, so a note such as
"kgroup: using the sandbox broker ..." would land in the user's prompt. Real processes, with a
running sandbox (the case that printed the note) and with a cluster that is not there."""

from __future__ import annotations

import pytest

from tests.helpers import commit_offsets, make_topic, run_kgroup


def _complete(line: str, env: dict[str, str]) -> tuple[str, str]:
    """What bash's `_kgroup_completion` (Typer's script) gets for `line` + TAB."""
    words = line.split(" ")
    result = run_kgroup(
        env={
            **env,
            "_KGROUP_COMPLETE": "complete_bash",
            "COMP_WORDS": line,
            "COMP_CWORD": str(len(words) - 1),
        },
        expect=None,
    )
    return result.stdout, result.stderr


@pytest.fixture()
def sandbox(isolated_state, unique):
    env = {"XDG_STATE_HOME": str(isolated_state)}
    started = run_kgroup("sandbox", "start", "-o", "json", env=env)
    bootstrap = __import__("json").loads(started.stdout)["bootstrap"]
    group = f"tab-{unique}"
    make_topic(bootstrap, f"tab-t-{unique}", [1])
    commit_offsets(bootstrap, group, {(f"tab-t-{unique}", 0): 1})
    try:
        yield env, group
    finally:
        run_kgroup("sandbox", "stop", env=env, expect=None)


def test_completion_through_the_sandbox_prints_nothing_but_names(sandbox) -> None:
    env, group = sandbox
    out, err = _complete("kgroup describe tab-", env)
    assert err == ""
    assert group in out.split()
    out, err = _complete("kgroup reset-offsets --to ", env)  # fixed values: still silent
    assert err == "" and "earliest" in out.split()


def test_completion_with_a_bad_setting_prints_nothing(isolated_state) -> None:
    env = {"XDG_STATE_HOME": str(isolated_state), "KGROUP_TIMEOUT": "-5"}
    out, err = _complete("kgroup describe ", {**env, "KGROUP_BOOTSTRAP_SERVERS": "127.0.0.1:1"})
    assert err == "" and out.strip() == ""
    names = run_kgroup("-b", "127.0.0.1:1", "-X", "=v", "__complete", "groups", expect=None)
    assert names.stderr == "" and names.stdout == ""
