"""Segment framing (issue #13): what is a batch, a torn tail, zero padding or corruption, and
where reading resumes after corruption, whatever the chunk size and with or without the
compiled scanner."""

from __future__ import annotations

import io
import random
import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.offsets import decode as dec
from kgroup.offsets import embedded, framing, native
from kgroup.offsets import encode as enc
from kgroup.offsets import segments as seg
from kgroup.scan.local import LocalEngine, find_segments

PER_BATCH = 3


def _batches(n: int = 7) -> list[bytes]:
    return [
        enc.encode_batch(
            [
                enc.offset_commit("g", "t", p, 100 * i + p, commit_timestamp=1000 + i)
                for p in range(3)
            ],
            base_offset=PER_BATCH * i,
            timestamp=1000 + i,
        )
        for i in range(n)
    ]


B = _batches()
SIZES = [len(b) for b in B]


def _at(i: int) -> int:
    return sum(SIZES[:i])


def _of(batches: list[int] | range) -> list[int]:
    return [PER_BATCH * i + p for i in batches for p in range(PER_BATCH)]


def _length(batch: bytes, length: int) -> bytes:
    return batch[:8] + struct.pack(">i", length) + batch[12:]


def _flip(batch: bytes, at: int) -> bytes:
    raw = bytearray(batch)
    raw[at] ^= 0x01
    return bytes(raw)


def _legacy_file() -> tuple[bytes, int]:
    """v2 (offsets 0-2), magic-1 messages (3, 4), garbage, a magic-0 gzip wrapper (5, 6), v2
    (7-9); and the position of the garbage."""
    c = [enc.offset_commit("g", "t", p, p, commit_timestamp=1) for p in range(3)]
    head = B[0] + enc.encode_legacy_set(c[:2], magic=1, base_offset=3, timestamp=1)
    tail = enc.encode_legacy_set(c[:2], magic=0, base_offset=5, codec_id=1) + enc.encode_batch(
        c, base_offset=7, timestamp=1
    )
    garbage = b"\x00\x00\x00\x00\x00\x00\x00\x09\x00\x00\x00\x20\x12\x34\x56\x78\x01\x00" * 3
    return head + garbage + tail, len(head)


LEGACY, LEGACY_AT = _legacy_file()
BATCHES = {"legacy": 5}  # batches read where not one per PER_BATCH records

