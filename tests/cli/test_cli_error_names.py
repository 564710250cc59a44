"""Every Kafka error code a broker answers reads by its Kafka name in kgroup's one-line errors.

A scripted coordinator (tests/unit/wire/fakegroups.py) answers OffsetFetch with a group-level
error code of Kafka 4.x (KIP-848 / KIP-932 / KIP-1071); `kgroup delete-offsets` (which reads the
committed offsets first) must print the code's name from Kafka's Errors.java, never
UNKNOWN_ERROR_CODE_<n>.
"""

from __future__ import annotations

import pytest

from tests.helpers import run_kgroup
from tests.unit.wire.fakegroups import GroupsCluster
from tests.unit.wire.wirecodec import Reader, Writer


class FailingOffsetFetch(GroupsCluster):
    """A GroupsCluster whose OffsetFetch v8 answers every group with one group-level error."""

    error_code: int = 0

    def _offset_fetch(self, body: bytes) -> bytes:
        reader = Reader(body, flexible=True)

        def read_group(r: Reader) -> str:
            name = r.string()
            r.nullable_array(lambda x: x.string())
            r.tagged_fields()
            return name

        groups = reader.array(read_group)
        writer = Writer(flexible=True).int32(0)  # ThrottleTimeMs

        def group(w: Writer, group_id: str) -> None:
            w.string(group_id).array([], Writer.string).int16(self.error_code).tagged_fields()

        return writer.array(groups, group).tagged_fields().getvalue()


@pytest.mark.parametrize(
    ("code", "name"),
    [
        (110, "FENCED_MEMBER_EPOCH"),
        (111, "UNRELEASED_INSTANCE_ID"),
        (112, "UNSUPPORTED_ASSIGNOR"),
        (113, "STALE_MEMBER_EPOCH"),
        (124, "FENCED_STATE_EPOCH"),
        (132, "STREAMS_TOPOLOGY_FENCED"),
        (133, "SHARE_SESSION_LIMIT_REACHED"),
    ],
)
def test_offset_fetch_error_is_named(tmp_path, code: int, name: str) -> None:
    cluster = FailingOffsetFetch(topics={"orders": 1})
    cluster.error_code = code
    try:
        result = run_kgroup(
            "-b",
            cluster.address,
            "--timeout",
            "10",
            "delete-offsets",
            "billing",
            "--topic",
            "orders",
            env={"XDG_CONFIG_HOME": str(tmp_path)},
            expect=1,
        )
    finally:
        cluster.close()
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert name in lines[0], lines[0]
    assert "UNKNOWN_ERROR_CODE" not in lines[0]
