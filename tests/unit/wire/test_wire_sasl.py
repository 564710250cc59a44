"""SASL PLAIN and SCRAM against the RFCs' own examples."""

from __future__ import annotations

import pytest

from kgroup.core.wire.sasl import SaslError, ScramClient, plain_message

# RFC 7677 section 3: SCRAM-SHA-256, user "user", password "pencil".
RFC7677_CLIENT_NONCE = "rOprNGfwEbeRWgbNEkqO"
RFC7677_SERVER_FIRST = (
    b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
)
RFC7677_CLIENT_FINAL = (
    b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
    b"p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
)
RFC7677_SERVER_FINAL = b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="


def rfc_client() -> ScramClient:
    return ScramClient("SCRAM-SHA-256", "user", "pencil", nonce=RFC7677_CLIENT_NONCE)


def test_scram_sha256_rfc7677_exchange() -> None:
    client = rfc_client()
    assert client.first_message() == b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
    assert client.final_message(RFC7677_SERVER_FIRST) == RFC7677_CLIENT_FINAL
    client.verify_server_final(RFC7677_SERVER_FINAL)  # does not raise


def test_scram_rejects_a_wrong_server_signature() -> None:
    client = rfc_client()
    client.final_message(RFC7677_SERVER_FIRST)
    with pytest.raises(SaslError, match="does not match"):
        client.verify_server_final(b"v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")


def test_scram_rejects_a_server_nonce_that_does_not_extend_ours() -> None:
    with pytest.raises(SaslError, match="nonce"):
        rfc_client().final_message(b"r=someoneelse,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")


def test_scram_server_error_is_reported_without_the_password() -> None:
    client = rfc_client()
    with pytest.raises(SaslError) as caught:
        client.final_message(b"e=unknown-user")
    assert "unknown-user" in str(caught.value)
    assert "pencil" not in str(caught.value)


def test_scram_user_name_escaping() -> None:
    # RFC 5802 section 5.1: "," -> "=2C", "=" -> "=3D".
    client = ScramClient("SCRAM-SHA-512", "a,b=c", "x", nonce="N")
    assert client.first_message() == b"n,,n=a=2Cb=3Dc,r=N"


def test_plain_message() -> None:
    # RFC 4616: [authzid] NUL authcid NUL passwd.
    assert plain_message("alice", "s3cr3t") == b"\x00alice\x00s3cr3t"
