"""The reset history walked from backups alone (kgroup.reset.undo_chain): which backup undo
restores next. Pure: steps in, chain out."""

from __future__ import annotations

from kgroup.reset.undo_chain import Step, walk


def reset(name: str, at: int) -> Step:
    return Step(f"/b/{name}", at)


def undo(name: str, at: int, of: str) -> Step:
    return Step(f"/b/{name}", at, undoes=f"/b/{of}")


def test_undos_step_back_one_reset_each() -> None:
    steps = [reset("r1", 1), reset("r2", 2), reset("r3", 3)]
    assert walk(steps).next_undo == steps[2]
    steps.append(undo("u1", 4, of="r3"))
    assert walk(steps).next_undo == steps[1]
    steps.append(undo("u2", 5, of="r2"))
    assert walk(steps).next_undo == steps[0]
    steps.append(undo("u3", 6, of="r1"))
    chain = walk(steps)
    assert chain.next_undo is None
    assert chain.undone_by == {"r3": "u1", "r2": "u2", "r1": "u3"}
    assert [chain.state(s) for s in steps] == ["undone"] * 3 + ["undo of r3", "undo of r2",
                                                                "undo of r1"]  # fmt: skip


def test_order_is_by_creation_time_not_by_input_order() -> None:
    steps = [undo("u1", 4, of="r2"), reset("r2", 2), reset("r1", 1)]
    assert walk(steps).next_undo == steps[2]


def test_a_reset_after_an_undo_comes_first() -> None:
    steps = [reset("r1", 1), reset("r2", 2), undo("u1", 3, of="r2"), reset("r3", 4)]
    chain = walk(steps)
    assert [s.name for s in chain.in_effect] == ["r1", "r3"]
    assert chain.state(steps[0]) == "in effect" and chain.state(steps[3]) == "next undo"


def test_undoing_an_undo_redoes_the_reset_it_had_undone() -> None:
    steps = [reset("r1", 1), reset("r2", 2), undo("u1", 3, of="r2"), undo("u2", 4, of="u1")]
    chain = walk(steps)
    assert chain.next_undo == steps[1]  # r2 is in effect again: undo restores before r2
    assert "r2" not in chain.undone_by


def test_an_undo_of_an_older_reset_leaves_the_later_ones() -> None:
    steps = [reset("r1", 1), reset("r2", 2), undo("u1", 3, of="r1")]
    chain = walk(steps)
    assert [s.name for s in chain.in_effect] == ["r2"]


def test_an_undo_of_a_file_from_elsewhere_changes_nothing() -> None:
    steps = [reset("r1", 1), undo("u1", 2, of="unknown.json")]
    assert walk(steps).next_undo == steps[0]
