"""Which group members are kgroup's own fence members (issue 24.5): read from the client id
`kgroup-reset-offsets pid N on HOST`, or from the member id Kafka makes of it
(`<client id>-<uuid>`, ClassicGroup's MEMBER_ID_DELIMITER) when a broker reports no client id."""

from __future__ import annotations

import os
import socket

from kgroup.check.model import GroupVerdict, MemberRollup, Status
from kgroup.core.wire.fence import FenceOwner, fence_label, fence_member_note, fence_owner
from kgroup.render.check import _footer

UUID = "0f0e0d0c-0b0a-0908-0706-050403020100"


def test_owner_from_the_client_id_or_the_member_id() -> None:
    label = "kgroup-reset-offsets pid 321 on vm-7"
    assert fence_owner("anything", label) == FenceOwner(321, "vm-7")
    assert fence_owner(f"{label}-{UUID}") == FenceOwner(321, "vm-7")
    assert fence_owner(f"{label}-{UUID}", "") == FenceOwner(321, "vm-7")


def test_other_members_are_not_fences() -> None:
    assert fence_owner(f"consumer-1-{UUID}", "consumer-1") is None
    assert fence_owner("kgroup-reset-offsets pid x on h-" + UUID) is None
    assert fence_member_note(f"consumer-1-{UUID}", "consumer-1") is None


def test_this_process_label_and_a_gone_pid() -> None:
    assert fence_owner("m", fence_label()) == FenceOwner(os.getpid(), socket.gethostname())
    assert not FenceOwner(os.getpid(), socket.gethostname()).gone()
    from tests.cli.test_cli_reset_interrupt import dead_pid

    assert FenceOwner(dead_pid(), socket.gethostname()).gone()
    assert not FenceOwner(dead_pid(), "another-host").gone()  # cannot tell: not gone


def test_check_marks_a_fence_member_as_not_a_consumer() -> None:
    label = "kgroup-reset-offsets pid 321 on vm-7"
    members = (
        MemberRollup(f"{label}-{UUID}", label, "/10.0.0.1", 0, None, None),
        MemberRollup(f"app-{UUID}", "app", "/10.0.0.2", 2, 5, None),
    )
    verdict = GroupVerdict("g", Status.OK, "ok", "all good", "sampling", members=members)
    lines = _footer(verdict)
    assert lines[2].endswith("(a kgroup reset's fence member, not a consumer)")
    assert "fence" not in lines[3]
