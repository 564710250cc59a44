"""Names from the cluster never reach the terminal raw: control sequences in group ids and
topic names are shown escaped in tables, CSV and on stderr; CSV cells are not formulas."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.helpers import commit_offsets, make_topic, run_kgroup

pytestmark = pytest.mark.integration

ESC_COLOUR = "\x1b[31m"
ESC_TITLE = "\x1b]0;pwned\x07"


@pytest.fixture()
def hostile_group(kafka_broker, unique, isolated_state):
    topic = f"hostile-{unique}"
    group = f"{ESC_COLOUR}evil{ESC_TITLE}-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [5])
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 2})
    return kafka_broker.bootstrap, topic, group, {"XDG_STATE_HOME": str(isolated_state)}


def _no_raw_controls(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text, repr(text)


def test_tables_and_stderr_show_control_characters_escaped(hostile_group) -> None:
    bootstrap, topic, group, env = hostile_group
    for args in (
        ["describe", group],
        ["list"],  # (tansu lists such ids percent-encoded; Kafka returns them as they are)
        ["reset-offsets", group, "--topic", topic, "--to", "earliest"],
    ):
        result = run_kgroup("-b", bootstrap, *args, env=env)
        _no_raw_controls(result.stdout + result.stderr)
    shown = run_kgroup("-b", bootstrap, "describe", group, env=env).stdout
    assert "\\x1b[31mevil\\x1b]0;pwned\\x07" in shown
    missing = run_kgroup("-b", bootstrap, "describe", group + "\x1b[2J", env=env, expect=3)
    _no_raw_controls(missing.stderr)
    assert "\\x1b[2J" in missing.stderr
    # JSON keeps the exact name (escaped by JSON's own rules), so scripts see the real id.
    document = json.loads(run_kgroup("-b", bootstrap, "describe", group, "-o", "json").stdout)
    assert document["groups"][0]["group"] == group


def test_csv_cells_are_neither_control_sequences_nor_formulas(hostile_group) -> None:
    bootstrap, _topic, group, env = hostile_group
    result = run_kgroup("-b", bootstrap, "describe", group, "-o", "csv", env=env)
    _no_raw_controls(result.stdout)
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert rows[0]["group"].startswith("\\x1b[31mevil")
    assert rows[0]["current_offset"] == "2"


def test_csv_formula_cells_get_a_quote() -> None:
    from kgroup.render.safe import csv_safe, terminal_safe

    assert [csv_safe(t) for t in ("=1+1", "+x", "-y", "@SUM(A1)", "plain")] == [
        "'=1+1",
        "'+x",
        "'-y",
        "'@SUM(A1)",
        "plain",
    ]
    assert terminal_safe("a\x1b[0m\x9b\u202eb\x7f") == "a\\x1b[0m\\x9b\\u202eb\\x7f"
