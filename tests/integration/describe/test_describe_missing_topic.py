"""`describe --topic` naming a topic the cluster does not have: exit 3 naming it (issue #24
item 9), as `reset-offsets` and `delete-offsets` do, never "no committed offsets"."""

from __future__ import annotations

import pytest

from tests.helpers import commit_offsets, make_topic, run_kgroup

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("output", ["table", "json"])
def test_describe_of_a_topic_that_does_not_exist_is_exit_3_naming_it(
    kafka_broker, unique, output
) -> None:
    topic, group = f"mt-{unique}", f"mt-g-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [3])
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 1})
    missing = f"nosuchtopic-{unique}"
    args = ("-b", kafka_broker.bootstrap, "-o", output, "describe", group)
    result = run_kgroup(*args, "--topic", missing, expect=3)
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert f"topic {missing} does not exist" in result.stderr
    # the topic that exists next to it: still exit 3, only the missing one named
    both = run_kgroup(*args, "--topic", topic, "--topic", f"{missing}:0", expect=3)
    assert missing in both.stderr and f"topic {topic} " not in both.stderr
    # a topic the group never committed to, but that exists: exit 0 as before
    run_kgroup(*args, "--topic", topic, expect=0)
