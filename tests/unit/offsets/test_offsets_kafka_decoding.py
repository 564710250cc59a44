"""`kgroup decode --segments` against Kafka's own decoding of segments a real Kafka 4.1 wrote.

Outside reference: /work/shared/fixtures/kafka-4.1/<case>/expected.jsonl is what Kafka's
`kafka-dump-log --offsets-decoder --print-data-log` printed for every record of the segments
beside it (its README). The decoder users run (kgroup.offsets.generated's readers, and the C
reader when built) must give every record Kafka gave, with every field Kafka printed and
Kafka's value; names compared without case or underscores (Kafka prints its camelCase JSON
names, kgroup snake_case). The only field kgroup adds is the int16 `version` of the embedded
consumer-protocol bytes, which Kafka prints decoded without it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kgroup.offsets import native

FIXTURES = Path(os.environ.get("KGROUP_KAFKA41_FIXTURES", "/work/shared/fixtures/kafka-4.1"))
ROOT = Path(__file__).resolve().parents[3]
CASES = ("every-record-type", "operations")

pytestmark = pytest.mark.skipif(
    not FIXTURES.is_dir(), reason=f"the Kafka 4.1 fixtures are not at {FIXTURES}"
)

# `kgroup ARGS` with the C reader switched off first (the pure-Python readers only)
PURE = (
    "import runpy, sys\n"
    "from kgroup.offsets import native\n"
    "native.set_enabled(False)\n"
    "sys.argv = ['kgroup', *sys.argv[1:]]\n"
    "runpy.run_module('kgroup', run_name='__main__')\n"
)
EMBEDDED = ("subscription", "assignment")


def _decode(case: str, pure: bool, tmp_path: Path) -> list[dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGROUP_")}
    env.update(
        PYTHONPATH=str(ROOT),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_STATE_HOME=str(tmp_path / "state"),
    )
    args = ["decode", "--segments", str(FIXTURES / case), "-o", "jsonl"]
    command = (
        [sys.executable, "-c", PURE, *args] if pure else [sys.executable, "-m", "kgroup", *args]
    )
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [json.loads(line) for line in proc.stdout.splitlines()]


def _name(key: str) -> str:
    return key.replace("_", "").lower()


def differences(ours: Any, kafka: Any, where: str, extra_ok: frozenset[str]) -> list[str]:
    """Where `ours` (kgroup's JSON) does not say what `kafka` (Kafka's JSON) says."""
    if isinstance(kafka, dict):
        if not isinstance(ours, dict):
            return [f"{where}: {ours!r} where Kafka has an object"]
        by_name = {_name(k): v for k, v in ours.items()}
        out = [
            f"{where}.{k}: not in Kafka's record"
            for k in ours
            if _name(k) not in {_name(x) for x in kafka} and k not in extra_ok
        ]
        for key, value in kafka.items():
            if _name(key) not in by_name:
                out.append(f"{where}.{key}: missing")
                continue
            inner = frozenset({"version"}) if key in EMBEDDED else frozenset()
            out += differences(by_name[_name(key)], value, f"{where}.{key}", inner)
        return out
    if isinstance(kafka, list):
        if not isinstance(ours, list) or len(ours) != len(kafka):
            return [f"{where}: {ours!r} != {kafka!r}"]
        return [
            d
            for i, (a, b) in enumerate(zip(ours, kafka, strict=True))
            for d in differences(a, b, f"{where}[{i}]", extra_ok)
        ]
    return (
        [] if ours == kafka and type(ours) is type(kafka) else [f"{where}: {ours!r} != {kafka!r}"]
    )


def record_differences(ours: dict[str, Any], kafka: dict[str, Any]) -> list[str]:
    """One decoded record of `kgroup decode -o jsonl` against Kafka's line for it."""
    where = f"{kafka['partition_dir']}@{kafka['offset']}"
    out = [] if ours["timestamp"] == kafka["timestamp"] else [f"{where}: timestamp"]
    if "control" in kafka:
        value = ours["value"] or {}
        marker, epoch = value.get("marker"), value.get("coordinator_epoch")
        said = f"endTxnMarker: {marker} coordinatorEpoch: {epoch}"
        if not ours["control"] or said != kafka["control"]:
            out.append(f"{where}: control {said!r} != {kafka['control']!r}")
        return out
    if str(ours["key_type"]) != kafka["key"]["type"]:
        return [*out, f"{where}: record type {ours['key_type']} != {kafka['key']['type']}"]
    out += differences(ours["key"], kafka["key"]["data"], f"{where}.key", frozenset())
    if kafka["value"] is None:
        return out if ours["value"] is None else [*out, f"{where}: a value where Kafka has none"]
    if str(ours["value_version"]) != kafka["value"]["version"]:
        return [*out, f"{where}: value version {ours['value_version']}"]
    return out + differences(ours["value"], kafka["value"]["data"], f"{where}.value", frozenset())


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize(
    "pure",
    [
        pytest.param(
            False,
            id="c",
            marks=pytest.mark.skipif(not native.available(), reason="C reader not built"),
        ),
        pytest.param(True, id="pure"),
    ],
)
def test_decode_prints_every_record_as_kafka_decodes_it(
    case: str, pure: bool, tmp_path: Path
) -> None:
    with open(FIXTURES / case / "expected.jsonl", encoding="utf-8") as fh:
        kafka = [json.loads(line) for line in fh]
    ours = {(r["source"].split("/")[0], r["offset"]): r for r in _decode(case, pure, tmp_path)}
    assert len(ours) == len(kafka), "kgroup and Kafka decoded different numbers of records"
    problems = []
    for line in kafka:
        record = ours.get((line["partition_dir"], line["offset"]))
        if record is None:
            problems.append(f"{line['partition_dir']}@{line['offset']}: not decoded")
            continue
        problems += record_differences(record, line)
    assert not problems, f"{len(problems)} differences from Kafka's decoding:\n" + "\n".join(
        problems[:20]
    )


def test_the_comparison_sees_a_wrong_value_a_missing_and_an_extra_field() -> None:
    kafka = {"groupId": "g", "members": [{"memberId": "m", "subscription": {"topics": ["t"]}}]}
    ours = {"group_id": "g", "members": [{"member_id": "m", "subscription": {"topics": ["t"]}}]}
    assert differences(ours, kafka, "r", frozenset()) == []
    ours["members"][0]["subscription"]["version"] = 3  # the embedded bytes' version: allowed
    assert differences(ours, kafka, "r", frozenset()) == []
    assert differences({**ours, "group_id": "h"}, kafka, "r", frozenset()) == [
        "r.groupId: 'h' != 'g'"
    ]
    assert differences({"members": ours["members"]}, kafka, "r", frozenset()) == [
        "r.groupId: missing"
    ]
    assert differences({**ours, "epoch": 1}, kafka, "r", frozenset()) == [
        "r.epoch: not in Kafka's record"
    ]
    assert differences({"group_id": 1}, {"groupId": True}, "r", frozenset()) == [
        "r.groupId: 1 != True"
    ]
