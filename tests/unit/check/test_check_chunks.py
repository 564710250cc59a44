"""Fleet-sized check (issue #29): groups are described, evaluated and printed CHUNK_GROUPS at
a time, so what check holds does not grow with the fleet beyond the windows. Against the
scripted coordinator (tests/unit/wire/fakegroups.py), with a chunk of 3 groups: the first
chunk's verdicts come before the next chunk is described."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kgroup.check import run
from kgroup.check.run import CheckOptions
from kgroup.protocol import messages as api_table
from tests.helpers import admin_for
from tests.unit.wire.fakegroups import GroupsCluster

GROUPS = [f"g{i}" for i in range(7)]  # chunks of 3: g0-g2, g3-g5, g6


@pytest.fixture()
def fleet() -> Iterator[tuple[GroupsCluster, list[set[str]]]]:
    made = GroupsCluster(
        topics={"orders": 2},
        offsets={g: {("orders", 0): i, ("orders", 1): 2} for i, g in enumerate(GROUPS)},
        log_end=10,
    )
    answered = made.handler
    described: list[set[str]] = []  # the groups of each describe request, in order
    fetched: list[set[str]] = []  # the groups of each OffsetFetch request, in order
    classic: list[set[str]] = []  # the groups of each DescribeGroups request, in order

    def handler(api: int, version: int, body: bytes) -> bytes:
        named = {g for g in [*GROUPS, "nosuch"] if g.encode() in body}
        if api in (api_table.DESCRIBE_GROUPS.key, api_table.CONSUMER_GROUP_DESCRIBE.key):
            described.append(named)
        if api == api_table.DESCRIBE_GROUPS.key:
            classic.append(named)
        if api == api_table.OFFSET_FETCH.key:
            fetched.append(named)
        return answered(api, version, body)

    made.broker.handler = handler
    made.fetched = fetched  # type: ignore[attr-defined]
    made.classic = classic  # type: ignore[attr-defined]
    yield made, described
    made.close()


def times_asked(requests: list[set[str]]) -> dict[str, int]:
    """How many requests named each group."""
    counts: dict[str, int] = {}
    for named in requests:
        for group in named:
            counts[group] = counts.get(group, 0) + 1
    return counts


def test_check_yields_a_chunk_before_describing_the_next(fleet, monkeypatch) -> None:
    made, described = fleet
    monkeypatch.setattr(run, "CHUNK_GROUPS", 3, raising=False)
    result = run.check(
        admin_for(made.address),
        CheckOptions(groups=[], all_groups=True, window_ms=200, samples=2, lag_time=False),
    )
    seen = []
    for verdict in result:
        chunk = GROUPS.index(verdict.group) // 3
        asked = set().union(*described)
        # every group of the verdict's chunk was described, none of a later chunk yet
        assert set(GROUPS[chunk * 3 : chunk * 3 + 3]) <= asked, verdict.group
        assert not asked & set(GROUPS[chunk * 3 + 3 :]), (verdict.group, described)
        seen.append((verdict.group, verdict.status.name, [p.lag for p in verdict.partitions]))
    # every group evaluated once, in order, from its own offsets (log end 10)
    assert seen == [(g, "STOP", [10 - i, 8]) for i, g in enumerate(GROUPS)]
    assert (result.seen, result.bad_count) == (7, 7)


def test_check_sampling_rounds_keep_offsets_only(fleet) -> None:
    # a sampling round keeps each group's offsets by (topic, partition), not the client's
    # objects: what the window holds per partition is a pair and an int
    from kgroup.check.sampling import sample

    made, _ = fleet
    rounds = sample(
        admin_for(made.address), GROUPS, {"orders": 2}, samples=2, window_ms=10, chunk=3
    )
    assert [r.committed["g1"] for r in rounds] == [{("orders", 0): 1, ("orders", 1): 2}] * 2
    assert rounds[0].log_ends == {("orders", 0): 10, ("orders", 1): 10}


@pytest.mark.parametrize("source", ["sampling", "auto"])
def test_a_named_group_missing_in_a_later_chunk_is_not_found(fleet, monkeypatch, source) -> None:
    # groups named beyond the first chunk are not looked up before the window: a missing one
    # still comes out NOTFOUND in its chunk, and the run ends as not found (exit 3) counting
    # every chunk's groups
    from kgroup.core.errors import NotFoundError

    made, _ = fleet
    monkeypatch.setattr(run, "CHUNK_GROUPS", 3, raising=False)
    names = ["g0", "g1", "g2", "g3", "nosuch", "g4"]
    result = run.check(
        admin_for(made.address),
        CheckOptions(groups=names, window_ms=200, samples=2, lag_time=False, source=source),
    )
    got = [(v.group, v.status.name) for v in result]
    assert got == [(g, "NOTFOUND" if g == "nosuch" else "STOP") for g in names]
    with pytest.raises(NotFoundError, match=r"^1 of 6 groups not found: nosuch$") as raised:
        result.raise_outcome()
    assert raised.value.exit_code == 3


def test_named_groups_beyond_one_chunk_are_asked_once_a_round(fleet, monkeypatch) -> None:
    # more named groups than one chunk, sampled twice: every group is described before the
    # window (does it exist?) and at its end (its members now), and its offsets are fetched
    # once a round; the lookup before the window is the first round (the later chunks'
    # groups were fetched a third time: looked up, then asked again for the first round)
    made, _ = fleet
    monkeypatch.setattr(run, "CHUNK_GROUPS", 3, raising=False)
    names = [*GROUPS, "nosuch"]
    result = run.check(
        admin_for(made.address),
        CheckOptions(groups=names, window_ms=200, samples=2, lag_time=False, source="sampling"),
    )
    got = [(v.group, v.status.name) for v in result]
    assert got == [(g, "NOTFOUND" if g == "nosuch" else "STOP") for g in names]
    assert times_asked(made.fetched) == {**dict.fromkeys(GROUPS, 2), "nosuch": 1}
    assert times_asked(made.classic) == {**dict.fromkeys(GROUPS, 2), "nosuch": 1}


def test_a_check_collects_garbage_less_often_and_restores_the_collector() -> None:
    # issue #29: the young generation holds GC_YOUNG objects while a check runs (the default
    # 700 walked a fleet's short-lived windows and verdicts over and over), then as it was
    import gc

    from kgroup.core.collector import GC_YOUNG, fewer_collections

    before = gc.get_threshold()
    with fewer_collections():
        assert gc.get_threshold()[0] >= GC_YOUNG
        assert gc.get_freeze_count() > 0  # what was loaded is kept off the collector
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
