"""pyproject.toml's license in the form setuptools keeps: an SPDX expression string (PEP 639),
not the `{text = ...}` table it warns about and stops reading after 2027-02-18; and a
build backend that reads that form (setuptools 77 or later)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest depends on tomli below 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_license_is_an_spdx_expression_not_a_table() -> None:
    license = PYPROJECT["project"]["license"]
    assert isinstance(license, str), f"project.license must be an SPDX string, not {license!r}"
    assert license == "Apache-2.0"


def test_no_license_classifier_restates_it() -> None:
    # PEP 639: with a license expression, `License ::` classifiers are refused by setuptools
    classifiers = PYPROJECT["project"].get("classifiers", [])
    assert [c for c in classifiers if c.startswith("License ::")] == []


def test_the_build_backend_reads_license_expressions() -> None:
    requires = PYPROJECT["build-system"]["requires"]
    (setuptools,) = [r for r in requires if re.match(r"setuptools\b", r)]
    match = re.fullmatch(r"setuptools>=(\d+)(?:\.\d+)*", setuptools.replace(" ", ""))
    assert match is not None and int(match.group(1)) >= 77, setuptools


def test_license_files_name_files_that_exist() -> None:
    # every pattern matches a file, and a license file at the top is among them
    patterns = PYPROJECT["project"].get("license-files", [])
    for pattern in patterns:
        assert list(ROOT.glob(pattern)), f"license-files: {pattern} matches no file"
    top = [p.name for p in ROOT.iterdir() if re.match(r"(LICEN[CS]E|COPYING|NOTICE)", p.name)]
    for name in top:
        assert any(Path(name).match(pattern) for pattern in patterns), name
