"""The generated codec (kgroup.protocol) on large messages, in ms.

Builds large responses (Metadata of 200 topics x 50 partitions, OffsetFetch of 500 groups x 10
partitions, DescribeGroups of 500 groups x 5 members, ListOffsets, ConsumerGroupDescribe) with
the tests' dict codec (tests/unit/protocol/dict_codec.py), then times decoding them to the
client's result types, plus two request encoders. No broker needed. (Issue 16 compared these
with kgroup's older hand-written codec, within 5%; that codec is gone since issue 25: the tests
check the codec against librdkafka and Kafka's own bytes instead.) Then the
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
from kgroup.protocol.generated.embedded import consumer_protocol_subscription as cps
from kgroup.protocol.generated.wire import consumer_group_describe_response as cgd_res
from kgroup.protocol.generated.wire import describe_groups_response as dg_res
from kgroup.protocol.generated.wire import metadata_response as md_res
from tests.unit.protocol import dict_codec as dicts


def subscription(topics: tuple[str, ...], generation: int, rack: str | None) -> bytes:
    """A ConsumerProtocolSubscription v3, behind its int16 version."""
    value = cps.ConsumerProtocolSubscription(topics, None, (), generation, rack)
    return (3).to_bytes(2, "big") + cps.write(value, 3)


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
    member_metadata = subscription(("orders",), 4, None)
    members = [
        {
            "member_id": f"consumer-{i}-0b5c6f9e",
            "client_id": f"consumer-{i}",
            "client_host": "/10.0.0.1",
            "member_metadata": member_metadata,
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


def main() -> int:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    commit_rows = [("orders", i, i * 10, -1, None) for i in range(5000)]
    cases: list[tuple[str, Callable[[], Any]]] = []
    for version in (1, 12):
        body = metadata(version)
        cases.append(
            (
                f"Metadata v{version} decode (10000 partitions)",
                lambda b=body, v=version: read_answer(md_res, b, v),
            )
        )
    fetch = offset_fetch_v8()
    cases.append(
        (
            "OffsetFetch v8 decode (500 groups x 10)",
            lambda: decode_offset_fetch_response(fetch, 8, []),
        )
    )
    describe = describe_groups_v5()
    cases.append(
        (
            "DescribeGroups v5 decode (500 groups x 5)",
            lambda: read_answer(dg_res, describe, 5),
        )
    )
    offsets = list_offsets_v8()
    cases.append(
        (
            "ListOffsets v8 decode (5000 partitions)",
            lambda: decode_list_offsets_response(offsets, 8),
        )
    )
    cgd = consumer_group_describe_v1()
    cases.append(
        (
            "ConsumerGroupDescribe v1 decode (300 x 5)",
            lambda: read_answer(cgd_res, cgd, 1),
        )
    )
    subs = [subscription(("orders", "audit"), 4, "r")] * 2500
    cases.append(("Subscription decode (2500)", lambda: [decode_subscription(s) for s in subs]))
    cases.append(
        (
            "OffsetCommit v8 encode (5000 partitions)",
            lambda: encode_offset_commit_request(8, "g", commit_rows),
        )
    )
    cases.append(
        (
            "ListOffsets v8 encode (100 x 50)",
            lambda: encode_list_offsets_request(
                8, [(f"t{t}", [(i, -1) for i in range(50)]) for t in range(100)]
            ),
        )
    )
    print(f"{'case':46} {'generated':>12}")
    for name, ours in cases:
        print(f"{name:46} {best(ours, repeats):9.2f} ms")
    print(f"{'case':60} {'built':>10} {'committed':>12} {'ratio':>6}")
    for name, built, committed in offsets_cases():
        assert built() == committed()
        built_ms = best(built, repeats)
        committed_ms = best(committed, repeats)
        print(f"{name:60} {built_ms:7.2f} ms {committed_ms:9.2f} ms {committed_ms / built_ms:6.2f}")
    startup(repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
