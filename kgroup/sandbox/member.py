"""`python -m kgroup.sandbox.member`: a real group member the sandbox keeps running.

It joins the group, commits the given offsets, and stays in the group without consuming, so the
group is active (Stable) with a known lag until `kgroup sandbox stop` ends it.
"""

from __future__ import annotations

import argparse
import signal
import sys

from kgroup.core.models import TopicPartition


def parse_commit(text: str) -> dict[TopicPartition, int]:
    result = {}
    for item in filter(None, text.split(",")):
        where, _, offset = item.partition("=")
        topic, _, partition = where.rpartition(":")
        result[TopicPartition(topic, int(partition))] = int(offset)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kgroup.sandbox.member")
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--group", required=True)
    parser.add_argument("--topics", required=True)
    parser.add_argument("--commit", default="")
    parser.add_argument("--engine", default="tansu")
    parser.add_argument("--ready-file")
    parser.add_argument("--protocol", choices=("classic", "consumer"), default="classic")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

    from kgroup.core.admin import GroupAdmin
    from kgroup.core.clients import hold_membership
    from kgroup.core.config import ClusterConfig

    admin = GroupAdmin(ClusterConfig(bootstrap_servers=args.bootstrap, timeout_s=15))
    if args.protocol == "consumer":
        hold_consumer_membership(
            admin, args.group, args.topics.split(","), parse_commit(args.commit), args.ready_file
        )
        return 0
    hold_membership(
        admin,
        args.group,
        args.topics.split(","),
        parse_commit(args.commit),
        engine=args.engine,
        ready_file=args.ready_file,
    )
    return 0


def hold_consumer_membership(
    admin,
    group: str,
    topics: list[str],
    commit: dict[TopicPartition, int],
    ready_file: str | None,
    join_timeout_s: float = 30.0,
) -> None:
    """As `hold_membership`, for a KIP-848 member (`group.protocol=consumer`): the broker
    assigns, and the classic session/heartbeat settings are not allowed."""
    import time

    from confluent_kafka import Consumer
    from confluent_kafka import TopicPartition as RdTopicPartition

    consumer = Consumer(
        admin.client_conf(
            **{
                "group.id": group,
                "group.protocol": "consumer",
                "client.id": "kgroup-sandbox-member",
                "enable.auto.commit": False,
                "auto.offset.reset": "latest",
            }
        )
    )
    consumer.subscribe(topics)
    deadline = time.monotonic() + join_timeout_s
    while not consumer.assignment():
        consumer.poll(0.2)
        if time.monotonic() > deadline:
            raise SystemExit(f"member did not join group {group} within {join_timeout_s:g} s")
    consumer.pause(consumer.assignment())
    if commit:
        consumer.commit(
            offsets=[RdTopicPartition(tp.topic, tp.partition, off) for tp, off in commit.items()],
            asynchronous=False,
        )
    if ready_file:
        with open(ready_file, "w", encoding="utf-8") as handle:
            handle.write("ready\n")
    try:
        while True:
            consumer.poll(0.25)
            assigned = consumer.assignment()
            if assigned:
                consumer.pause(assigned)
    finally:
        consumer.close()


if __name__ == "__main__":
    sys.exit(main())
