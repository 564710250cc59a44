"""A group's reset history, from its backups alone (pure): which backup `undo` restores next.

Every `--execute` (a reset or an undo) writes a backup of the offsets it replaced. A backup
written by an undo says which backup it restored (`undoes`, the file name). Walking the
backups oldest first:

- a reset's backup goes on the stack (its reset is in effect);
- an undo of a backup on the stack takes it off (that reset is undone);
- an undo of an undo's backup puts the reset that undo had undone back on the stack (redone).

`undo GROUP` restores the top of the stack: the backup of the latest reset still in effect,
never the backup the previous undo wrote (which would redo). Three resets and three undos
walk back to the start; a fourth finds nothing left to undo.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Step:
    """One backup of a group: its file, when it was written, and what it undid (None: a reset)."""

    file: str
    created_ms: int
    undoes: str | None = None

    @property
    def name(self) -> str:
        return os.path.basename(self.file)


@dataclass
class Chain:
    """The history walked: resets in effect (oldest first), and who undid what (file names)."""

    in_effect: list[Step] = field(default_factory=list)
    undone_by: dict[str, str] = field(default_factory=dict)

    @property
    def next_undo(self) -> Step | None:
        """The backup `undo` restores next: the latest reset still in effect."""
        return self.in_effect[-1] if self.in_effect else None

    def state(self, step: Step) -> str:
        """A short description of one backup's place in the chain, for `undo --list`."""
        if step.undoes is not None:
            return f"undo of {os.path.basename(step.undoes)}"
        if step is self.next_undo:
            return "next undo"
        if step.name in self.undone_by:
            return "undone"
        return "in effect"


def walk(steps: Iterable[Step]) -> Chain:
    """The chain of one group's backups (see the module docstring)."""
    chain = Chain()
    by_name: dict[str, Step] = {}
    undid: dict[str, str] = {}  # an undo's file name -> the file name it restored
    for step in sorted(steps, key=lambda s: (s.created_ms, s.name)):
        by_name[step.name] = step
        if step.undoes is None:
            chain.in_effect.append(step)
            continue
        target = os.path.basename(step.undoes)
        undid[step.name] = target
        effective = [s.name for s in chain.in_effect]
        if target in effective:
            del chain.in_effect[effective.index(target)]
            chain.undone_by[target] = step.name
        elif target in undid and undid[target] in by_name:
            again = by_name[undid[target]]
            if again.name not in effective:
                chain.in_effect.append(again)
                chain.undone_by.pop(again.name, None)
    return chain
