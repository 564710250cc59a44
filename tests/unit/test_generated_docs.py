"""completions/ and man/ are generated from the CLI: fail when they are stale."""

from __future__ import annotations

import subprocess

from scripts.gen_docs import ROOT, generated_files


def test_completions_and_man_page_match_the_cli() -> None:
    stale = [
        str(path.relative_to(ROOT))
        for path, text in generated_files().items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]
    assert not stale, f"regenerate with `make docs`: {stale}"


def test_bash_completion_completes_subcommands_and_options() -> None:
    script = ROOT / "completions" / "kgroup.bash"
    probe = (
        f"source {script}; COMP_WORDS=(kgroup sandbox st); COMP_CWORD=2; _kgroup; "
        "echo ${COMPREPLY[@]}; COMP_WORDS=(kgroup list --st); COMP_CWORD=2; _kgroup; "
        "echo ${COMPREPLY[@]}"
    )
    out = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["start status stop", "--state"]


def test_man_page_documents_every_exit_code() -> None:
    text = (ROOT / "man" / "kgroup.1").read_text(encoding="utf-8")
    for code in ("0", "1", "2", "3", "4", "5", "6", "7", "130"):
        assert f".B {code}\n" in text