# name -> (file bytes, offsets read with --skip-corrupt, [(kind, position, text)])
SCENARIOS: dict[str, tuple[bytes, list[int], list[tuple[str, int, str]]]] = {
    "clean": (b"".join(B), _of(range(7)), []),
    "huge length": (
        b"".join([B[0], _length(B[1], 0x7FFFFFFF), *B[2:]]),
        _of([0, 2, 3, 4, 5, 6]),
        [("corrupt", _at(1), f"skipped {SIZES[1]} bytes at {_at(1)}..{_at(2)}")],
    ),
    "length past the end": (
        b"".join([B[0], _length(B[1], 5000), *B[2:]]),
        _of([0, 2, 3, 4, 5, 6]),
        [("corrupt", _at(1), f"but a batch starts at byte {_at(2)}")],
    ),
    "crc": (
        b"".join([*B[:3], _flip(B[3], 80), *B[4:]]),
        _of([0, 1, 2, 4, 5, 6]),
        [("corrupt", _at(3), "CRC-32C mismatch: stored")],
    ),
    "length a bit short": (
        b"".join([*B[:3], _length(B[3], SIZES[3] - 12 - 5), *B[4:]]),
        _of([0, 1, 2, 4, 5, 6]),
        [("corrupt", _at(3), f"skipped {SIZES[3]} bytes at {_at(3)}..{_at(4)}")],
    ),
    "offsets back": (
        b"".join([*B[:5], B[2], *B[5:]]),
        _of(range(7)),
        [("corrupt", _at(5), "base offset 6 is not after the previous batch's last offset 14")],
    ),
    "offset flipped ahead": (  # a base offset is not covered by the CRC
        b"".join([*B[:3], struct.pack(">q", 1 << 40) + B[3][8:], *B[4:]]),
        [*_of(range(3)), 1 << 40, (1 << 40) + 1, (1 << 40) + 2, *_of(range(4, 7))],
        [
            (
                "corrupt",
                _at(3),
                f"base offset {1 << 40} out of order: the next batch (at byte {_at(4)}) "
                "follows offset 8",
            )
        ],
    ),
    "offset flipped back": (
        b"".join([*B[:3], struct.pack(">q", 1) + B[3][8:], *B[4:]]),
        _of([0, 1, 2, 4, 5, 6]),
        [("corrupt", _at(3), "base offset 1 is not after the previous batch's last offset 8")],
    ),
    "garbage between two batches' offsets": (  # looks like a batch that blames batch 2
        b"".join([*B[:3], struct.pack(">qiiB", 7, 100, 0, 2) + bytes(23), *B[3:]]),
        _of(range(7)),
        [("corrupt", _at(3), "is not after the previous batch's last offset 8; skipped 40 bytes")],
    ),
    "garbage": (
        b"".join([*B[:2], b"\x00\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00\x31" * 9, *B[2:]]),
        _of(range(7)),
        [("corrupt", _at(2), f"skipped 108 bytes at {_at(2)}..{_at(2) + 108}")],
    ),
    "zeros mid-file": (
        b"".join([*B[:6], bytes(1000), B[6]]),
        _of(range(7)),
        [("corrupt", _at(6), f"skipped 1000 bytes at {_at(6)}..{_at(6) + 1000}")],
    ),
    "torn tail": (
        b"".join([*B[:6], B[6][:-1]]),
        _of(range(6)),
        [("torn_tail", _at(6), f"{SIZES[6] - 1} trailing bytes (a torn write at the end)")],
    ),
    "torn header": (
        b"".join([*B[:6], B[6][:13]]),
        _of(range(6)),
        [("torn_tail", _at(6), "13 trailing bytes")],
    ),
    "short garbage at the end": (
        b"".join(B) + b"\x00" * 7 + b"\x15" + b"\xff" * 6,  # offset 21, length -1
        _of(range(7)),
        [("corrupt", _at(7), "length -1 out of bounds; skipped 14 bytes")],
    ),
    "zero padding": (
        b"".join(B) + bytes(5000),
        _of(range(7)),
        [("zero_padding", _at(7), "5000 bytes of zero padding")],
    ),
    "legacy": (
        LEGACY,
        list(range(10)),
        [("corrupt", LEGACY_AT, f"skipped 54 bytes at {LEGACY_AT}..{LEGACY_AT + 54}")],
    ),
    "text": (
        b"this is not a Kafka log segment at all, it is text\n" * 3,
        [],
        [("corrupt", 0, "not a Kafka log segment (unknown magic")],
    ),
}


@contextmanager
def _compiled(flag: bool) -> Iterator[None]:
    for cache in (dec._FAST, embedded._EMBEDDED, dec._KEY_CACHE, dec._NATIVE):
        cache.clear()
    native.set_enabled(flag)
    try:
        yield
    finally:
        for cache in (dec._FAST, embedded._EMBEDDED, dec._KEY_CACHE, dec._NATIVE):
            cache.clear()
        native.set_enabled(True)


