"""`kgroup simulate-assign` input through a real process: scenario files, flag shorthands, limits.

Bad input is a usage error (exit 2) on one stderr line that names the key and where it is
(file:line:column for YAML, the key path for JSON); nothing reaches stdout.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers import run_kgroup


def _usage_error(*args: str) -> str:
    """Run kgroup expecting exit 2; the single stderr line."""
    result = run_kgroup(*args, expect=2)
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "unexpected" not in lines[0] and "Traceback" not in result.stderr
    return lines[0]


def _scenario(tmp_path: Path, text: str, name: str = "s.yaml") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


# --- C1: scenario files are validated against a schema ----------------------------------------


def test_members_as_a_string_is_not_split_into_characters(tmp_path) -> None:
    path = _scenario(tmp_path, "topics:\n  orders: 4\nmembers: c1\n")
    line = _usage_error("simulate-assign", "--scenario", path)
    assert f"{path}:3:10: members: expected a list" in line


def test_unknown_key_is_named_with_its_position(tmp_path) -> None:
    path = _scenario(tmp_path, "topics:\n  orders: 4\nmembers:\n  - {id: c1, bogus: 1}\n")
    line = _usage_error("simulate-assign", "--scenario", path)
    assert f"{path}:4:14: members[0]: unknown key 'bogus'" in line
    assert "instance_id" in line  # says what is allowed


def test_unknown_top_level_key(tmp_path) -> None:
    path = _scenario(tmp_path, "topics:\n  orders: 4\nmember:\n  - c1\n")
    assert f"{path}:3:1: unknown key 'member'" in _usage_error(
        "simulate-assign", "--scenario", path
    )


def test_rack_as_a_list_is_refused(tmp_path) -> None:
    path = _scenario(tmp_path, "topics:\n  orders: 4\nmembers:\n  - {id: c1, rack: [1, 2]}\n")
    line = _usage_error("simulate-assign", "--scenario", path)
    assert f"{path}:4:20: members[0].rack: expected a rack name, got a list" in line


def test_generation_not_a_number_is_a_usage_error(tmp_path) -> None:
    path = _scenario(tmp_path, 'topics:\n  orders: 4\nmembers:\n  - {id: c1, generation: "x"}\n')
    line = _usage_error("simulate-assign", "--scenario", path)
    assert f"{path}:4:26: members[0].generation: expected an integer" in line


def test_duplicate_topic_key_in_yaml(tmp_path) -> None:
    path = _scenario(tmp_path, "topics:\n  orders: 3\n  orders: 4\nmembers: [c1]\n")
    line = _usage_error("simulate-assign", "--scenario", path)
    assert f"{path}:3:3: topics: key 'orders' appears twice (first at 2:3)" in line


def test_duplicate_member_in_file(tmp_path) -> None:
    path = _scenario(tmp_path, "topics: {t: 2}\nmembers:\n  - c1\n  - {id: c1}\n")
    line = _usage_error("simulate-assign", "--scenario", path)
    assert f"{path}:4:5: members[1]: member 'c1' is listed twice (first at 3:5)" in line


def test_duplicate_subscription_and_owned_partition(tmp_path) -> None:
    path = _scenario(tmp_path, "topics: {t: 2}\nmembers:\n  - {id: c1, topics: [t, t]}\n")
    assert "members[0].topics[1]: 't' is listed twice" in _usage_error(
        "simulate-assign", "--scenario", path
    )
    path = _scenario(tmp_path, "topics: {t: 2}\nmembers:\n  - {id: c1, owned: {t: [1, 1]}}\n")
    assert "members[0].owned.t[1]: 1 is listed twice" in _usage_error(
        "simulate-assign", "--scenario", path
    )


def test_owned_partition_out_of_range_has_a_position(tmp_path) -> None:
    path = _scenario(tmp_path, "topics: {t: 2}\nmembers:\n  - {id: c1, owned: {t: [0, 5]}}\n")
    line = _usage_error("simulate-assign", "--scenario", path)
    assert f"{path}:3:29: members[0].owned.t[1]: partition 5 of t, which has 2 partitions" in line


def test_event_errors_have_positions(tmp_path) -> None:
    path = _scenario(
        tmp_path,
        """\
        topics: {t: 2}
        members: [c1]
        events:
          - join: {id: c2}
          - jion: {id: c3}
        """,
    )
    line = _usage_error("simulate-assign", "--scenario", path)
    assert f"{path}:5:5: events[1]: unknown event 'jion'" in line
    path = _scenario(tmp_path, "topics: {t: 2}\nmembers: [c1]\nevents: ['?x']\n")
    assert f"{path}:3:10: events[0]: '?x' is not one of" in _usage_error(
        "simulate-assign", "--scenario", path
    )


def test_yaml_syntax_error_is_one_line_with_line_and_column(tmp_path) -> None:
    path = _scenario(tmp_path, "topics:\n  orders: [4\nmembers:\n  - {id: c1}\n")
    line = _usage_error("simulate-assign", "--scenario", path)
    assert f"{path}:3:8: not valid YAML: expected ',' or ']'" in line
    assert "flow sequence" in line and "2:11" in line


def test_json_syntax_error_is_one_line_with_line_and_column(tmp_path) -> None:
    path = _scenario(tmp_path, '{"topics": {"t": 2},\n "members": [c1]}\n', "s.json")
    assert f"{path}:2:14: not valid JSON: Expecting value" in _usage_error(
        "simulate-assign", "--scenario", path
    )


def test_json_schema_error_names_the_key_path(tmp_path) -> None:
    doc = {"topics": {"t": 2}, "members": [{"id": "c1", "rack": [1, 2]}]}
    path = _scenario(tmp_path, json.dumps(doc), "s.json")
    line = _usage_error("simulate-assign", "--scenario", path)
    assert f"{path}: members[0].rack: expected a rack name, got a list" in line


def test_json_duplicate_keys(tmp_path) -> None:
    path = _scenario(tmp_path, '{"topics": {"t": 2, "t": 3}, "members": ["c1"]}', "s.json")
    assert "topics: key 't' appears twice" in _usage_error("simulate-assign", "--scenario", path)


def test_file_that_is_not_utf8(tmp_path) -> None:
    path = tmp_path / "s.yaml"
    path.write_bytes(b"topics: {t: 2}\nmembers: [c\xff]\n")
    assert "not UTF-8" in _usage_error("simulate-assign", "--scenario", str(path))


def test_documented_scenario_still_works(tmp_path) -> None:
    """ASSIGNORS.md's example, plus anchors, a number as a name and a merge key."""
    path = _scenario(
        tmp_path,
        """\
        topics:
          orders: 12
          2024: 2
          payments:
            partitions: 6
            racks: [[r1, r2], [r2, r3], [r1, r3], [r1, r2], [r2, r3], [r1, r3]]
            id: "T1-A4s3VTwiI5CTbEp6POw"
        members:
          - &base {id: consumer-1, topics: [orders, payments], rack: r1, instance_id: pod-1}
          - <<: *base
            id: c2
            instance_id: pod-2
            owned: {orders: [0, 1, 2]}
            generation: 3
          - c3
        events:
          - join: {id: c4, topics: [orders]}
          - leave: consumer-1
          - partitions: {topic: orders, count: 24}
          - subscribe: {id: c2, topics: [orders, "2024"]}
          - rack: {id: c2, rack: r3}
          - "+c5=orders@r2"
        """,
    )
    result = run_kgroup("-o", "json", "simulate-assign", "--scenario", path, "-s", "sticky")
    (doc,) = json.loads(result.stdout)["strategies"]
    assert len(doc["steps"]) == 7
    assert doc["steps"][0]["metrics"]["partitions"] == 20
    assert ["2024", 0] in doc["steps"][0]["assignment"]["c3"]


