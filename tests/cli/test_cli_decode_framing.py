"""`kgroup decode` on damaged segments (issue #13): only the last, incomplete batch of a file is
a torn tail; any other framing damage exits 7 naming file and byte, and `--skip-corrupt`
resynchronises on the next batch, saying which bytes it skipped."""

from __future__ import annotations

import json
import struct
from pathlib import Path

from kgroup.offsets import encode as enc
from tests.helpers import run_kgroup

PER_BATCH = 3  # records per batch
NAME = "__consumer_offsets-7/00000000000000000000.log"


def _batches(n: int = 7) -> list[bytes]:
    """n batches of PER_BATCH offset commits at offsets 0, 1, 2, ... (batch i: 3i..3i+2)."""
    return [
        enc.encode_batch(
            [
                enc.offset_commit("g", "t", p, 100 * i + p, commit_timestamp=1000 + i)
                for p in range(PER_BATCH)
            ],
            base_offset=PER_BATCH * i,
            timestamp=1000 + i,
        )
        for i in range(n)
    ]


def _segment(tmp_path: Path, raw: bytes) -> Path:
    d = tmp_path / "__consumer_offsets-7"
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(raw)
    return d


def _offsets(stdout: str) -> list[int]:
    return [json.loads(line)["offset"] for line in stdout.splitlines()]


def _of(batches: list[int]) -> list[int]:
    return [PER_BATCH * i + p for i in batches for p in range(PER_BATCH)]


def _with_length(batch: bytes, length: int) -> bytes:
    return batch[:8] + struct.pack(">i", length) + batch[12:]


def _decode(d: Path, *extra: str, expect: int) -> tuple[list[int], str]:
    result = run_kgroup("decode", "--segments", str(d), "-o", "jsonl", *extra, expect=expect)
    return _offsets(result.stdout), result.stderr


def test_huge_length_mid_file_exits_7_and_skip_corrupt_keeps_the_other_six(
    tmp_path: Path,
) -> None:
    b = _batches()
    at = len(b[0])
    d = _segment(tmp_path, b"".join([b[0], _with_length(b[1], 0x7FFFFFFF), *b[2:]]))
    out, err = _decode(d, expect=7)
    assert out == _of([0])  # streamed before the bad frame is read
    assert f"{NAME} at byte {at}: batch length 2147483647" in err
    assert "trailing bytes" not in err and "--skip-corrupt" in err
    out, err = _decode(d, "--skip-corrupt", expect=0)
    assert out == _of([0, 2, 3, 4, 5, 6])
    end = at + len(b[1])
    assert f"skipped {len(b[1])} bytes at {at}..{end}" in err


def test_length_past_the_end_with_batches_after_it_is_not_a_torn_tail(tmp_path: Path) -> None:
    b = _batches()
    at = len(b[0])
    d = _segment(tmp_path, b"".join([b[0], _with_length(b[1], 50_000), *b[2:]]))
    _out, err = _decode(d, expect=7)
    assert f"{NAME} at byte {at}: a batch of 50012 bytes runs past the end of the file" in err
    assert f"a batch starts at byte {at + len(b[1])}" in err
    out, err = _decode(d, "--skip-corrupt", expect=0)
    assert out == _of([0, 2, 3, 4, 5, 6])
    assert f"skipped {len(b[1])} bytes at {at}..{at + len(b[1])}" in err


def test_crc_flipped_mid_file_exits_7_and_skip_corrupt_resumes_at_the_next_batch(
    tmp_path: Path,
) -> None:
    b = _batches()
    bad = bytearray(b[3])
    bad[70] ^= 0x01  # inside the first record
    at = sum(map(len, b[:3]))
    d = _segment(tmp_path, b"".join([*b[:3], bytes(bad), *b[4:]]))
    out, err = _decode(d, expect=7)
    assert f"{NAME} at byte {at}: CRC-32C mismatch" in err
    out, err = _decode(d, "--skip-corrupt", expect=0)
    assert out == _of([0, 1, 2, 4, 5, 6])
    assert f"skipped {len(b[3])} bytes at {at}..{at + len(b[3])}" in err


def test_garbage_between_batches_is_skipped_exactly(tmp_path: Path) -> None:
    b = _batches()
    # bytes that look like the start of frames: magic bytes 0-2 and small lengths
    garbage = bytes([0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 40, 0, 0, 0, 0, 2, 1, 2, 0]) * 5
    at = sum(map(len, b[:3]))
    d = _segment(tmp_path, b"".join([*b[:3], garbage, *b[3:]]))
    out, err = _decode(d, expect=7)
    assert out == _of([0, 1, 2])
    assert f"{NAME} at byte {at}:" in err
    out, err = _decode(d, "--skip-corrupt", expect=0)
    assert out == _of(range(7))
    assert f"skipped {len(garbage)} bytes at {at}..{at + len(garbage)}" in err


def test_offsets_going_back_are_corruption(tmp_path: Path) -> None:
    b = _batches()
    at = sum(map(len, b[:5]))
    d = _segment(tmp_path, b"".join([*b[:5], b[1], *b[5:]]))  # batch 1 again, after batch 4
    out, err = _decode(d, expect=7)
    assert f"{NAME} at byte {at}: base offset 3 is not after" in err
    out, err = _decode(d, "--skip-corrupt", expect=0)
    assert out == _of(range(7))
    assert f"skipped {len(b[1])} bytes at {at}..{at + len(b[1])}" in err


def test_a_text_file_is_not_a_segment(tmp_path: Path) -> None:
    text = tmp_path / "notes.log"
    text.write_text("these are my notes, not a Kafka log segment\n")
    out, err = _decode(text, expect=7)
    assert out == []
    assert "notes.log at byte 0: not a Kafka log segment" in err
    assert "records" not in err and "trailing bytes" not in err


def test_last_batch_cut_short_is_a_torn_tail_note(tmp_path: Path) -> None:
    b = _batches()
    cut = b[6][: len(b[6]) - 10]
    d = _segment(tmp_path, b"".join([*b[:6], cut]))
    out, err = _decode(d, expect=0)
    assert out == _of(range(6))
    at = sum(map(len, b[:6]))
    assert f"note: {NAME} at byte {at}: {len(cut)} trailing bytes (a torn write at the end)" in err


def test_zero_padding_after_the_last_batch_is_a_note(tmp_path: Path) -> None:
    b = _batches()
    d = _segment(tmp_path, b"".join(b) + bytes(4096))
    out, err = _decode(d, expect=0)
    assert out == _of(range(7))
    assert f"note: {NAME} at byte {sum(map(len, b))}: 4096 bytes of zero padding" in err


def test_zeros_in_the_middle_are_corruption(tmp_path: Path) -> None:
    b = _batches()
    at = sum(map(len, b[:2]))
    d = _segment(tmp_path, b"".join([*b[:2], bytes(300), *b[2:]]))
    _out, err = _decode(d, expect=7)
    assert f"{NAME} at byte {at}: batch length 0 below the minimum" in err
    out, err = _decode(d, "--skip-corrupt", expect=0)
    assert out == _of(range(7))
    assert f"skipped 300 bytes at {at}..{at + 300}" in err
