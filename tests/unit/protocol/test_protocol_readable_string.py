"""`Readable.string`, every way a string field can be laid out: the value and where reading
ends, or the error and where it names. One decode step serves the inline one-byte (compact)
and int16 lengths and the lengths read by `_length` (longer varints), so these cases pin what
the three copies it replaced did."""

from __future__ import annotations

import pytest

from kgroup.protocol.errors import ProtocolError
from kgroup.protocol.runtime import Readable

PRE = b"PRE"  # bytes before the field: positions are in the whole buffer

# (layout, bytes after PRE, compact, nullable, value, position after reading)
READS = [
    ("compact one-byte length", b"\x07orders!", True, False, "orders", 10),
    ("compact empty", b"\x01!", True, False, "", 4),
    ("compact null", b"\x00!", True, True, None, 4),
    ("compact two-byte varint", b"\x81\x01" + b"x" * 128 + b"!", True, False, "x" * 128, 133),
    ("compact null as a longer varint", b"\x80\x00!", True, True, None, 5),
    ("compact UTF-8", b"\x07\xe6\xb3\xa8\xe6\x96\x87!", True, False, "注文", 10),
    ("int16 length", b"\x00\x06orders!", False, False, "orders", 11),
    ("int16 empty", b"\x00\x00!", False, False, "", 5),
    ("int16 null (-1)", b"\xff\xff!", False, True, None, 5),
    ("int16 null (any negative)", b"\xff\xfe!", False, True, None, 5),
    ("int16 largest", b"\x7f\xff" + b"y" * 0x7FFF, False, False, "y" * 0x7FFF, 5 + 0x7FFF),
]


@pytest.mark.parametrize(
    ("data", "compact", "nullable", "value", "after"),
    [case[1:] for case in READS],
    ids=[case[0] for case in READS],
)
def test_a_string_reads_its_value_and_moves_past_it(data, compact, nullable, value, after):
    r = Readable(PRE + data, len(PRE))
    assert r.string("name", compact, nullable) == value
    assert r.p == after


# (layout, bytes after PRE, compact, end of the readable bytes, reason, error position, r.p)
ERRORS = [
    ("compact null, not nullable", b"\x00", True, None,
     "non-nullable field name was serialized as null", 3, 4),
    ("int16 null, not nullable", b"\xff\xff", False, None,
     "non-nullable field name was serialized as null", 3, 5),
    ("compact runs short", b"\x07ord", True, None, "needs 6 bytes, 3 left", 4, 4),
    ("compact runs short of the end given", b"\x07orders", True, 8,
     "needs 6 bytes, 4 left", 4, 4),
    ("int16 runs short", b"\x00\x06ord", False, None, "needs 6 bytes, 3 left", 5, 5),
    ("int16 length cut", b"\x00", False, None, "needs 2 bytes, 1 left", 3, 3),
    ("nothing left", b"", True, None, "varint runs past the end", 3, 3),
    ("compact length over 0x7fff", b"\x82\x80\x02", True, None,
     "string field name had invalid length 32769", 3, 6),
    ("compact not UTF-8", b"\x03\xff\xfe", True, None, "string is not UTF-8", 3, 6),
    ("int16 not UTF-8", b"\x00\x02\xff\xfe", False, None, "string is not UTF-8", 3, 7),
]  # fmt: skip


@pytest.mark.parametrize(
    ("data", "compact", "end", "reason", "position", "after"),
    [case[1:] for case in ERRORS],
    ids=[case[0] for case in ERRORS],
)
def test_a_malformed_string_names_what_and_where(data, compact, end, reason, position, after):
    r = Readable(PRE + data, len(PRE), end)
    with pytest.raises(ProtocolError) as caught:
        r.string("name", compact, False)
    assert (caught.value.reason, caught.value.position, caught.value.field) == (
        reason,
        position,
        "name",
    )
    assert r.p == after
