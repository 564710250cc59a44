"""When a SASL connection must re-authenticate (KIP-368). Pure: times are passed in.

A broker with `connections.max.reauth.ms` (or an OAUTHBEARER token that expires) answers the
final SaslAuthenticate (v1+) with SessionLifetimeMs and closes a connection that sends any
request but SaslHandshake/SaslAuthenticate once that lifetime has passed
(SocketServer.processCompletedReceives, KafkaChannel.serverAuthenticationSessionExpired).
Kafka's Java client re-authenticates on the same connection at a random 85-95 % of the lifetime
(SaslClientAuthenticator.ReauthInfo), the jitter keeping many connections from doing it at
once. The same is done here, counted from when authentication started: the broker counts from
when it ended, so the re-authentication is never later than the Java client's.

The broker begins a re-authentication at most once a second (KafkaChannel
MIN_REAUTH_INTERVAL_ONE_SECOND_NANOS; an earlier SaslHandshake is answered ILLEGAL_SASL_STATE),
so after a re-authentication the next is never planned sooner than 1.1 s after it began (a
tenth of a second for network jitter: the broker times both handshakes as they arrive). A
lifetime of 0 (no expiry, or SaslAuthenticate v0, which has no such field) plans none.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

WINDOW_LOW = 0.85  # pctWindowFactorToTakeNetworkLatencyAndClockDriftIntoAccount
WINDOW_JITTER = 0.10  # pctWindowJitterToAvoidReauthenticationStormAcrossManyChannelsSimultaneously
MIN_INTERVAL_S = 1.0  # KafkaChannel.MIN_REAUTH_INTERVAL_ONE_SECOND_NANOS
MIN_INTERVAL_MARGIN_S = 0.1  # the broker times both handshakes on arrival: network jitter


@dataclass(frozen=True)
class Session:
    """One authenticated session: when it began, its lifetime, when to re-authenticate."""

    started_s: float  # time.monotonic() when authentication began
    lifetime_ms: int
    reauth_at_s: float | None  # None: the session never expires

    def due(self, now_s: float) -> bool:
        """Whether the next request must wait for a re-authentication."""
        return self.reauth_at_s is not None and now_s >= self.reauth_at_s

    def describe(self) -> str:
        """For logs and messages: the lifetime the broker gave."""
        if self.reauth_at_s is None:
            return "no session lifetime"
        return f"session lifetime {self.lifetime_ms} ms"


def plan(
    started_s: float,
    lifetime_ms: int,
    *,
    reauthenticated: bool = False,
    fraction: Callable[[], float] = random.random,
) -> Session:
    """The session authenticated from `started_s` with the broker's `lifetime_ms`;
    `reauthenticated`: this session is a re-authentication of the connection; `fraction`: a
    number in [0, 1) picking the point in the window."""
    if lifetime_ms <= 0:
        return Session(started_s, 0, None)
    share = WINDOW_LOW + min(max(fraction(), 0.0), 1.0) * WINDOW_JITTER
    at = started_s + share * lifetime_ms / 1000.0
    if reauthenticated:
        at = max(at, started_s + MIN_INTERVAL_S + MIN_INTERVAL_MARGIN_S)
    return Session(started_s, lifetime_ms, at)


def lifetime_of(answers: list[int]) -> int:
    """The session lifetime of an exchange from its SaslAuthenticate answers' SessionLifetimeMs
    (0 in v0 and in the answers before the last): the last positive one, as Kafka's client
    keeps it (`positiveSessionLifetimeMs`), else 0."""
    positive = [ms for ms in answers if ms > 0]
    return positive[-1] if positive else 0
