"""`kgroup decode` output streams (issue #13): rows come out while the input is still being
read, memory stays flat, CSV has the Arrow schema's columns, the table cuts long JSON values
with a visible `…` and says so once on stderr. Real processes, generated and hand-made segments.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kgroup.offsets import encode as enc
from tests.helpers import run_kgroup

SIZE_MB = 32  # ~110,000 records: the old `list(selected)` outputs peaked at 0.3-1 GB here
RSS_LIMIT_MB = 100  # the bound; streaming measures ~35 MB for every format
FORMATS = ["table", "csv", "json", "jsonl"]
BASE_MS = 1_767_225_600_000


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """(log directory of ~SIZE_MB MiB, its .log bytes), by benchmarks/bench_decode.py."""
    from benchmarks import bench_decode as bench

    saved = bench.OUT
    bench.OUT = str(tmp_path_factory.mktemp("segments"))
    try:
        path, _records = bench.generate(SIZE_MB)
    finally:
        bench.OUT = saved
    size = sum(p.stat().st_size for p in Path(path).rglob("*.log"))
    return Path(path), size


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGROUP_")}
    env.pop("NO_COLOR", None)
    return env


def _mode(fmt: str) -> list[str]:
    return [] if fmt == "table" else ["-o", fmt]


def _read_chars(pid: int) -> int:
    with open(f"/proc/{pid}/io") as fh:
        fields = dict(line.split(": ") for line in fh.read().splitlines())
    return int(fields["rchar"])


@pytest.mark.skipif(not os.path.exists("/proc/self/io"), reason="needs Linux /proc/PID/io")
@pytest.mark.parametrize("fmt", FORMATS)
def test_rows_come_out_while_the_input_is_still_being_read(big, fmt: str) -> None:
    """The first rows reach a pipe nobody drains; the writer then blocks on the full pipe
    long before it has read half the segments (a writer that first collects every record
    has read them all before it prints anything)."""
    path, size = big
    proc = subprocess.Popen(
        [sys.executable, "-m", "kgroup", "decode", "--segments", str(path), *_mode(fmt)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(),
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first, "no output"
        # wait until the process stops reading (blocked on the pipe), or ends
        last, read = -1, _read_chars(proc.pid)
        deadline = time.monotonic() + 30
        while read != last and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.3)
            last, read = read, _read_chars(proc.pid)
        assert proc.poll() is None, "kgroup finished without blocking on a full pipe"
        assert read < size / 2, f"read {read:,} of {size:,} bytes before printing"
    finally:
        proc.kill()
        proc.wait()


# Linux keeps a process's peak RSS across fork and exec: a kgroup started straight from this
# (large) test process would report the test process's size. A small launcher in between
# starts kgroup and reports its child's own peak.
_LAUNCHER = """
import os, subprocess, sys
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_pid, status, usage = os.wait4(proc.pid, 0)
print(usage.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.parametrize("fmt", FORMATS)
def test_peak_memory_stays_flat_in_the_input_size(big, fmt: str) -> None:
    path, _size = big
    command = [sys.executable, "-m", "kgroup", "decode", "--segments", str(path), *_mode(fmt)]
    result = subprocess.run(
        [sys.executable, "-S", "-c", _LAUNCHER, *command],
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert result.returncode == 0, result.stderr
    peak_mb = int(result.stdout.strip()) / 1024  # Linux: kilobytes
    assert peak_mb < RSS_LIMIT_MB, f"-o {fmt}: peak RSS {peak_mb:.0f} MB"


# ---------------------------------------------------------------- CSV


def _partition(tmp_path: Path, batches: list[bytes], number: int = 7) -> Path:
    d = tmp_path / f"__consumer_offsets-{number}"
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(b"".join(batches))
    return d


def _member_record(topics: list[str]) -> tuple[bytes, bytes]:
    """A KIP-848 ConsumerGroupMemberMetadata record (key type 5, value v0)."""
    key = enc.encode_key(5, {"group_id": "shipping", "member_id": "m1"})
    value = enc.encode_value(
        5,
        0,
        {
            "instance_id": None,
            "rack_id": None,
            "client_id": "rdkafka",
            "client_host": "/10.0.0.1",
            "subscribed_topic_names": topics,
            "subscribed_topic_regex": None,
            "rebalance_timeout_ms": 300000,
            "server_assignor": "uniform",
        },
    )
    assert value is not None
    return key, value


LONG_TOPICS = [f"orders.region-{i:02d}.events" for i in range(12)]


def _mixed(tmp_path: Path) -> Path:
    """An offset commit whose metadata is hostile to a spreadsheet and a terminal, a
    tombstone, and a member record whose JSON value is several hundred characters."""
    return _partition(
        tmp_path,
        [
            enc.encode_batch(
                [
                    enc.offset_commit(
                        "g,1",
                        "t",
                        0,
                        42,
                        commit_timestamp=BASE_MS,
                        metadata='=HYPERLINK("x"),\x1b[31m',
                    )
                ],
                base_offset=0,
                timestamp=BASE_MS,
            ),
            enc.encode_batch(
                [(enc.offset_commit("g,1", "t", 1, 0)[0], None)],
                base_offset=1,
                timestamp=BASE_MS + 1,
            ),
            enc.encode_batch([_member_record(LONG_TOPICS)], base_offset=2, timestamp=BASE_MS + 2),
        ],
    )


def test_csv_has_the_schema_columns_rfc4180_quoting_and_whole_values(tmp_path: Path) -> None:
    d = _mixed(tmp_path)
    out = run_kgroup("decode", "--segments", str(d), "-o", "csv").stdout
    lines = out.splitlines()
    assert lines[0] == (
        '"source","log_partition","position","offset","timestamp","key_type","record_type",'
        '"group","topic","partition","committed_offset","leader_epoch","metadata",'
        '"commit_timestamp","expire_timestamp","value_version","tombstone","producer_id",'
        '"transactional","control","key_json","value_json","key_raw_base64",'
        '"value_raw_base64","layout","error"'
    )
    # every text cell quoted, quotes doubled, null empty, the formula defused with a `'`,
    # the escape character shown as text
    assert lines[1] == (
        '"__consumer_offsets-7/00000000000000000000.log",7,0,0,1767225600000,1,'
        '"offset_commit","g,1","t",0,42,-1,"\'=HYPERLINK(""x""),\\x1b[31m",1767225600000,,3,'
        'false,-1,false,false,"{""group"":""g,1"",""topic"":""t"",""partition"":0}",'
        '"{""offset"":42,""leader_epoch"":-1,""metadata"":""=HYPERLINK(\\""x\\""),\\u001b[31m"",'
        '""commit_timestamp"":1767225600000}",,,,'
    )
    assert lines[2].endswith(
        ',1,"offset_commit","g,1","t",1,,,,,,,true,-1,false,false,'
        '"{""group"":""g,1"",""topic"":""t"",""partition"":1}",,,,,'
    )
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 3
    member = rows[2]
    assert member["record_type"] == "consumer_group_member_metadata"
    value = json.loads(member["value_json"])
    assert value["subscribed_topic_names"] == LONG_TOPICS  # whole, never cut
    assert len(member["value_json"]) > 300 and "…" not in out
    jsonl = run_kgroup("decode", "--segments", str(d), "-o", "jsonl").stdout.splitlines()
    assert [json.loads(member["key_json"]), value] == [
        json.loads(jsonl[2])["key"],
        json.loads(jsonl[2])["value"],
    ]


# ---------------------------------------------------------------- table


def test_table_cuts_long_json_values_with_a_marker_and_says_so_once(tmp_path: Path) -> None:
    d = _partition(
        tmp_path,
        [
            enc.encode_batch([_member_record(LONG_TOPICS)], base_offset=i, timestamp=BASE_MS)
            for i in range(3)
        ],
    )
    result = run_kgroup("decode", "--segments", str(d))
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["SOURCE", "OFFSET", "TIME", "TYPE", "GROUP", "KEY", "VALUE"]
    assert len(lines) == 1 + 3 + 1 and lines[-1] == "3 records"
    for line in lines[1:4]:
        value = line.split("shipping  m1", 1)[1].strip()
        assert value.endswith("…") and len(value) == 120
        assert value.startswith('{"instance_id":null,"rack_id":null,"client_id":"rdkafka"')
    assert result.stderr == (
        "kgroup: values longer than 120 characters are cut with '…' in the table; "
        "-o jsonl, -o csv or --out DIR give them whole\n"
    )


def test_table_columns_keep_their_width_and_later_wider_keys_are_not_cut(tmp_path) -> None:
    d = _partition(
        tmp_path,
        [
            enc.encode_batch(
                [enc.offset_commit(group, "t", 0, 5, commit_timestamp=BASE_MS)],
                base_offset=i,
                timestamp=BASE_MS,
            )
            for i, group in enumerate(["a", "bb", "a-much-longer-group-name"])
        ],
    )
    lines = run_kgroup("decode", "--segments", str(d)).stdout.splitlines()
    assert [line.split()[4] for line in lines[1:4]] == ["a", "bb", "a-much-longer-group-name"]
    # widths come from the first rows here (all of them: fewer than the sample)
    assert len({line.index("t-0") for line in lines[1:4]}) == 1


# ---------------------------------------------------------------- JSON


def test_json_is_one_document_with_the_records_of_json_lines(tmp_path: Path) -> None:
    d = _mixed(tmp_path)
    text = run_kgroup("decode", "--segments", str(d), "-o", "json").stdout
    doc = json.loads(text)
    assert list(doc) == ["schema_version", "records", "summary"]
    assert doc["schema_version"] == 1
    jsonl = run_kgroup("decode", "--segments", str(d), "-o", "jsonl").stdout
    assert doc["records"] == [json.loads(line) for line in jsonl.splitlines()]
    assert doc["summary"]["records"] == 3 and doc["summary"]["problems"] == []
    empty = json.loads(run_kgroup("decode", str(d), "--group", "none", "-o", "json").stdout)
    assert empty["records"] == [] and empty["summary"]["records"] == 0


# ---------------------------------------------------------------- Spark


def _spark_ready() -> bool:
    from kgroup.decode.run import spark_missing

    return spark_missing() is None


@pytest.mark.skipif(not _spark_ready(), reason="needs pyspark and Java")
def test_spark_asked_for_the_printed_record_stream_reads_locally_and_says_so(tmp_path) -> None:
    d = _mixed(tmp_path)
    local = run_kgroup("decode", "--segments", str(d), "-o", "jsonl", "--engine", "local")
    spark = run_kgroup("decode", "--segments", str(d), "-o", "jsonl", "--engine", "spark")
    assert spark.stdout == local.stdout
    assert spark.stderr == (
        "kgroup: engine spark: the record stream printed to stdout is read by the local engine "
        "(through Spark's driver it would come row by row, slower); --out DIR has Spark's tasks "
        "write it\n"
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_reader_that_stops_early_ends_kgroup_quietly_with_exit_0(big, fmt: str) -> None:
    """`kgroup decode ... | head -1`: before, exit 1 and nothing said (Typer's EPIPE path)."""
    path, _size = big
    proc = subprocess.Popen(
        [sys.executable, "-m", "kgroup", "decode", "--segments", str(path), *_mode(fmt)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline()
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, stderr
    assert "Traceback" not in stderr and "error" not in stderr