def _read(tmp_path: Path, raw: bytes, chunk_size: int) -> tuple[list[int], list[seg.Problem], int]:
    d = tmp_path / f"__consumer_offsets-1-{chunk_size}-{len(list(tmp_path.iterdir()))}"
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(raw)
    eng = LocalEngine(skip_corrupt=True, chunk_size=chunk_size)
    offsets = [r.offset for r in eng.segment_records(find_segments([str(d)]))]
    return offsets, eng.stats.problems, eng.stats.batches


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
@pytest.mark.parametrize("chunk_size", [5, 64, 1 << 20])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenarios(tmp_path: Path, name: str, chunk_size: int, compiled: bool) -> None:
    if compiled and not native.available():
        pytest.skip("extension not built")
    raw, offsets, problems = SCENARIOS[name]
    with _compiled(compiled):
        got, found, batches = _read(tmp_path, raw, chunk_size)
    assert got == offsets
    # runs the compiled scanner took again count once
    assert batches == BATCHES.get(name, len(offsets) // PER_BATCH)
    assert [(p.kind, p.position) for p in found] == [(k, at) for k, at, _ in problems]
    for problem, (_k, _at, text) in zip(found, problems, strict=True):
        assert text in problem.message


def test_without_resync_the_file_stops_at_the_first_corruption() -> None:
    raw = SCENARIOS["crc"][0]
    entries = list(seg.read_batches(io.BytesIO(raw).read, "f.log", resync=False))
    assert [e.position for e in entries] == [_at(i) for i in range(4)]
    assert entries[-1].kind == seg.CORRUPT and "skipped" not in entries[-1].message


def _garbage(seed: int, n: int) -> bytes:
    return random.Random(seed).randbytes(n)


@settings(max_examples=60, deadline=None)
@given(
    where=st.integers(1, 6),
    garbage=st.binary(min_size=1, max_size=400),
    chunk=st.sampled_from([17, 100, 4096]),
)
def test_any_garbage_between_batches_is_skipped_exactly(
    where: int, garbage: bytes, chunk: int
) -> None:
    raw = b"".join([*B[:where], garbage, *B[where:]])
    entries = list(seg.read_batches(io.BytesIO(raw).read, "f.log", chunk_size=chunk))
    batches = [e for e in entries if not isinstance(e, seg.Problem)]
    problems = [e for e in entries if isinstance(e, seg.Problem)]
    assert [b.base_offset for b in batches] == [PER_BATCH * i for i in range(7)]
    assert len(problems) == 1 and problems[0].kind == seg.CORRUPT
    start = _at(where)
    assert problems[0].position == start
    assert problems[0].message.endswith(
        f"skipped {len(garbage)} bytes at {start}..{start + len(garbage)}"
    )


def _counting_crc(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real: Callable[[bytes, int, int], str | None] = framing.crc_problem

    def counted(buf: bytes, p: int, total: int) -> str | None:
        calls.append(total)
        return real(buf, p, total)

    monkeypatch.setattr(framing, "crc_problem", counted)
    return calls


@pytest.mark.parametrize(
    "garbage",
    [_garbage(1, 3 << 20), bytes(3 << 20), b"\x01\x00" * (3 << 19), b"abc\n" * (3 << 18)],
    ids=["random", "zeros", "small ints", "text"],
)
def test_resync_over_megabytes_of_garbage_checks_few_crcs(
    garbage: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resync cost stays linear: the CRC (over up to a whole frame) is computed only where
    the cheap checks pass, a handful of times in 3 MiB, not once per byte."""
    raw = b"".join([B[0], B[1][:30], garbage, *B[2:]])
    calls = _counting_crc(monkeypatch)
    entries = list(seg.read_batches(io.BytesIO(raw).read, "f.log", chunk_size=1 << 20))
    assert [e.base_offset for e in entries if not isinstance(e, seg.Problem)] == [
        PER_BATCH * i for i in (0, 2, 3, 4, 5, 6)
    ]
    crc_bytes = sum(calls) - sum(SIZES) + SIZES[1]  # beyond the CRCs of the real batches
    assert crc_bytes < 2 * len(garbage)


def test_batch_starts_stop_at_the_first_frame_that_is_not_a_batch() -> None:
    raw = SCENARIOS["crc"][0]
    assert list(seg.batch_starts(io.BytesIO(raw).read, 50)) == [_at(i) for i in range(3)]
    # batch 3 claims offsets ahead of batch 4's, which follows batch 2: batch 3 is to blame,
    # which a reader starting at batch 3 could not know
    raw = SCENARIOS["offset flipped ahead"][0]
    assert list(seg.batch_starts(io.BytesIO(raw).read, 50)) == [_at(i) for i in range(3)]
    clean = SCENARIOS["clean"][0]
    assert list(seg.batch_starts(io.BytesIO(clean).read)) == [_at(i) for i in range(7)]
