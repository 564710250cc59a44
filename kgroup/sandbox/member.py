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
    hold_membership(
        admin,
        args.group,
        args.topics.split(","),
        parse_commit(args.commit),
        engine=args.engine,
        protocol=args.protocol,
        ready_file=args.ready_file,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
