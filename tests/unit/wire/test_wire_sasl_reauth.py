"""KIP-368: a broker with connections.max.reauth.ms answers SaslAuthenticate v1+ with a session
lifetime and closes a connection that sends anything but SaslHandshake/SaslAuthenticate once it
has passed. kgroup re-authenticates on the same connection before that, as Kafka's Java client
does; runs as a user would, against the SASL fakes (tests/unit/wire/fakesasl.py)."""

from __future__ import annotations

import functools
import json
import shutil
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import KafkaOperationError
from kgroup.core.wire.client import WireClient
from kgroup.core.wire.cluster_calls import encode_metadata_request
from kgroup.core.wire.log_dirs import WIRE_API
from kgroup.core.wire.reauth import lifetime_of, plan
from kgroup.core.wire.sasl import SaslError
from kgroup.protocol import messages as api_table
from tests.helpers import run_kgroup
from tests.unit.wire.fakebroker import FakeBroker, metadata_body
from tests.unit.wire.fakecheck import CheckCluster
from tests.unit.wire.fakegroups import GroupsCluster
from tests.unit.wire.fakesasl import SaslGate
from tests.unit.wire.test_wire_tls import certificate  # noqa: F401 (a fixture)

LIFETIME_MS = 1500
PASSWORD = "Pass-Word-77"