# --- C1: duplicates in the flag shorthands -----------------------------------------------------


def test_duplicate_topic_in_topics_flag() -> None:
    line = _usage_error("simulate-assign", "--members", "c1", "--topics", "orders:3,orders:4")
    assert "--topics: topic 'orders' is given twice" in line


def test_duplicate_member_in_members_flag() -> None:
    line = _usage_error("simulate-assign", "--members", "c1,c2,c1", "--topics", "t:3")
    assert "--members: member 'c1' is given twice" in line
    line = _usage_error("simulate-assign", "--members", "c1=t+t", "--topics", "t:3")
    assert "--members: 'c1=t+t' names topic 't' twice" in line


# --- C2: documented limits, MemoryError -------------------------------------------------------


@pytest.mark.parametrize("count", ["10000000", "100000000", "9" * 5000])
def test_partition_count_over_the_limit_is_refused_at_once(count: str) -> None:
    result = run_kgroup(
        "simulate-assign", "--members", "c1", "--topics", f"orders:{count}@r1", expect=2
    )
    assert result.seconds < 5
    assert "--topics: topic 'orders' has more than 1,000,000 partitions" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_limits_over_the_whole_run() -> None:
    members = ",".join(f"c{i}" for i in range(1001))
    line = _usage_error("simulate-assign", "--members", members, "--topics", "a:500000,b:500000")
    assert "1001 members x 1,000,000 partitions" in line and "1,000,000,000" in line
    line = _usage_error("simulate-assign", "--members", "c1", "--topics", "a:600000,b:600000")
    assert "1,200,000 partitions" in line
    line = _usage_error(
        "simulate-assign", "--members", "c1", "--topics", "t:1", "--events", "topic:t=2000000"
    )
    assert "--events: topic 't' would have more than 1,000,000 partitions" in line
    line = _usage_error(
        "simulate-assign", "--members", "c1", "--topics", "t:1000000", "--compare", "--events",
        "+c2,+c3",
    )  # fmt: skip
    assert "6 strategies x 3 steps" in line


