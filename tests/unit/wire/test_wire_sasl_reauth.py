"""KIP-368: a broker with connections.max.reauth.ms answers SaslAuthenticate v1+ with a session
lifetime and closes a connection that sends anything but SaslHandshake/SaslAuthenticate once it
has passed. kgroup re-authenticates on the same connection before that, as Kafka's Java client
does; runs as a user would, against the SASL fakes (tests/unit/wire/fakesasl.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgroup.core.wire.log_dirs import WIRE_API
from kgroup.protocol import messages as api_table
from tests.helpers import run_kgroup
from tests.unit.wire.fakecheck import CheckCluster
from tests.unit.wire.fakesasl import SaslGate

LIFETIME_MS = 1500
PASSWORD = "Pass-Word-77"


@pytest.fixture()
def check_cluster(monkeypatch: pytest.MonkeyPatch) -> Iterator[CheckCluster]:
    # FakeBroker picks header layouts from the wire client's API table, which does not list
    # DescribeLogDirs (sent by kgroup.core.wire.log_dirs)
    monkeypatch.setitem(api_table.APIS, WIRE_API.key, WIRE_API)
    cluster = CheckCluster()
    yield cluster
    cluster.close()


def client_conf(tmp_path: Path, mechanism: str, **extra: str) -> str:
    props = {
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": mechanism,
        "sasl.username": "alice",
        "sasl.password": PASSWORD,
        **extra,
    }
    path = tmp_path / "client.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return str(path)


def test_check_outliving_the_session_reauthenticates_on_its_one_connection(
    check_cluster: CheckCluster, tmp_path: Path
) -> None:
    gate = SaslGate(
        check_cluster.broker.handler, "PLAIN", {"alice": PASSWORD}, lifetime_ms=LIFETIME_MS
    ).install(check_cluster.broker)
    result = run_kgroup(
        "-b", check_cluster.address, "-c", client_conf(tmp_path, "PLAIN"), "--timeout", "10",
        "check", "billing", "--window", "4s", "--samples", "4", "-o", "json",
        expect=None,
    )  # fmt: skip
    assert result.code == 0, (result.code, result.stderr, gate.events)
    (group,) = json.loads(result.stdout)["groups"]
    assert group["status"] == "WARN"  # the lag grows (fakecheck): sampling went through
    assert gate.count("expired") == 0, gate.events  # the broker never cut a connection
    assert gate.connections == 1, gate.events
    assert gate.count("auth") == 1 and gate.count("reauth") >= 2, gate.events
    assert PASSWORD not in result.stdout + result.stderr
