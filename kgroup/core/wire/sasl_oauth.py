"""SASL/OAUTHBEARER (KIP-255, KIP-768): the client's initial response and where tokens come from.

The initial response is RFC 7628's, as Kafka's OAuthBearerClientInitialResponse.toBytes writes it:
the GS2 header `n,,`, then kvsep (0x01), `auth=Bearer <token>`, optional `key=value` extensions
each after a kvsep, and two kvseps. A broker that refuses the token answers with a JSON error as a
challenge; the client then sends a lone kvsep and the broker fails the exchange (RFC 7628 3.2.3).

Token sources, from the same librdkafka properties librdkafka uses (so both clients authenticate
alike), chosen by `token_source`:
- OIDC client credentials (`sasl.oauthbearer.method=oidc`): a POST to
  `sasl.oauthbearer.token.endpoint.url` with grant_type=client_credentials and `scope`, the client
  id and secret as HTTP Basic credentials (Kafka's HttpAccessTokenRetriever, librdkafka's
  rdkafka_sasl_oauthbearer_oidc.c); a `file:` URL names a file holding the token (Kafka's).
- Unsecured JWTs (`enable.sasl.oauthbearer.unsecure.jwt=true`, `sasl.oauthbearer.config`
  `principal=...`): `{"alg":"none"}` tokens as Kafka's OAuthBearerUnsecuredLoginCallbackHandler
  makes them, for brokers with OAuthBearerUnsecuredValidatorCallbackHandler (tests only).
- Amazon MSK IAM (`kgroup.aws.region`): tokens from the aws-msk-iam-sasl-signer-python package
  (`pip install 'kgroup[aws]'`), imported only then.
A token is reused until 80 % of its lifetime has passed (Kafka's sasl.login.refresh.window.factor),
then fetched anew. Tokens and secrets never appear in messages or reprs.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kgroup.core.errors import ConfigError, KafkaOperationError, UnreachableError

KVSEP = b"\x01"
REFRESH_WINDOW_FACTOR = 0.8  # Kafka's sasl.login.refresh.window.factor default
DEFAULT_LIFETIME_S = 3600.0
AWS_REGION = "kgroup.aws.region"
MAX_TOKEN_RESPONSE_BYTES = 1024 * 1024


class TokenError(KafkaOperationError):
    """No token could be had from the token source; never carries a secret or a token."""


def initial_response(token: str, extensions: Mapping[str, str] | None = None) -> bytes:
    """RFC 7628 client initial response: n,,^Aauth=Bearer <token>[^Ak=v...]^A^A."""
    parts = [f"auth=Bearer {token}"] + [f"{k}={v}" for k, v in (extensions or {}).items()]
    return b"n,," + KVSEP + KVSEP.join(p.encode("utf-8") for p in parts) + KVSEP + KVSEP


def parse_extensions(text: str | None) -> dict[str, str]:
    """librdkafka's sasl.oauthbearer.extensions: `key=value,key2=value2`."""
    result: dict[str, str] = {}
    for item in (text or "").split(","):
        key, sep, value = item.strip().partition("=")
        if sep and key:
            result[key] = value
    return result


@dataclass(frozen=True)
class Token:
    value: str
    obtained_s: float  # time.time()
    expires_s: float

    def __repr__(self) -> str:
        return f"Token(expires_s={self.expires_s})"

    def needs_refresh(self, now_s: float) -> bool:
        lifetime = self.expires_s - self.obtained_s
        return now_s >= self.obtained_s + REFRESH_WINDOW_FACTOR * lifetime


class TokenSource:
    """A cached token from `fetch`, fetched again once 80 % of its lifetime has passed."""

    def __init__(self, fetch: Callable[[float], Token], describe: str) -> None:
        self._fetch = fetch
        self.describe = describe  # says where tokens come from, for messages (no secret)
        self._token: Token | None = None
        self._lock = threading.Lock()
        self.fetches = 0

    def token(self, timeout_s: float = 30.0, now: Callable[[], float] = time.time) -> str:
        with self._lock:
            if self._token is None or self._token.needs_refresh(now()):
                self._token = self._fetch(timeout_s)
                self.fetches += 1
            return self._token.value

    def __repr__(self) -> str:
        return f"TokenSource({self.describe})"


