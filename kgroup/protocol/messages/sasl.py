"""SaslHandshake (17) and SaslAuthenticate (36).

Transcribed from apache/kafka clients/src/main/resources/common/message/:
SaslHandshakeRequest.json / SaslHandshakeResponse.json (0-1, never flexible; v1 only says the
tokens then travel in SaslAuthenticate, KIP-152), SaslAuthenticateRequest.json /
SaslAuthenticateResponse.json (0-2, flexible 2+; KIP-368 SessionLifetimeMs 1+).
"""

from __future__ import annotations

from kgroup.protocol.model import arr, f, message

SASL_HANDSHAKE_REQUEST = message(
    "SaslHandshakeRequest", "0-1", None, f("Mechanism", "string"), api_key=17, kind="request"
)

SASL_HANDSHAKE_RESPONSE = message(
    "SaslHandshakeResponse",
    "0-1",
    None,
    f("ErrorCode", "int16"),
    f("Mechanisms", arr("string")),
    api_key=17,
    kind="response",
)

SASL_AUTHENTICATE_REQUEST = message(
    "SaslAuthenticateRequest", "0-2", "2+", f("AuthBytes", "bytes"), api_key=36, kind="request"
)

SASL_AUTHENTICATE_RESPONSE = message(
    "SaslAuthenticateResponse",
    "0-2",
    "2+",
    f("ErrorCode", "int16"),
    f("ErrorMessage", "string", nullable="0+"),
    f("AuthBytes", "bytes"),
    f("SessionLifetimeMs", "int64", "1+", default=0, ignorable=True),
    api_key=36,
    kind="response",
)