@pytest.fixture(autouse=True)
def earliest_reauthentication(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process clients re-authenticate at 85 % of the lifetime, not at a random 85-95 %: with
    a 1.5 s lifetime, 95 % leaves 75 ms between the last request of a session and its expiry,
    which a loaded 2-core machine can exceed (the broker then closes the connection and the test
    fails by chance). The random window itself is pinned by the pure tests below."""
    from kgroup.core.wire import connection

    monkeypatch.setattr(connection, "plan", functools.partial(plan, fraction=lambda: 0.0))


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
    # samples at 0, 1.3, 2.7 and 4 s; a session renewed at a random 85-95 % of 1.5 s is due
    # before the second sample or just after it, so one or two renewals, never an expiry
    assert gate.count("auth") == 1 and gate.count("reauth") >= 1, gate.events
    assert PASSWORD not in result.stdout + result.stderr


# --- when: the pure planning (core/wire/reauth.py), times injected ------------------------------


def test_reauthentication_is_planned_at_85_to_95_percent_of_the_lifetime() -> None:
    assert plan(100.0, 10_000, fraction=lambda: 0.0).reauth_at_s == pytest.approx(108.5)
    assert plan(100.0, 10_000, fraction=lambda: 0.5).reauth_at_s == pytest.approx(109.0)
    assert plan(100.0, 10_000, fraction=lambda: 0.999).reauth_at_s == pytest.approx(109.499)
    session = plan(100.0, 10_000, fraction=lambda: 0.0)
    assert not session.due(108.49) and session.due(108.5) and session.due(500.0)


def test_no_lifetime_means_no_reauthentication() -> None:
    for lifetime in (0, -5):
        session = plan(100.0, lifetime, fraction=lambda: 0.0)
        assert session.reauth_at_s is None and not session.due(10**9)


def test_a_reauthentication_waits_for_kafkas_one_second_between_two() -> None:
    # KafkaChannel refuses a re-authentication begun less than 1 s after the previous one
    assert plan(100.0, 800, fraction=lambda: 0.0).reauth_at_s == pytest.approx(100.68)
    assert plan(100.0, 800, reauthenticated=True).reauth_at_s == pytest.approx(101.1)


def test_the_lifetime_is_the_last_positive_one_of_the_exchange() -> None:
    assert lifetime_of([0, 0]) == 0  # SaslAuthenticate v0, or no connections.max.reauth.ms
    assert lifetime_of([0, 1500]) == 1500  # SCRAM: the lifetime comes with the final answer
    assert lifetime_of([]) == 0


# --- every mechanism re-authenticates on its connection ------------------------------------------


def sasl_config(address: str, mechanism: str, **extra: str) -> ClusterConfig:
    if mechanism == "OAUTHBEARER":
        props = {
            "enable.sasl.oauthbearer.unsecure.jwt": "true",
            "sasl.oauthbearer.config": "principal=alice",
        }
    else:
        props = {"sasl.username": "alice", "sasl.password": PASSWORD}
    props.update({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": mechanism}, **extra)
    return ClusterConfig(address, timeout_s=5, properties=props)


def keep_asking(client: WireClient, seconds: float, pause_s: float = 0.2) -> int:
    """Metadata requests every `pause_s` for `seconds`; how many were answered."""
    answered = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        assert [b.id for b in client.brokers()] == [1]
        answered += 1
        time.sleep(pause_s)
    return answered


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"])
def test_each_mechanism_reauthenticates_before_the_session_expires(mechanism: str) -> None:
    cluster = GroupsCluster()
    gate = SaslGate(
        cluster.broker.handler, mechanism, {"alice": PASSWORD}, lifetime_ms=LIFETIME_MS
    ).install(cluster.broker)
    try:
        with WireClient(sasl_config(cluster.address, mechanism)) as client:
            keep_asking(client, 2.0)
    finally:
        cluster.close()
    assert gate.count("expired") == 0, gate.events
    assert gate.connections == 1, gate.events
    kinds = [(e[0], e[2]) for e in gate.events]
    assert kinds[0] == ("auth", "alice") and ("reauth", "alice") in kinds, gate.events


def test_oauthbearer_reauthenticates_with_a_fresh_token_when_its_token_expires() -> None:
    # No connections.max.reauth.ms: the session lasts as long as the token (2 s), as Kafka's
    # SaslServerAuthenticator makes it; the token source fetches anew at 80 % of the token's life
    cluster = GroupsCluster()
    gate = SaslGate(cluster.broker.handler, "OAUTHBEARER").install(cluster.broker)
    config = sasl_config(
        cluster.address,
        "OAUTHBEARER",
        **{"sasl.oauthbearer.config": "principal=alice lifeSeconds=2"},
    )
    try:
        with WireClient(config) as client:
            keep_asking(client, 2.6)
    finally:
        cluster.close()
    assert gate.count("expired") == 0 and gate.count("refused") == 0, gate.events
    assert gate.connections == 1, gate.events
    first, *renewed = [e for e in gate.events if e[0] in ("auth", "reauth")]
    assert first[0] == "auth" and 1500 < first[3] <= 2000  # the token's remaining life
    assert renewed and renewed[0][0] == "reauth", gate.events
    assert len(set(gate.tokens)) == len(gate.tokens) >= 2  # a new token each time


# --- no lifetime: nothing changes -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("lifetime_ms", "authenticate_versions"), [(0, (0, 2)), (LIFETIME_MS, (0, 0))]
)
def test_without_a_session_lifetime_no_reauthentication_is_planned(
    lifetime_ms: int, authenticate_versions: tuple[int, int]
) -> None:
    # lifetime 0: no connections.max.reauth.ms; SaslAuthenticate v0 has no SessionLifetimeMs
    cluster = GroupsCluster()
    gate = SaslGate(
        cluster.broker.handler, "PLAIN", {"alice": PASSWORD}, lifetime_ms=lifetime_ms
    ).install(cluster.broker)
    cluster.broker.versions[api_table.SASL_AUTHENTICATE.key] = authenticate_versions
    try:
        with WireClient(sasl_config(cluster.address, "PLAIN")) as client:
            connection = client.new_connection("127.0.0.1", cluster.broker.port).open()
            assert connection.session is not None and connection.session.reauth_at_s is None
            connection.close()
    finally:
        cluster.close()
    assert [e[0] for e in gate.events] == ["auth"]


# --- refused: one line, exit 1, no secret ---


def test_a_refused_reauthentication_is_one_line_exit_1_without_the_password(
    check_cluster: CheckCluster, tmp_path: Path
) -> None:
    gate = SaslGate(
        check_cluster.broker.handler,
        "SCRAM-SHA-256",
        {"alice": PASSWORD},
        lifetime_ms=LIFETIME_MS,
        refuse_reauth=True,  # the password was rotated meanwhile
    ).install(check_cluster.broker)
    result = run_kgroup(
        "-b", check_cluster.address, "-c", client_conf(tmp_path, "SCRAM-SHA-256"),
        "--timeout", "10", "check", "billing", "--window", "3s", "--samples", "3",
        expect=1,
    )  # fmt: skip
    # check's progress note ("sampling 3 times over 3s"), then the error: one line
    lines = [line for line in result.stderr.splitlines() if "error" in line]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith(
        f"kgroup: error: re-authentication to broker {check_cluster.address} as 'alice' failed "
        "(SASL_AUTHENTICATION_FAILED: Authentication failed during re-authentication due to "
        "invalid credentials with SASL mechanism SCRAM-SHA-256)"
    ), lines[0]
    assert "Hint: check sasl.username, sasl.password and sasl.mechanism" in lines[0]
    assert PASSWORD not in result.stdout + result.stderr
    assert gate.count("refused") == 1 and gate.count("expired") == 0, gate.events


# --- several threads, long pipelines: never while a request is in flight ---


def test_threads_sharing_the_pool_connection_reauthenticate_it_once_at_a_time() -> None:
    cluster = GroupsCluster()
    gate = SaslGate(
        cluster.broker.handler, "SCRAM-SHA-512", {"alice": PASSWORD}, lifetime_ms=LIFETIME_MS
    ).install(cluster.broker)
    failures: list[BaseException] = []
    answered: list[int] = []
    try:
        with WireClient(sasl_config(cluster.address, "SCRAM-SHA-512")) as client:
            client.brokers()  # the pooled connection, authenticated once

            def worker() -> None:
                try:
                    answered.append(keep_asking(client, 2.0, pause_s=0.01))
                except BaseException as exc:
                    failures.append(exc)

            threads = [threading.Thread(target=worker) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    finally:
        cluster.close()
    assert failures == []
    assert len(answered) == 4 and min(answered) > 10
    # a request between a re-authentication's handshake and its SaslAuthenticate would have been
    # dropped by the broker (IllegalSaslState) and shown here as a second connection
    assert gate.connections == 1 and gate.count("expired") == 0, gate.events
    assert gate.count("reauth") >= 1, gate.events


def test_a_pipeline_outliving_the_session_reauthenticates_between_its_answers() -> None:
    """Requests of 20 kB, answered in 0.1 s each: two in flight at a time (the 48 kB window),
    25 of them take 2.5 s; the re-authentication comes once those in flight are answered."""
    seen: list[int] = []

    def slow(api: int, version: int, body: bytes) -> bytes:
        time.sleep(0.1)
        seen.append(len(body))
        return metadata_body([(1, "127.0.0.1", broker.port)], version)

    broker = FakeBroker(slow)
    gate = SaslGate(slow, "PLAIN", {"alice": PASSWORD}, lifetime_ms=LIFETIME_MS).install(broker)
    padding = bytes(20_000)
    try:
        with WireClient(sasl_config(broker.address, "PLAIN")) as client:
            connection = client.new_connection("127.0.0.1", broker.port).open()
            version = connection.version_for(api_table.METADATA)
            request = encode_metadata_request(version, all_topics=False) + padding
            bodies = connection.pipeline([(api_table.METADATA, version, request)] * 25)
            assert connection.reauthentications >= 1
            connection.close()
    finally:
        broker.close()
    assert len(bodies) == len(seen) == 25
    assert gate.connections == 1 and gate.count("expired") == 0, gate.events


def test_a_connection_idle_past_its_session_renews_it_before_its_next_request() -> None:
    """The fence's own connection (reset-offsets) is nobody's to reopen: a request after the
    session expired used to be a ConnectionLost; the broker accepts a SaslHandshake that late."""
    cluster = GroupsCluster()
    gate = SaslGate(
        cluster.broker.handler, "PLAIN", {"alice": PASSWORD}, lifetime_ms=LIFETIME_MS
    ).install(cluster.broker)
    try:
        with WireClient(sasl_config(cluster.address, "PLAIN")) as client:
            connection = client.new_connection("127.0.0.1", cluster.broker.port).open()
            version = connection.version_for(api_table.METADATA)
            request = encode_metadata_request(version, all_topics=False)
            connection.call(api_table.METADATA, version, request)
            time.sleep(LIFETIME_MS / 1000 + 0.2)  # past the broker's expiry, not only 85-95 %
            connection.call(api_table.METADATA, version, request)
            assert connection.is_open and connection.reauthentications == 1
            connection.close()
    finally:
        cluster.close()
    assert [e[0] for e in gate.events] == ["auth", "reauth"]


def test_a_token_refused_on_reauthentication_is_one_line_without_the_token() -> None:
    """A revoked token: the broker answers the re-authentication's initial response with an
    RFC 7628 error challenge (OAuthBearerSaslServer), then fails the exchange."""
    accepted: list[str] = []

    def first_token_once(token: str) -> tuple[str, float] | None:
        if accepted:
            return None  # revoked since
        accepted.append(token)
        return "alice", time.time() + 3600

    cluster = GroupsCluster()
    gate = SaslGate(
        cluster.broker.handler, "OAUTHBEARER", check_token=first_token_once, lifetime_ms=LIFETIME_MS
    ).install(cluster.broker)
    try:
        with (
            WireClient(sasl_config(cluster.address, "OAUTHBEARER")) as client,
            pytest.raises(SaslError) as caught,
        ):
            keep_asking(client, 3.0)
    finally:
        cluster.close()
    line = caught.value.one_line()
    assert "\n" not in line
    assert line.startswith(
        f"re-authentication to broker {cluster.address} with an OAUTHBEARER token failed "
        "(SASL_AUTHENTICATION_FAILED: invalid_token). Hint: check the token's principal"
    ), line
    assert isinstance(caught.value, KafkaOperationError)  # exit 1 (README's exit codes)
    assert accepted[0] not in line and gate.tokens == [accepted[0]] * 2


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl CLI")
def test_sasl_ssl_reauthenticates_inside_the_tls_session(request: pytest.FixtureRequest) -> None:
    cert, key = request.getfixturevalue("certificate")  # test_wire_tls's self-signed localhost
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(cert), str(key))

    def handler(api: int, version: int, body: bytes) -> bytes:
        return metadata_body([(1, "localhost", broker.port)], version)

    broker = FakeBroker(handler, tls=context)
    gate = SaslGate(handler, "SCRAM-SHA-256", {"alice": PASSWORD}, lifetime_ms=LIFETIME_MS).install(
        broker
    )
    config = sasl_config(
        f"localhost:{broker.port}",
        "SCRAM-SHA-256",
        **{"security.protocol": "SASL_SSL", "ssl.ca.location": str(cert)},
    )
    try:
        with WireClient(config) as client:
            keep_asking(client, 2.0)
    finally:
        broker.close()
    assert gate.connections == 1 and gate.count("expired") == 0, gate.events
    assert gate.count("reauth") >= 1, gate.events


def test_a_slow_reauthentication_does_not_eat_the_requests_timeout() -> None:
    """A new connection authenticates on its own time; a re-authentication came out of the
    waiting request's: with a 1 s timeout, a 0.6 s re-authentication then a 0.5 s answer was a
    BrokerTimeout naming Metadata, which the broker had answered in time."""
    cluster = GroupsCluster()
    gate = SaslGate(
        cluster.broker.handler, "PLAIN", {"alice": PASSWORD}, lifetime_ms=LIFETIME_MS
    ).install(cluster.broker)
    authentications: list[int] = []

    def slow(api: int, version: int, body: bytes) -> bytes:
        if api == api_table.SASL_AUTHENTICATE.key:
            authentications.append(api)
            if len(authentications) > 1:  # the re-authentication (the OIDC endpoint, say)
                time.sleep(0.6)
        elif api == api_table.METADATA.key:
            time.sleep(0.5)
        return gate(api, version, body)

    cluster.broker.handler = slow
    config = sasl_config(cluster.address, "PLAIN")
    config.timeout_s = 1
    try:
        with WireClient(config) as client:
            connection = client.new_connection("127.0.0.1", cluster.broker.port).open()
            version = connection.version_for(api_table.METADATA)
            request = encode_metadata_request(version, all_topics=False)
            time.sleep(LIFETIME_MS / 1000 * 0.9)  # due (85 %), not yet expired
            connection.call(api_table.METADATA, version, request)
            assert connection.reauthentications == 1
            connection.close()
    finally:
        cluster.close()
    assert [e[0] for e in gate.events] == ["auth", "reauth"], gate.events
