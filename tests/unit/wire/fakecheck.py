"""A scripted one-broker cluster for `kgroup check` end to end, with what tansu lacks:
DescribeLogDirs (API 35; tansu 0.6 does not offer it) and topic retention.bytes.

One topic, one partition, one empty group whose committed offset moves while the log grows
faster (Burrow: WARN, the lag grows), each as a function of the time since the cluster started:
log end = 900 + 100/s, committed = 800 + 40/s, log start 0, every record 1000 bytes, the record
at any offset written a minute ago. DescribeConfigs answers the topic's `retention.ms` and
`retention.bytes`; DescribeLogDirs (v1-v4 offered, like Kafka 3.x) answers the log size.
Responses are written with the generated classes of kgroup.protocol's declarations (their
bytes are pinned by the message tests; `structs.py`) and the FakeBroker helpers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from kgroup.core.wire.log_dirs import DESCRIBE_LOG_DIRS, WIRE_API
from kgroup.offsets.encode import encode_batch
from kgroup.protocol import messages as api_table
from kgroup.protocol.messages import DESCRIBE_CONFIGS
from tests.unit.wire.fakebroker import FetchAnswer, fetch_body, read_fetch_request
from tests.unit.wire.fakegroups import GroupsCluster
from tests.unit.wire.structs import read_request, write_response

TOPIC = "orders"
GROUP = "billing"
RECORD_BYTES = 1000


@dataclass
class CheckCluster(GroupsCluster):
    """`retention_bytes` / `retention_ms` None: not in the topic's configuration."""

    retention_bytes: int | None = 1_000_000
    retention_ms: int | None = 3 * 3_600_000
    offer_log_dirs: bool = True
    log_dirs_asked: list[tuple[int, dict]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.topics = {TOPIC: 1}
        self.offsets = {GROUP: {(TOPIC, 0): 800}}
        self.started = time.monotonic()
        super().__post_init__()
        self.broker.versions[api_table.FETCH.key] = (4, 11)
        self.broker.versions[api_table.DESCRIBE_CONFIGS.key] = (0, 2)
        if self.offer_log_dirs:
            self.broker.versions[WIRE_API.key] = (0, 4)

    def _now(self) -> None:
        elapsed = time.monotonic() - self.started
        self.log_end = 900 + int(100 * elapsed)
        self.offsets[GROUP][(TOPIC, 0)] = 800 + int(40 * elapsed)

    def handler(self, api: int, version: int, body: bytes) -> bytes:
        self._now()
        if api == api_table.FETCH.key:
            return self._fetch(version, body)
        if api == api_table.DESCRIBE_CONFIGS.key:
            return self._describe_configs(version)
        if api == WIRE_API.key:
            return self._describe_log_dirs(version, body)
        return super().handler(api, version, body)

    def _fetch(self, version: int, body: bytes) -> bytes:
        _isolation, _wait, asked = read_fetch_request(body, version)
        written = int(time.time() * 1000) - 60_000
        answers = [
            FetchAnswer(
                a.topic,
                a.partition,
                records=encode_batch([(None, b"x")], base_offset=a.offset, timestamp=written),
                high_watermark=self.log_end,
            )
            for a in asked
        ]
        return fetch_body(version, answers)

    def _describe_configs(self, version: int) -> bytes:
        configs = [
            {"name": name, "value": str(value), "config_source": 1}
            for name, value in (
                ("retention.ms", self.retention_ms),
                ("retention.bytes", self.retention_bytes),
            )
            if value is not None
        ]
        configs.append({"name": "cleanup.policy", "value": "delete", "config_source": 5})
        result = {"resource_type": 2, "resource_name": TOPIC, "configs": configs}
        return write_response(DESCRIBE_CONFIGS, version, {"results": [result]})

    def _describe_log_dirs(self, version: int, body: bytes) -> bytes:
        self.log_dirs_asked.append((version, read_request(DESCRIBE_LOG_DIRS, version, body)))
        partition = {
            "partition_index": 0,
            "partition_size": self.log_end * RECORD_BYTES,
            "offset_lag": 0,
            "is_future_key": False,
        }
        result = {"log_dir": "/data", "topics": [{"name": TOPIC, "partitions": [partition]}]}
        return write_response(DESCRIBE_LOG_DIRS, version, {"results": [result]})
