"""Kafka primitive types and headers against bytes written by hand from the protocol guide."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kgroup.core.errors import KafkaOperationError
from kgroup.core.wire.frames import ProtocolError, decode_response_header, encode_request_header
from tests.unit.wire.wirecodec import (
    Reader,
    Writer,
    decode_request_header,
    encode_uvarint,
    encode_varint,
)

UVARINTS = [
    (0, "00"),
    (1, "01"),
    (127, "7f"),
    (128, "8001"),
    (300, "ac02"),
    (16383, "ff7f"),
    (16384, "808001"),
    (2**32 - 1, "ffffffff0f"),
]
# Zig-zag: 0->0, -1->1, 1->2, -2->3, ... (protocol guide, "VARINT").
VARINTS = [(0, "00"), (-1, "01"), (1, "02"), (-2, "03"), (63, "7e"), (-64, "7f"), (64, "8001")]


@pytest.mark.parametrize(("value", "hexbytes"), UVARINTS)
def test_uvarint_bytes(value: int, hexbytes: str) -> None:
    assert encode_uvarint(value).hex() == hexbytes
    assert Reader(bytes.fromhex(hexbytes)).uvarint() == value


@pytest.mark.parametrize(("value", "hexbytes"), VARINTS)
def test_varint_bytes(value: int, hexbytes: str) -> None:
    assert encode_varint(value).hex() == hexbytes
    assert Reader(bytes.fromhex(hexbytes)).varint() == value


def test_fixed_width_integers_are_big_endian_and_signed() -> None:
    data = bytes.fromhex("fffffe00000100fffffffffffffffd")
    reader = Reader(data)
    assert reader.int8() == -1
    assert reader.int16() == -2
    assert reader.int32() == 256
    assert reader.int64() == -3
    reader.expect_end()
    written = Writer().int8(-1).int16(-2).int32(256).int64(-3).getvalue()
    assert written == data


def test_classic_strings_bytes_and_arrays() -> None:
    # string "ab" (int16 length), null string, bytes 0x01 (int32 length), null bytes,
    # array of two int32 (int32 count), null array.
    data = bytes.fromhex("00026162ffff0000000101ffffffff000000020000000700000008ffffffff")
    reader = Reader(data)
    assert reader.string() == "ab"
    assert reader.nullable_string() is None
    assert reader.bytes_() == b"\x01"
    assert reader.nullable_bytes() is None
    assert reader.array(lambda r: r.int32()) == [7, 8]
    assert reader.nullable_array(lambda r: r.int32()) is None
    reader.expect_end()
    writer = Writer()
    writer.string("ab").nullable_string(None).bytes_(b"\x01").nullable_bytes(None)
    writer.array([7, 8], Writer.int32).nullable_array(None, Writer.int32)
    assert writer.getvalue() == data


def test_compact_strings_bytes_and_arrays_store_length_plus_one() -> None:
    # compact string "ab" = uvarint 3; null = 0; empty = 1; compact array of 2 int32 = uvarint 3.
    data = bytes.fromhex("036162000102010003000000070000000800")
    reader = Reader(data, flexible=True)
    assert reader.string() == "ab"
    assert reader.nullable_string() is None
    assert reader.string() == ""
    assert reader.bytes_() == b"\x01"
    assert reader.nullable_bytes() is None
    assert reader.array(lambda r: r.int32()) == [7, 8]
    assert reader.nullable_array(lambda r: r.int32()) is None
    reader.expect_end()
    writer = Writer(flexible=True)
    writer.string("ab").nullable_string(None).string("").bytes_(b"\x01").nullable_bytes(None)
    writer.array([7, 8], Writer.int32).nullable_array(None, Writer.int32)
    assert writer.getvalue() == data


def test_tagged_fields_unknown_tags_are_kept_and_skipped() -> None:
    # Two tags: tag 0 with 1 byte 0x2a, tag 5 with 2 bytes; then an int16 that must still be read.
    data = bytes.fromhex("0200012a0502aabb0007")
    reader = Reader(data, flexible=True)
    assert reader.tagged_fields() == {0: b"\x2a", 5: b"\xaa\xbb"}
    assert reader.int16() == 7
    assert Writer(flexible=True).tagged_fields({5: b"\xaa\xbb", 0: b"\x2a"}).getvalue() == data[:8]


def test_tag_section_is_absent_in_classic_versions() -> None:
    assert Writer().tagged_fields({1: b"x"}).getvalue() == b""
    assert Reader(b"\x05").tagged_fields() == {}


def test_tags_out_of_order_are_rejected() -> None:
    with pytest.raises(ProtocolError, match="out of order"):
        Reader(bytes.fromhex("0205000100"), flexible=True).tagged_fields()


def test_truncated_string_names_field_and_position() -> None:
    reader = Reader(bytes.fromhex("000000056162"))
    reader.int16()
    with pytest.raises(ProtocolError) as caught:
        reader.string("Groups.GroupId")
    assert caught.value.position == 4
    assert caught.value.field == "Groups.GroupId"
    assert "needs 5 bytes, 2 left" in str(caught.value)
    assert isinstance(caught.value, KafkaOperationError)


def test_null_where_not_nullable_is_an_error() -> None:
    with pytest.raises(ProtocolError, match="null in a non-nullable string"):
        Reader(bytes.fromhex("ffff")).string()
    with pytest.raises(ProtocolError, match="null in a non-nullable array"):
        Reader(bytes.fromhex("00"), flexible=True).array(lambda r: r.int8())


def test_array_count_larger_than_the_data_is_rejected_before_allocating() -> None:
    with pytest.raises(ProtocolError, match="cannot fit"):
        Reader(bytes.fromhex("7fffffff00")).array(lambda r: r.int8())


def test_overlong_varint_is_rejected() -> None:
    with pytest.raises(ProtocolError, match="longer than 5 bytes"):
        Reader(bytes.fromhex("ffffffffff01")).uvarint()


def test_invalid_utf8_is_reported() -> None:
    with pytest.raises(ProtocolError, match="not UTF-8"):
        Reader(bytes.fromhex("0001ff")).string()


def test_request_header_v1_and_v2() -> None:
    # api_key 10, api_version 4, correlation 7, client_id "k" (classic string, even in v2).
    v1 = bytes.fromhex("000a00040000000700016b")
    assert encode_request_header(10, 4, 7, "k", flexible=False) == v1
    assert encode_request_header(10, 4, 7, "k", flexible=True) == v1 + b"\x00"
    assert encode_request_header(18, 0, 1, None, flexible=False) == bytes.fromhex(
        "0012000000000001ffff"
    )
    assert decode_request_header(v1 + b"\x00", flexible=True) == (10, 4, 7, "k", len(v1) + 1)


def test_response_header_v0_and_v1() -> None:
    assert decode_response_header(bytes.fromhex("0000002aff"), flexible=False) == (42, 4)
    # v1: a tag section follows; an unknown tag is skipped.
    assert decode_response_header(bytes.fromhex("0000002a01030100"), flexible=True) == (
        42,
        8,
    )


@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_uvarint_round_trip(value: int) -> None:
    assert Reader(encode_uvarint(value)).uvarint() == value


@given(st.integers(min_value=-(2**31), max_value=2**31 - 1))
def test_varint_round_trip(value: int) -> None:
    assert Reader(encode_varint(value)).varint() == value


@given(st.booleans(), st.lists(st.one_of(st.none(), st.text(max_size=40)), max_size=5))
def test_string_array_round_trip(flexible: bool, values: list[str | None]) -> None:
    data = Writer(flexible=flexible).array(values, Writer.nullable_string).getvalue()
    reader = Reader(data, flexible=flexible)
    assert reader.array(lambda r: r.nullable_string()) == values
    reader.expect_end()
