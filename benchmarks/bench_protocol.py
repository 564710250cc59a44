"""Declarative codec (kgroup.protocol) against the hand-written one it replaced (kept as the
parity tests' oracle in tests/unit/protocol/handwritten.py).

Builds large responses (Metadata of 200 topics x 50 partitions, OffsetFetch of 500 groups x 10
partitions, DescribeGroups of 500 groups x 5 members, ListOffsets, ConsumerGroupDescribe) with
the tests' dict codec (tests/unit/protocol/dict_codec.py), then times decoding them to the
client's result types both ways, plus two request encoders. No broker needed. Target (issue
16): the declarative path within 5% of the hand-written one (ratio <= 1.05). Then the
`__consumer_offsets` readers: the committed generated modules against the same source built in
the process (ratio ~1.0: nothing was lost by moving the generation to build time); last, what
importing every one of those modules costs.

    python benchmarks/bench_protocol.py [REPEATS]
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from kgroup.core.wire.calls import read_answer
from kgroup.core.wire.member_protocol import decode_subscription
from kgroup.core.wire.offset_calls import (
    decode_list_offsets_response,
    decode_offset_fetch_response,
    encode_list_offsets_request,
    encode_offset_commit_request,
)
from kgroup.protocol import messages as p
from kgroup.protocol.generated.wire import consumer_group_describe_response as cgd_res
from kgroup.protocol.generated.wire import describe_groups_response as dg_res
from kgroup.protocol.generated.wire import metadata_response as md_res
from tests.unit.protocol import dict_codec as dicts
from tests.unit.protocol import handwritten as hw


def best(fn: Callable[[], Any], repeats: int) -> float:
    """Best wall time of `repeats` runs (each run long enough to time), in ms."""
    fn()  # warm the compiled-reader caches
    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - started)
    return 1000 * min(runs)


def metadata(version: int) -> bytes:
    topics = [
        {
            "name": f"topic-{t:03d}",
            "topic_id": bytes(16),
            "partitions": [
                {
                    "partition_index": i,
                    "leader_id": i % 3,
                    "replica_nodes": [0, 1, 2],
                    "isr_nodes": [0, 1, 2],
                }
                for i in range(50)
            ],
        }
        for t in range(200)
    ]
    brokers = [{"node_id": n, "host": f"broker-{n}", "port": 9092} for n in range(3)]
    return dicts.encode(p.METADATA.response, version, {"brokers": brokers, "topics": topics})


def offset_fetch_v8() -> bytes:
    partitions = [
        {"partition_index": i, "committed_offset": 1000 + i, "metadata": ""} for i in range(10)
    ]
    groups = [
        {"group_id": f"group-{g:04d}", "topics": [{"name": "orders", "partitions": partitions}]}
        for g in range(500)
    ]
    return dicts.encode(p.OFFSET_FETCH.response, 8, {"groups": groups})


def describe_groups_v5() -> bytes:
    subscription = hw.encode_subscription(hw.Subscription(3, ["orders"], None, [], 4, None))
    members = [
        {
            "member_id": f"consumer-{i}-0b5c6f9e",
            "client_id": f"consumer-{i}",
            "client_host": "/10.0.0.1",
            "member_metadata": subscription,
            "member_assignment": b"\x00\x00" * 10,
        }
        for i in range(5)
    ]
    groups = [
        {
            "group_id": f"group-{g:04d}",
            "group_state": "Stable",
            "protocol_type": "consumer",
            "protocol_data": "range",
            "members": members,
        }
        for g in range(500)
    ]
    return dicts.encode(p.DESCRIBE_GROUPS.response, 5, {"groups": groups})


def list_offsets_v8() -> bytes:
    topics = [
        {
            "name": f"topic-{t:03d}",
            "partitions": [
                {"partition_index": i, "timestamp": -1, "offset": 10**6 + i} for i in range(50)
            ],
        }
        for t in range(100)
    ]
    return dicts.encode(p.LIST_OFFSETS.response, 8, {"topics": topics})


def consumer_group_describe_v1() -> bytes:
    assignment = {
        "topic_partitions": [
            {"topic_id": bytes(16), "topic_name": "orders", "partitions": list(range(10))}
        ]
    }
    members = [
        {
            "member_id": f"m-{i}",
            "client_id": "c",
            "client_host": "/h",
            "subscribed_topic_names": ["orders"],
            "assignment": assignment,
            "target_assignment": assignment,
            "member_type": 1,
        }
        for i in range(5)
    ]
    groups = [
        {
            "group_id": f"g-{g}",
            "group_state": "Stable",
            "assignor_name": "uniform",
            "members": members,
        }
        for g in range(300)
    ]
    return dicts.encode(p.CONSUMER_GROUP_DESCRIBE.response, 1, {"groups": groups})


def offsets_cases() -> list[tuple[str, Callable[[], Any], Callable[[], Any]]]:
    """`__consumer_offsets` values: the committed generated reader (kgroup.offsets.generated)
    against the same generator's source built in this process with the decoder's options (the
    way kgroup built it at run time before; its C reader, when built, is faster than both)."""
    from kgroup.offsets import layouts as offsets_codec
    from kgroup.offsets import schema
    from kgroup.offsets.wire import DecodeError
    from scripts.gen_offsets_codec import build_reader

    out = []
    samples = [
        (schema.OFFSET_COMMIT_VALUE, 3, {"offset": 5, "metadata": "", "commit_timestamp": 1}),
        (
            schema.GROUP_METADATA_VALUE,
            3,
            {
                "protocol_type": "consumer",
                "protocol": "range",
                "leader": "m-0",
                "members": [
                    {
                        "member_id": f"m-{i}",
                        "client_id": "c",
                        "client_host": "/h",
                        "subscription": b"\x00" * 30,
                        "assignment": b"\x00" * 30,
                    }
                    for i in range(5)
                ],
            },
        ),
    ]
    for msg, version, values in samples:
        raw = offsets_codec.encode_message(msg, version, values)
        committed = offsets_codec.get_py_reader(msg.struct, version, msg.flexible(version))
        built = build_reader(
            msg.struct,
            version,
            msg.flexible(version),
            uuid_as_text=True,
            defaults=False,
            error=DecodeError,
            wording=offsets_codec.WORDING,
        )
        records = [raw] * 20000
        out.append(
            (
                f"{msg.name} v{version} x20000 (offsets: built, committed)",
                lambda r=records, t=built: [t(x, 0, len(x))[0] for x in r],
                lambda r=records, o=committed: [o(x, 0, len(x))[0] for x in r],
            )
        )
    return out


def import_all() -> int:
    """Import every generated `__consumer_offsets` reader module as a fresh process would
    (those already imported dropped first); returns how many."""
    import importlib
    import pkgutil

    from kgroup.offsets.generated import readers

    names = sorted(module.name for module in pkgutil.iter_modules(readers.__path__))
    for name in names:
        sys.modules.pop(f"{readers.__name__}.{name}", None)
    for name in names:
        importlib.import_module(f"{readers.__name__}.{name}")
    return len(names)


def startup(repeats: int) -> None:
    """import_all(), in ms: what the readers cost before the first record now that nothing is
    compiled at run time."""
    count = import_all()
    took = best(import_all, repeats)
    print(f"start-up: the {count} generated offsets reader modules imported in {took:.1f} ms")


def comparable(value: Any) -> Any:
    """The hand-written reader's answer in kgroup's shape (its consumer-protocol values are
    its own dataclasses; kgroup's are the generated classes behind their version)."""
    if isinstance(value, list):
        return [comparable(item) for item in value]
    if isinstance(value, (hw.Subscription, hw.Assignment)):
        return hw.versioned(value)
    return value


def main() -> int:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    commit_rows = [("orders", i, i * 10, -1, None) for i in range(5000)]
    cases: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = []
    for version in (1, 12):
        body = metadata(version)
        cases.append(
            (
                f"Metadata v{version} decode (10000 partitions)",
                lambda b=body, v=version: hw.decode_metadata_response(b, v),
                lambda b=body, v=version: read_answer(md_res, b, v),
            )
        )
    fetch = offset_fetch_v8()
    cases.append(
        (
            "OffsetFetch v8 decode (500 groups x 10)",
            lambda: hw.decode_offset_fetch_response(fetch, 8, []),
            lambda: decode_offset_fetch_response(fetch, 8, []),
        )
    )
    describe = describe_groups_v5()
    cases.append(
        (
            "DescribeGroups v5 decode (500 groups x 5)",
            lambda: hw.decode_describe_groups_response(describe, 5),
            lambda: read_answer(dg_res, describe, 5),
        )
    )
    offsets = list_offsets_v8()
    cases.append(
        (
            "ListOffsets v8 decode (5000 partitions)",
            lambda: hw.decode_list_offsets_response(offsets, 8),
            lambda: decode_list_offsets_response(offsets, 8),
        )
    )
    cgd = consumer_group_describe_v1()
    cases.append(
        (
            "ConsumerGroupDescribe v1 decode (300 x 5)",
            lambda: hw.decode_consumer_group_describe_response(cgd, 1),
            lambda: read_answer(cgd_res, cgd, 1),
        )
    )
    subs = [
        hw.encode_subscription(hw.Subscription(3, ["orders", "audit"], None, [], 4, "r"))
    ] * 2500
    cases.append(
        (
            "Subscription decode (2500)",
            lambda: [hw.decode_subscription(s) for s in subs],
            lambda: [decode_subscription(s) for s in subs],
        )
    )
    cases.append(
        (
            "OffsetCommit v8 encode (5000 partitions)",
            lambda: hw.encode_offset_commit_request(8, "g", commit_rows),
            lambda: encode_offset_commit_request(8, "g", commit_rows),
        )
    )
    cases.append(
        (
            "ListOffsets v8 encode (100 x 50)",
            lambda: hw.encode_list_offsets_request(
                8, [(f"t{t}", [(i, -1) for i in range(50)]) for t in range(100)]
            ),
            lambda: encode_list_offsets_request(
                8, [(f"t{t}", [(i, -1) for i in range(50)]) for t in range(100)]
            ),
        )
    )
    cases += offsets_cases()
    print(f"{'case':46} {'hand-written':>13} {'declarative':>12} {'ratio':>6}")
    for name, hand, ours in cases:
        assert comparable(hand()) == ours()
        hand_ms = best(hand, repeats)
        ours_ms = best(ours, repeats)
        print(f"{name:46} {hand_ms:10.2f} ms {ours_ms:9.2f} ms {ours_ms / hand_ms:6.2f}")
    startup(repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
