"""The README's exit-code table is the single source of kgroup's exit codes: this test reads it
and checks the codes of `kgroup/core/errors.py` and of every error class in kgroup against it.
(tests/cli/test_cli_exit_codes.py runs one command per row.)"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import kgroup
from kgroup.core import errors

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_exit_table() -> dict[int, set[str]]:
    """code -> the error class names of its row (`raised as`), from README "### Exit codes"."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n### Exit codes\n", 1)[1].split("\n#", 1)[0]
    rows: dict[int, set[str]] = {}
    for line in section.splitlines():
        match = re.match(r"\|\s*(\d+)\s*\|", line)
        if not match:
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        assert len(cells) == 4, line
        code = int(match.group(1))
        assert code not in rows, f"code {code} has two rows"
        rows[code] = set(re.findall(r"`(\w+)`", cells[3]))
    return rows


def _all_error_classes() -> set[type[errors.KgroupError]]:
    for info in pkgutil.walk_packages(kgroup.__path__, "kgroup."):
        importlib.import_module(info.name)
    found: set[type[errors.KgroupError]] = set()
    todo = [errors.KgroupError]
    while todo:
        cls = todo.pop()
        found.add(cls)
        todo.extend(cls.__subclasses__())
    return found


def _exit_constants() -> dict[str, int]:
    """Every module-level EXIT_* code in kgroup (errors.py, reset/apply.py's statuses, ...)."""
    found: dict[str, int] = {}
    for info in pkgutil.walk_packages(kgroup.__path__, "kgroup."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if name.startswith("EXIT_") and isinstance(value, int):
                found[f"{info.name}.{name}"] = value
    return found


def test_the_table_has_every_exit_code_kgroup_defines_and_no_other() -> None:
    constants = _exit_constants()
    in_errors = {v for k, v in constants.items() if k.startswith("kgroup.core.errors.")}
    assert in_errors == {0, 1, 2, 3, 4, 5, 6, 7, 130, 143}
    assert set(readme_exit_table()) == set(constants.values())


def test_each_class_named_in_the_table_exits_with_its_row_code() -> None:
    classes = {cls.__name__: cls for cls in _all_error_classes()}
    for code, names in readme_exit_table().items():
        for name in names:
            cls = classes[name]
            assert issubclass(cls, errors.KgroupError), name
            assert cls.exit_code == code, f"{name} exits {cls.exit_code}, README says {code}"


def test_every_error_class_in_kgroup_exits_as_its_row_in_the_table() -> None:
    """Every KgroupError subclass anywhere in kgroup takes the code of the nearest class the
    table names: a subclass cannot quietly use another code."""
    by_name = {name: code for code, names in readme_exit_table().items() for name in names}
    classes = _all_error_classes()
    assert len(classes) > len(by_name)  # the walk found the subclasses outside errors.py
    for cls in classes:
        named = next(c for c in cls.__mro__ if c.__name__ in by_name)
        assert cls.exit_code == by_name[named.__name__], (
            f"{cls.__module__}.{cls.__name__} exits {cls.exit_code}, but README's row of "
            f"{named.__name__} says {by_name[named.__name__]}"
        )