def token_source(props: Mapping[str, str]) -> TokenSource | None:
    """The token source the librdkafka properties describe, or None when they name none."""
    if props.get(AWS_REGION):
        region = props[AWS_REGION].strip()
        return TokenSource(lambda timeout_s: _aws_token(region), f"Amazon MSK IAM in {region}")
    if props.get("sasl.oauthbearer.method", "default").strip().lower() == "oidc":
        url = props.get("sasl.oauthbearer.token.endpoint.url", "").strip()
        if not url:
            raise ConfigError(
                "sasl.oauthbearer.method=oidc needs sasl.oauthbearer.token.endpoint.url",
                hint="set sasl.oauthbearer.token.endpoint.url to the OIDC token endpoint",
            )
        client_id = props.get("sasl.oauthbearer.client.id", "")
        secret = props.get("sasl.oauthbearer.client.secret", "")
        scope = props.get("sasl.oauthbearer.scope")
        return TokenSource(
            lambda timeout_s: _oidc_token(url, client_id, secret, scope, timeout_s),
            f"token endpoint {_safe_url(url)}",
        )
    if props.get("enable.sasl.oauthbearer.unsecure.jwt", "false").strip().lower() == "true":
        config = _unsecured_config(props.get("sasl.oauthbearer.config", ""))
        return TokenSource(lambda timeout_s: _unsecured_token(config), "an unsecured JWT")
    return None


# librdkafka (2.11+) OAUTHBEARER settings this module does not implement: the JWT bearer grant
# and Azure IMDS tokens, unless at the value this module acts as; and the KIP-1139 names, which
# kgroup's Java translation renames. Other names are Java-only and ignored here as before.
NOT_IMPLEMENTED_PREFIX = "sasl.oauthbearer.assertion."
NOT_IMPLEMENTED = {
    "sasl.oauthbearer.grant.type": "client_credentials",
    "sasl.oauthbearer.metadata.authentication.type": "none",
    "sasl.oauthbearer.client.credentials.client.id": None,
    "sasl.oauthbearer.client.credentials.client.secret": None,
}


def token_source_problem(props: Mapping[str, str]) -> str | None:
    """Why OAUTHBEARER cannot be served with these properties, or None. A librdkafka setting
    this module does not implement (the JWT bearer grant, Azure IMDS, ...) is a reason: librdkafka
    does it. Settings that are wrong (ConfigError) are raised: librdkafka would not get a token
    with them either, it would only time out."""
    for key, value in props.items():
        if key in NOT_IMPLEMENTED:
            if value.strip().lower() == NOT_IMPLEMENTED[key]:
                continue
            shown = value if NOT_IMPLEMENTED[key] else "..."
            return f"{key}={shown} is not implemented"
        if key.startswith(NOT_IMPLEMENTED_PREFIX):
            return f"{key} is not implemented"
    source = token_source(props)
    if source is None:
        return (
            "OAUTHBEARER needs a token source: sasl.oauthbearer.method=oidc with "
            "sasl.oauthbearer.token.endpoint.url, kgroup.aws.region (Amazon MSK IAM), or "
            "enable.sasl.oauthbearer.unsecure.jwt=true"
        )
    return None


# --- OIDC client credentials ----------------------------------------------------------------------


