"""The Spark byte-range planner agrees with the local reader on damaged segments (issue #13):
for every split size, the ranges read one by one give the records and problems of the whole
file read at once, and without --skip-corrupt the same first corruption."""

from __future__ import annotations

import struct
from itertools import pairwise
from pathlib import Path

import pytest

from kgroup.core.errors import CorruptInputError
from kgroup.scan.local import DecodeFilter, LocalEngine, SegmentInput, find_segments
from kgroup.scan.ranges import plan_splits
from tests.unit.offsets.test_framing import SCENARIOS, _batches


def _file(tmp_path: Path, raw: bytes) -> SegmentInput:
    d = tmp_path / "__consumer_offsets-3"
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(raw)
    (item,) = find_segments([str(d)])
    return item


def _whole(item: SegmentInput, skip: bool = True) -> tuple[list[tuple[int, int]], list[str]]:
    eng = LocalEngine(skip_corrupt=skip)
    recs = [(r.offset, r.position) for r in eng.segment_records([item])]
    return recs, [p.describe() for p in eng.stats.problems]


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_split_size_reads_like_the_whole_file(tmp_path: Path, name: str) -> None:
    item = _file(tmp_path, SCENARIOS[name][0])
    expected = _whole(item)
    assert [o for o, _ in expected[0]] == SCENARIOS[name][1]
    cut_somewhere = False
    for every in range(1, item.size, 23):
        splits = plan_splits([item], every)
        assert splits[0].start == 0 and splits[-1].end == item.size
        assert all(a.end == b.start for a, b in pairwise(splits))
        cut_somewhere |= len(splits) > 1
        eng = LocalEngine(skip_corrupt=True)
        recs = [
            (r.offset, r.position)
            for s in splits
            for r in eng.segment_range_records(s.item, s.start, s.end)
        ]
        assert (recs, [p.describe() for p in eng.stats.problems]) == expected, every
    # ranges are cut only at batches before the first damaged frame, and never at 0
    assert cut_somewhere == (name not in ("huge length", "length past the end", "text"))


@pytest.mark.parametrize("name", [n for n in SCENARIOS if SCENARIOS[n][2]])
def test_without_skip_corrupt_the_ranges_fail_at_the_same_byte(tmp_path: Path, name: str) -> None:
    raw, _offsets, problems = SCENARIOS[name]
    item = _file(tmp_path, raw)
    if problems[0][0] != "corrupt":
        return  # notes do not fail
    with pytest.raises(CorruptInputError) as whole:
        _whole(item, skip=False)
    for every in (50, 190, 400):
        eng = LocalEngine()
        with pytest.raises(CorruptInputError) as part:
            for s in plan_splits([item], every):
                list(eng.segment_range_records(s.item, s.start, s.end))
        assert part.value.message == whole.value.message


@pytest.mark.spark
def test_spark_engine_reports_a_mid_file_bad_length_like_the_local_engine(
    spark_session, tmp_path: Path
) -> None:
    """The Spark engine with ranges cut inside the file (before the damaged frame): the job
    fails naming file and byte as the local engine does, and with --skip-corrupt gives the
    local engine's records and problems."""
    from kgroup.scan.spark import SparkScan

    b = _batches()
    at = sum(map(len, b[:5]))
    raw = b"".join([*b[:5], b[5][:8] + struct.pack(">i", 5000) + b[5][12:], b[6]])
    item = _file(tmp_path, raw)
    assert len(plan_splits([item], 190)) == 5  # cut at batches 1-4; the last range holds 4-6
    with pytest.raises(CorruptInputError) as local_error:
        _whole(item, skip=False)
    assert f"at byte {at}: a batch of 5012 bytes runs past the end" in local_error.value.message
    strict = SparkScan(spark_session, DecodeFilter(), inputs=[item], split_bytes=190)
    with pytest.raises(CorruptInputError) as spark_error:
        list(strict.records())
    assert spark_error.value.message == local_error.value.message

    eng = LocalEngine(skip_corrupt=True)
    expected = [r.to_dict() for r in eng.plain(eng.segment_records([item]))]
    assert [r["offset"] for r in expected] == [*range(15), 18, 19, 20]
    lenient = SparkScan(
        spark_session, DecodeFilter(), inputs=[item], skip_corrupt=True, split_bytes=190
    )
    assert [r.to_dict() for r in lenient.records()] == expected
    assert [p.describe() for p in lenient.stats.problems] == [
        p.describe() for p in eng.stats.problems
    ]
    assert f"skipped {len(b[5])} bytes at {at}..{at + len(b[5])}" in eng.stats.problems[0].message
