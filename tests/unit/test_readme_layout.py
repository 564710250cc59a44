"""README's "Layout" section is the tree as it is: every module of kgroup (generated ones and
`__init__.py` aside), top-level ones such as `__main__.py` included, is named in its package's
entry by its exact name (no glob: `spark*.py` would let any new `spark_*.py` pass unsaid), and
every file an entry names exists (issue #25: the section had fallen behind the code, naming
modules that had gone)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "kgroup"
README = ROOT / "README.md"
FILE = re.compile(r"(?<![\w/.])((?:\w+/)*[\w*]+\.(?:py|c))(?![\w/])")
TOP = "kgroup/"  # the tree's first line: the entry of kgroup's top-level modules


def layout_entries(text: str | None = None) -> dict[str, str]:
    """Package folder ("core/wire/") -> its entry's text, from the tree in "## Layout"; the
    top-level modules' entry is the tree's first line (folder "")."""
    text = README.read_text(encoding="utf-8") if text is None else text
    section = text[text.index("## Layout") :]
    tree = section[section.index("```text\n" + TOP) + len("```text\n") :]
    tree = tree[: tree.index("```")]
    first, _, rest = tree.partition("\n")
    entries: dict[str, str] = {"": first[len(TOP) :]}
    current: str | None = ""
    for line in rest.splitlines():
        head = re.match(r"^  ([\w/]+/)\s", line)
        if head:
            current = head.group(1)
            entries[current] = line[head.end() :]
        elif current is not None:
            entries[current] += " " + line.strip()
    return entries


def modules() -> list[Path]:
    """kgroup's hand-written modules and C sources, relative to kgroup/."""
    found = []
    for path in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.c")]):
        rel = path.relative_to(PACKAGE)
        if "generated" in rel.parts or rel.name == "__init__.py":
            continue
        found.append(rel)
    return found


def _entry_of(rel: Path, entries: dict[str, str]) -> str | None:
    parent = "" if rel.parent == Path() else f"{rel.parent}/"
    folders = [f for f in entries if parent.startswith(f) and (f or not parent)]
    return max(folders, key=len) if folders else None


def unnamed(entries: dict[str, str]) -> list[str]:
    """Modules their package's entry does not name by their exact name (a glob names none)."""
    missing = []
    for rel in modules():
        folder = _entry_of(rel, entries)
        if folder is None:
            missing.append(f"{rel} (no entry for its package)")
            continue
        names = [name.rsplit("/", 1)[-1] for name in FILE.findall(entries[folder])]
        inner = rel.relative_to(folder)
        folder_named = len(inner.parts) == 1 or f"{inner.parts[0]}/" in entries[folder]
        if not folder_named or rel.name not in names:
            missing.append(str(rel))
    return missing


def named_but_absent(entries: dict[str, str]) -> list[str]:
    """Files an entry names that do not exist: under the entry's folder (at any depth), or as
    a path from kgroup/ or from the repository root."""
    absent = []
    for folder, entry in entries.items():
        for name in FILE.findall(entry):
            if "/" in name:
                places = [PACKAGE / folder / name, PACKAGE / name, ROOT / name]
                if not any(p.exists() for p in places):
                    absent.append(f"{folder}: {name}")
            elif "*" in name:
                absent.append(f"{folder}: {name} (a glob: name the files)")
            elif not any((PACKAGE / folder).rglob(name)):
                absent.append(f"{folder}: {name}")
    return absent


def test_every_module_is_in_the_layout() -> None:
    missing = unnamed(layout_entries())
    assert not missing, "README's Layout does not name:\n" + "\n".join(missing)


def test_every_file_the_layout_names_exists() -> None:
    absent = named_but_absent(layout_entries())
    assert not absent, "README's Layout names files that are gone:\n" + "\n".join(absent)


def test_the_check_sees_a_module_left_out_and_a_gone_one() -> None:
    entries = layout_entries()
    entries["core/wire/"] = entries["core/wire/"].replace("versions.py", "messages.py")
    assert "core/wire/versions.py" in unnamed(entries)
    assert "core/wire/: messages.py" in named_but_absent(entries)


def test_the_check_sees_a_top_level_module_left_out() -> None:
    entries = layout_entries()
    assert "__main__.py" in FILE.findall(entries[""])
    entries[""] = entries[""].replace("__main__.py", "")
    assert "__main__.py" in unnamed(entries)


def test_a_glob_names_no_module() -> None:
    entries = layout_entries()
    sticky = ["sticky.py", "sticky_constrained.py", "sticky_general.py", "sticky_shared.py"]
    entry = entries["assign/"]
    for name in sticky:
        entry = entry.replace(name, "")
    entries["assign/"] = entry + " sticky*.py"
    assert {f"assign/{name}" for name in sticky} <= set(unnamed(entries))
    assert "assign/: sticky*.py (a glob: name the files)" in named_but_absent(entries)