def test_limits_leave_room_for_big_groups() -> None:
    """1,000 members x 100,000 partitions (the size the limits are measured from) runs fast."""
    members = ",".join(f"c{i}" for i in range(1000))
    result = run_kgroup("simulate-assign", "--members", members, "--topics", f"t:{100_000}")
    assert "members=1000 partitions=100000/100000 spread=0" in result.stdout
    assert result.seconds < 10


def test_out_of_memory_is_one_line_exit_1() -> None:
    """A MemoryError anywhere is reported, not shown as a crash.

    The address space is capped at 128 MB; 1,000,000 partitions (within the limits) need ~200 MB.
    """
    code = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (128 << 20, 128 << 20));"
        "from kgroup.cli.app import run; sys.exit(run(sys.argv[1:]))"
    )
    args = ["simulate-assign", "--members", "c1", "--topics", "t:1000000"]
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kgroup: error: out of memory"), proc.stderr
    assert "Hint:" in lines[0] and "unexpected" not in lines[0]


# --- C3: an event list that starts with '-' ---------------------------------------------------


@pytest.mark.parametrize("value", ["-c1", "-c1,+c3", "-b1", "-o1", "-X1", "-v"])
def test_events_value_starting_with_a_dash(value: str) -> None:
    member = value.split(",")[0][1:]
    result = run_kgroup(
        "simulate-assign", "--strategy", "range", "--members", f"{member},c2", "--topics", "t:4",
        "--events", value, "-o", "json",
    )  # fmt: skip
    (doc,) = json.loads(result.stdout)["strategies"]
    assert doc["steps"][1]["event"] == f"-{member}"
    assert member not in doc["steps"][1]["assignment"]


def test_events_with_equals_sign() -> None:
    result = run_kgroup(
        "simulate-assign", "--members", "c1,c2", "--topics", "t:4", "--events=-c1", "-o", "json"
    )
    assert json.loads(result.stdout)["strategies"][0]["steps"][1]["event"] == "-c1"


# --- C4: PyYAML is a runtime dependency, imported lazily ---------------------------------------


def test_pyyaml_is_a_runtime_dependency_and_help_does_not_import_it() -> None:
    # the installed distribution's own requirements (tomllib is Python >= 3.11 only)
    from importlib.metadata import requires

    runtime = [r for r in requires("kgroup") or [] if "extra ==" not in r]
    assert any(r.lower().startswith("pyyaml") for r in runtime)
    code = (
        "import sys\nfrom kgroup.cli.app import run\n"
        "run(['--help']); run(['simulate-assign', '--help'])\n"
        "print('yaml' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip().endswith("False")