def _safe_url(url: str) -> str:
    """The URL without user info or query (never a credential in a message)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme == "file":
        return f"file:{parts.path}"
    return f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}" + (
        parts.path or ""
    )


def _no_redirect_opener() -> Any:
    """A urllib opener for which a redirect is an error: urllib's own would send the
    Authorization header (the client secret) on to the new URL, whatever its host."""
    import urllib.request  # imports ssl: only when a token is fetched

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    return urllib.request.build_opener(NoRedirect)


def _oidc_token(
    url: str, client_id: str, secret: str, scope: str | None, timeout_s: float
) -> Token:
    from urllib.parse import quote, urlencode, urlsplit

    now = time.time()
    if urlsplit(url).scheme == "file":
        path = urlsplit(url).path
        try:
            with open(path, encoding="utf-8") as handle:
                value = handle.read(MAX_TOKEN_RESPONSE_BYTES).strip()
        except OSError as exc:
            raise TokenError(
                f"cannot read the token file {path} (sasl.oauthbearer.token.endpoint.url): "
                f"{exc.strerror or exc}"
            ) from None
        return Token(value, now, _jwt_expiry(value) or now + DEFAULT_LIFETIME_S)
    import urllib.error
    import urllib.request

    credentials = f"{quote(client_id, safe='')}:{quote(secret, safe='')}"
    form = {"grant_type": "client_credentials"}
    if scope:
        form["scope"] = scope
    request = urllib.request.Request(
        url,
        data=urlencode(form).encode("ascii"),
        method="POST",
        headers={
            "Authorization": "Basic " + base64.b64encode(credentials.encode()).decode("ascii"),
            "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/json",
        },
    )
    where = _safe_url(url)
    opener = _no_redirect_opener()  # the client secret goes to `url` only
    try:
        with opener.open(request, timeout=timeout_s) as answer:
            body = answer.read(MAX_TOKEN_RESPONSE_BYTES)
    except urllib.error.HTTPError as exc:
        if 300 <= exc.code < 400:
            hint = "set sasl.oauthbearer.token.endpoint.url to the token endpoint itself"
        elif exc.code in (400, 401, 403):
            hint = "check sasl.oauthbearer.client.id and sasl.oauthbearer.client.secret"
        else:
            hint = "check sasl.oauthbearer.token.endpoint.url"
        raise TokenError(
            f"token endpoint {where} refused client {client_id!r}: HTTP {exc.code} {exc.reason}",
            hint=hint,
        ) from None
    except (urllib.error.URLError, OSError) as exc:  # not reached: exit 6, as librdkafka's run
        reason = getattr(exc, "reason", None) or exc
        raise UnreachableError(
            f"cannot get a token from {where}: {reason}",
            hint="check sasl.oauthbearer.token.endpoint.url and the network",
        ) from None
    try:
        answer_json = json.loads(body)
        value = answer_json["access_token"]
        if not isinstance(value, str) or not value:
            raise ValueError
    except (ValueError, KeyError, TypeError):
        raise TokenError(
            f"token endpoint {where} did not answer with an access_token",
            hint="check sasl.oauthbearer.token.endpoint.url: it must be the OIDC token endpoint",
        ) from None
    expires = _jwt_expiry(value)
    if expires is None:
        expires_in = answer_json.get("expires_in")
        lifetime = float(expires_in) if isinstance(expires_in, (int, float)) else DEFAULT_LIFETIME_S
        expires = now + lifetime
    return Token(value, now, expires)


def _jwt_expiry(value: str) -> float | None:
    """The `exp` claim (seconds) of a JWT, unverified: the broker validates the token."""
    parts = value.split(".")
    if len(parts) != 3:
        return None
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
        exp = claims.get("exp")
    except (ValueError, AttributeError):
        return None
    return float(exp) if isinstance(exp, (int, float)) else None


# --- unsecured JWTs -------------------------------------------------------------------------------


def _unsecured_config(text: str) -> dict[str, str]:
    """librdkafka's sasl.oauthbearer.config: `principal=alice scope=a,b lifeSeconds=3600`."""
    config = {}
    for item in text.split():
        key, sep, value = item.partition("=")
        if sep:
            config[key] = value
    if not config.get("principal"):
        raise ConfigError(
            "enable.sasl.oauthbearer.unsecure.jwt needs sasl.oauthbearer.config=principal=NAME",
            hint="e.g. -X sasl.oauthbearer.config=principal=alice",
        )
    life = config.get("lifeSeconds", "3600")
    if not life.isdigit() or int(life) <= 0:  # the value is not shown: the property is secret
        raise ConfigError(
            "lifeSeconds in sasl.oauthbearer.config must be a whole number of seconds above 0",
            hint="e.g. -X 'sasl.oauthbearer.config=principal=alice lifeSeconds=3600'",
        )
    return config


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unsecured_token(config: Mapping[str, str]) -> Token:
    """An unsigned JWS as Kafka's OAuthBearerUnsecuredLoginCallbackHandler makes it."""
    now = time.time()
    life = float(config.get("lifeSeconds", "3600"))  # checked by _unsecured_config
    claims: dict[str, object] = {"sub": config["principal"], "iat": now, "exp": now + life}
    if config.get("scope"):
        claims["scope"] = config["scope"].split(",")
    header = _b64url(b'{"alg":"none"}')
    payload = _b64url(json.dumps(claims, separators=(",", ":")).encode())
    return Token(f"{header}.{payload}.", now, now + life)


# --- Amazon MSK IAM -------------------------------------------------------------------------------


def _aws_missing() -> ConfigError:
    return ConfigError(
        f"{AWS_REGION} needs the aws-msk-iam-sasl-signer-python package, which is not installed",
        hint="pip install 'kgroup[aws]'",
    )


def require_aws_signer() -> None:
    """ConfigError at once when the MSK IAM signer package is missing (librdkafka would only
    time out waiting for a token)."""
    import importlib.util

    if importlib.util.find_spec("aws_msk_iam_sasl_signer") is None:
        raise _aws_missing()


def _aws_token(region: str) -> Token:
    try:
        from aws_msk_iam_sasl_signer import MSKAuthTokenProvider  # type: ignore[import-not-found]
    except ImportError:
        raise _aws_missing() from None
    now = time.time()
    try:
        value, expiry_ms = MSKAuthTokenProvider.generate_auth_token(region)
    except Exception as exc:  # botocore's credential errors, named by class only
        raise TokenError(
            f"cannot make an Amazon MSK IAM token for region {region}: {type(exc).__name__}",
            hint="check the AWS credentials (AWS_PROFILE, AWS_ACCESS_KEY_ID, an instance role)",
        ) from None
    return Token(value, now, float(expiry_ms) / 1000.0)


class AwsMskTokenCallback:
    """librdkafka's oauth_cb for Amazon MSK IAM: (token, expiry in seconds). Picklable."""

    def __init__(self, region: str) -> None:
        require_aws_signer()
        self.region = region

    def __call__(self, _config: str) -> tuple[str, float]:
        token = _aws_token(self.region)
        return token.value, token.expires_s

    def __repr__(self) -> str:
        return f"AwsMskTokenCallback(region={self.region!r})"
