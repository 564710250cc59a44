"""ClusterConfig: where the cluster is and how to talk to it.

Sources, lowest precedence first: the properties file (`--command-config`), then `-X key=value`
overrides, then `--bootstrap-server`. Java client property names (the ones an operator already keeps
for `kafka-consumer-groups.sh --command-config`) are translated to librdkafka names
(librdkafka CONFIGURATION.md); librdkafka names pass through and librdkafka itself validates
them when the client is built (see `kgroup.core.admin`). Secrets never leave this module unredacted.
The file's syntax is read by `kgroup.core.java_properties`, `sasl.jaas.config` values by
`kgroup.core.jaas`; this module turns what they read into librdkafka properties.
"""

from __future__ import annotations

import math
import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kgroup.core.errors import ConfigError, KgroupError
from kgroup.core.jaas import JaasSyntaxError, parse_jaas
from kgroup.core.java_properties import parse_properties

DEFAULT_TIMEOUT_S = 30.0
REDACTED = "[redacted]"

_SECRET_WORDS = ("password", "secret", "jaas", ".pem", "oauthbearer.config", "token")


def is_secret(key: str) -> bool:
    """True for properties whose values must never be printed."""
    lowered = key.lower()
    return any(word in lowered for word in _SECRET_WORDS)


def redact(properties: Mapping[str, str]) -> dict[str, str]:
    """A copy of `properties` with secret values replaced."""
    return {k: (REDACTED if is_secret(k) else v) for k, v in properties.items()}


@dataclass
class ClusterConfig:
    """Everything needed to build a client: bootstrap servers, librdkafka properties, timeout."""

    bootstrap_servers: str
    properties: dict[str, str] = field(default_factory=dict)
    timeout_s: float = DEFAULT_TIMEOUT_S
    origins: dict[str, str] = field(default_factory=dict)
    bootstrap_source: str = "--bootstrap-server"
    used_fallback: bool = False
    notes: list[str] = field(default_factory=list)

    def client_properties(self) -> dict[str, Any]:
        """librdkafka properties including bootstrap.servers. kgroup's own (`kgroup.aws.region`)
        become what librdkafka takes: an oauth_cb making Amazon MSK IAM tokens."""
        props: dict[str, Any] = {
            k: v for k, v in self.properties.items() if not k.startswith("kgroup.")
        }
        props["bootstrap.servers"] = self.bootstrap_servers
        region = self.properties.get("kgroup.aws.region")
        if region:
            from kgroup.core.wire.sasl_oauth import AwsMskTokenCallback

            props["oauth_cb"] = AwsMskTokenCallback(region.strip())
        return props

    def redacted(self) -> dict[str, str]:
        """Properties safe to print."""
        return redact({k: str(v) for k, v in self.client_properties().items()})

    def origin_of(self, key: str) -> str:
        """Where a librdkafka property was set, for error hints."""
        return self.origins.get(key, "configuration")

    def __repr__(self) -> str:  # a log line or a failing test's output shows no secret
        return (
            f"ClusterConfig(bootstrap_servers={self.bootstrap_servers!r}, "
            f"properties={redact(self.properties)!r}, timeout_s={self.timeout_s!r})"
        )


# --- Java -> librdkafka translation -------------------------------------------------------------

# Same name and meaning in both clients.
_SAME_NAME = {
    "bootstrap.servers",
    "security.protocol",
    "client.id",
    "client.rack",
    "sasl.kerberos.service.name",
    "sasl.oauthbearer.token.endpoint.url",
    "sasl.oauthbearer.client.id",
    "sasl.oauthbearer.scope",
    "ssl.key.password",
    "reconnect.backoff.ms",
    "reconnect.backoff.max.ms",
    "retry.backoff.ms",
    "connections.max.idle.ms",
    "socket.connection.setup.timeout.ms",
    "client.dns.lookup",
}

# Java name -> librdkafka name, same value.
_RENAMED = {
    "sasl.mechanism": "sasl.mechanisms",
    "request.timeout.ms": "socket.timeout.ms",
    "metadata.max.age.ms": "topic.metadata.refresh.interval.ms",
    "sasl.oauthbearer.client.secret": "sasl.oauthbearer.client.secret",
    # Kafka 4.1 (KIP-1139) names of the OIDC client credentials
    "sasl.oauthbearer.client.credentials.client.id": "sasl.oauthbearer.client.id",
    "sasl.oauthbearer.client.credentials.client.secret": "sasl.oauthbearer.client.secret",
    "receive.buffer.bytes": "socket.receive.buffer.bytes",
    "send.buffer.bytes": "socket.send.buffer.bytes",
}

# Java-only settings with no effect on what kgroup does: accepted and dropped, with a note.
_IGNORED = {
    "ssl.protocol": "librdkafka negotiates the highest TLS version OpenSSL allows",
    "ssl.enabled.protocols": "librdkafka negotiates the highest TLS version OpenSSL allows",
    "ssl.truststore.type": "the truststore file's type is detected from its content",
    "ssl.keystore.type": "the keystore file's type is detected from its content",
    "key.deserializer": "kgroup never deserializes record payloads",
    "value.deserializer": "kgroup never deserializes record payloads",
    "key.serializer": "kgroup never serializes record payloads",
    "value.serializer": "kgroup never serializes record payloads",
    "group.id": "kgroup takes groups from its arguments",
    "enable.auto.commit": "kgroup never commits automatically",
    "auto.offset.reset": "kgroup never consumes from a committed position",
    "exclude.internal.topics": "kgroup lists internal topics only when asked",
    "sasl.login.refresh.window.factor": "kgroup refreshes OAUTHBEARER tokens at 80% of their life",
    "sasl.login.refresh.window.jitter": "kgroup refreshes OAUTHBEARER tokens at 80% of their life",
    "sasl.login.refresh.min.period.seconds": "kgroup runs are short; tokens are fetched on demand",
    "sasl.login.refresh.buffer.seconds": "kgroup runs are short; tokens are fetched on demand",
    "sasl.login.connect.timeout.ms": "the token endpoint is given --timeout",
    "sasl.login.read.timeout.ms": "the token endpoint is given --timeout",
    "sasl.login.retry.backoff.ms": "a failed token request fails the run",
    "sasl.login.retry.backoff.max.ms": "a failed token request fails the run",
}

# Java OAUTHBEARER login classes kgroup does itself (kgroup.core.wire.sasl_oauth; librdkafka for
# its own connections): OIDC client credentials, and Amazon MSK IAM (needs kgroup.aws.region).
_OIDC_CLASSES = {
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
    "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler",
    "org.apache.kafka.common.security.oauthbearer.ClientCredentialsJwtRetriever",
}
_MSK_IAM_CLASS = "software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler"
_OAUTH_CLASS_KEYS = (
    "sasl.login.callback.handler.class",
    "sasl.client.callback.handler.class",
    "sasl.oauthbearer.jwt.retriever.class",
)

# Java names that cannot be expressed for librdkafka: name them and say what to do.
_UNTRANSLATABLE = {
    "sasl.login.callback.handler.class": "Java callback classes cannot run in kgroup; for OIDC "
    "use org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler (or -X "
    "sasl.oauthbearer.method=oidc), for Amazon MSK IAM kgroup.aws.region",
    "sasl.client.callback.handler.class": "Java callback classes cannot run in librdkafka",
    "ssl.cipher.suites": "Java cipher suite names differ from OpenSSL's; pass "
    "-X ssl.cipher.suites=<OpenSSL names> instead",
    "ssl.keymanager.algorithm": "not configurable in librdkafka; remove the line",
    "ssl.trustmanager.algorithm": "not configurable in librdkafka; remove the line",
    "ssl.engine.factory.class": "Java classes cannot run in librdkafka",
    "interceptor.classes": "Java classes cannot run in librdkafka",
    "metric.reporters": "Java classes cannot run in librdkafka",
}

# --- typed values -----------------------------------------------------------------------------
# librdkafka checks these types when a client is built (rdkafka_conf.c; ranges as librdkafka 2.16
# reports them), but the wire client (kgroup.core.wire) never builds one: `list` and `describe`
# would run with `socket.timeout.ms=abc`. So every source is checked here, names as the user
# wrote them, and values normalized to one spelling both clients read the same way.

_MS = "milliseconds"
_INT_RANGES: dict[str, tuple[int, int, str]] = {
    "socket.timeout.ms": (10, 300_000, _MS),
    "socket.connection.setup.timeout.ms": (1000, 2_147_483_647, _MS),
    "request.timeout.ms": (1, 900_000, _MS),  # librdkafka's own, producer-side
    "metadata.max.age.ms": (1, 86_400_000, _MS),
    "topic.metadata.refresh.interval.ms": (-1, 3_600_000, _MS),
    "topic.metadata.refresh.fast.interval.ms": (1, 60_000, _MS),
    "retry.backoff.ms": (1, 300_000, _MS),
    "retry.backoff.max.ms": (1, 300_000, _MS),
    "reconnect.backoff.ms": (0, 3_600_000, _MS),
    "reconnect.backoff.max.ms": (0, 3_600_000, _MS),
    "connections.max.idle.ms": (0, 2_147_483_647, _MS),
    "api.version.request.timeout.ms": (1, 300_000, _MS),
    "statistics.interval.ms": (0, 86_400_000, _MS),
    "socket.send.buffer.bytes": (0, 100_000_000, "bytes"),
    "socket.receive.buffer.bytes": (0, 100_000_000, "bytes"),
    "log_level": (0, 7, ""),
    # Java's default.api.timeout.ms (an int, at least 0 in ConsumerConfig), kgroup's --timeout
    "default.api.timeout.ms": (0, 2_147_483_647, _MS),
}
_BOOLEANS = {
    "enable.ssl.certificate.verification",
    "api.version.request",
    "socket.keepalive.enable",
    "socket.nagle.disable",
    "log.connection.close",
    "allow.auto.create.topics",
    "enable.metrics.push",
    "enable.sasl.oauthbearer.unsecure.jwt",
}
# librdkafka's spellings of a boolean (rd_kafka_anyconf_set_prop0, case-insensitive).
_TRUE, _FALSE = ("true", "t", "1"), ("false", "f", "0")
_SASL_MECHANISMS = ("GSSAPI", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER")
# Enumerations, in the spelling kgroup passes on; matched case-insensitively, as librdkafka does
# (sasl.mechanisms is matched exactly by librdkafka, so `plain` is normalized to `PLAIN`).
_ENUMS: dict[str, tuple[str, ...]] = {
    "security.protocol": ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"),
    "sasl.mechanisms": _SASL_MECHANISMS,
    "sasl.mechanism": _SASL_MECHANISMS,
    "ssl.endpoint.identification.algorithm": ("none", "https"),
    "client.dns.lookup": ("use_all_dns_ips", "resolve_canonical_bootstrap_servers_only"),
    "broker.address.family": ("any", "v4", "v6"),
    "sasl.oauthbearer.method": ("default", "oidc"),
}
# Kafka's request header carries client.id as a STRING: an int16 byte length.
MAX_CLIENT_ID_BYTES = 32_767


def check_value(name: str, value: str, origin: str, rdkafka_name: str | None = None) -> str:
    """`value` in the spelling kgroup passes on, or a ConfigError naming `name`, where it was
    set and the type expected. `rdkafka_name`: the librdkafka property a Java name became."""
    target = rdkafka_name or name
    renamed = f"librdkafka's {target}" if target != name else ""
    text = value.strip()
    if target in _INT_RANGES:
        low, high, unit = _INT_RANGES[target]
        if re.fullmatch(r"[+-]?[0-9]+", text) and low <= int(text) <= high:
            return str(int(text))
        about = "; ".join(part for part in (unit, renamed) if part)
        raise ConfigError(
            f"{name} from {origin} must be an integer from {low} to {high}"
            f"{f' ({about})' if about else ''}, got {value!r}",
            hint=f"e.g. {name}={max(low, min(high, 30_000))}",
        )
    if target in _BOOLEANS:
        if text.lower() in _TRUE + _FALSE:
            return "true" if text.lower() in _TRUE else "false"
        raise ConfigError(
            f"{name} from {origin} must be true or false, got {value!r}",
            hint=f"e.g. {name}=true",
        )
    if target in _ENUMS:
        choices = _ENUMS[target]
        for choice in choices:
            if text.lower() == choice.lower():
                return choice
        raise ConfigError(
            f"{name} from {origin} must be one of {', '.join(choices)}, got {value!r}",
            hint=f"e.g. {name}={choices[0]}",
        )
    if target == "client.id" and len(value.encode("utf-8")) > MAX_CLIENT_ID_BYTES:
        raise ConfigError(
            f"client.id from {origin} is {len(value.encode('utf-8'))} bytes; Kafka's request "
            f"header takes at most {MAX_CLIENT_ID_BYTES}",
            hint="use a shorter client.id",
        )
    return value


def _translate_jaas(value: str, origin: str) -> dict[str, str]:
    try:
        module, options = parse_jaas(value)
    except JaasSyntaxError as exc:
        raise ConfigError(
            f"sasl.jaas.config at {origin} is not a valid JAAS login module line: {exc}",
            hint="write it as: org.apache.kafka.common.security.plain.PlainLoginModule required "
            'username="..." password="...";',
        ) from None
    short = module.rsplit(".", 1)[-1]
    if short in ("PlainLoginModule", "ScramLoginModule"):
        missing = [k for k in ("username", "password") if k not in options]
        if missing:
            raise ConfigError(
                f"sasl.jaas.config at {origin} ({short}) has no {' or '.join(missing)}",
                hint='add username="..." password="..." to the login module line',
            )
        return {"sasl.username": options["username"], "sasl.password": options["password"]}
    if short == "Krb5LoginModule":
        result: dict[str, str] = {}
        if "keyTab" in options:
            result["sasl.kerberos.keytab"] = options["keyTab"]
        if "principal" in options:
            result["sasl.kerberos.principal"] = options["principal"]
        return result
    if short == "OAuthBearerLoginModule":
        result = {}
        if "clientId" in options:
            result["sasl.oauthbearer.client.id"] = options["clientId"]
        if "clientSecret" in options:
            result["sasl.oauthbearer.client.secret"] = options["clientSecret"]
        if "scope" in options:
            result["sasl.oauthbearer.scope"] = options["scope"]
        if result:
            result["sasl.oauthbearer.method"] = "oidc"
        elif "unsecuredLoginStringClaim_sub" in options:
            # OAuthBearerUnsecuredLoginCallbackHandler: unsigned JWTs, for test brokers
            result["enable.sasl.oauthbearer.unsecure.jwt"] = "true"
            result["sasl.oauthbearer.config"] = (
                f"principal={options['unsecuredLoginStringClaim_sub']}"
            )
        return result
    raise ConfigError(
        f"sasl.jaas.config at {origin} uses login module {short}, which kgroup cannot translate",
        hint="supported: PlainLoginModule, ScramLoginModule, Krb5LoginModule (keyTab, principal), "
        "OAuthBearerLoginModule (clientId, clientSecret); or set librdkafka sasl.* properties "
        "with -X",
    )


def _looks_like_pem(path: str) -> bool:
    lowered = path.lower()
    if lowered.endswith((".pem", ".crt", ".cer", ".key")):
        return True
    expanded = os.path.expanduser(path)
    try:
        if not stat.S_ISREG(os.stat(expanded).st_mode):
            return False  # never open a FIFO or a device to sniff it (read_store_file refuses it)
        with open(expanded, "rb") as handle:
            return b"-----BEGIN" in handle.read(4096)
    except OSError:
        return False


def _is_pem_file(path: str | None) -> bool:
    return path is not None and _looks_like_pem(path)


Put = Callable[[str, str, str], None]


def _translate_truststore(path: str, origin: str, declared: Mapping[str, str], put: Put) -> None:
    """A PEM truststore is passed by name; a JKS or PKCS12 one is read in memory
    (kgroup.core.keystores) and passed as PEM text (librdkafka's ssl.ca.pem)."""
    if _looks_like_pem(path):
        put("ssl.ca.location", path, origin)
        return
    from kgroup.core import keystores

    data = keystores.read_store_file(path, "ssl.truststore.location", origin)
    if keystores.store_kind(data) == "PEM":
        put("ssl.ca.location", path, origin)
        return
    password = declared.get("ssl.truststore.password") or None
    put("ssl.ca.pem", keystores.truststore_pem(data, password, path, origin), origin)


def _translate_keystore(path: str, origin: str, declared: Mapping[str, str], put: Put) -> None:
    """A PEM keystore (key and chain in one file) is passed by name; a JKS or PKCS12 one is read
    in memory and passed as PEM text (ssl.certificate.pem, ssl.key.pem): mutual TLS."""
    if _looks_like_pem(path):
        put("ssl.certificate.location", path, origin)
        put("ssl.key.location", path, origin)
        return
    from kgroup.core import keystores

    data = keystores.read_store_file(path, "ssl.keystore.location", origin)
    if keystores.store_kind(data) == "PEM":
        put("ssl.certificate.location", path, origin)
        put("ssl.key.location", path, origin)
        return
    material = keystores.keystore_pem(
        data,
        declared.get("ssl.keystore.password") or None,
        declared.get("ssl.key.password") or None,
        path,
        origin,
    )
    put("ssl.certificate.pem", material.certificate_chain_pem, origin)
    put("ssl.key.pem", material.key_pem, origin)


def translate_java_properties(
    entries: Iterable[tuple[str, str, str]],
) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """Translate (key, value, origin) entries to librdkafka properties.

    Returns (properties, origins, notes). Unknown names are passed through for librdkafka to
    validate; Java names kgroup cannot express raise ConfigError naming the property.
    """
    items = list(entries)
    declared = {k: v for k, v, _ in items}
    props: dict[str, str] = {}
    origins: dict[str, str] = {}
    notes: list[str] = []

    def put(key: str, value: str, origin: str) -> None:
        props[key] = value
        origins[key] = origin

    for key, value, origin in items:
        if key in _OAUTH_CLASS_KEYS and value.strip() in (*_OIDC_CLASSES, _MSK_IAM_CLASS):
            if value.strip() == _MSK_IAM_CLASS:
                notes.append(f"{key} ({origin}): Amazon MSK IAM tokens from kgroup.aws.region")
            elif key != "sasl.client.callback.handler.class":
                put("sasl.oauthbearer.method", "oidc", origin)
        elif key in _SAME_NAME:
            put(key, check_value(key, value, origin), origin)
        elif key in _RENAMED:
            put(_RENAMED[key], check_value(key, value, origin, _RENAMED[key]), origin)
        elif key in _IGNORED:
            notes.append(f"ignored {key} ({origin}): {_IGNORED[key]}")
        elif key in _UNTRANSLATABLE:
            raise ConfigError(
                f"property {key} at {origin} cannot be used by kgroup",
                hint=_UNTRANSLATABLE[key],
            )
        elif key == "sasl.jaas.config":
            for new_key, new_value in _translate_jaas(value, origin).items():
                put(new_key, new_value, origin)
        elif key == "ssl.endpoint.identification.algorithm":
            # Java: `https`, or empty to turn host name verification off (SslConfigs)
            empty = value.strip() == ""
            put(key, "none" if empty else check_value(key, value, origin), origin)
        elif key == "ssl.truststore.location":
            _translate_truststore(value, origin, declared, put)
        elif key == "ssl.truststore.password":
            pass  # read with ssl.truststore.location
        elif key == "ssl.truststore.certificates":
            put("ssl.ca.pem", value, origin)
        elif key == "ssl.keystore.location":
            _translate_keystore(value, origin, declared, put)
        elif key == "ssl.keystore.password":
            if _is_pem_file(declared.get("ssl.keystore.location")):
                put("ssl.keystore.password", value, origin)
        elif key == "ssl.keystore.key":
            put("ssl.key.pem", value, origin)
        elif key == "ssl.keystore.certificate.chain":
            put("ssl.certificate.pem", value, origin)
        elif key == "default.api.timeout.ms":
            put("kgroup.timeout.ms", check_value(key, value, origin), origin)
        else:
            # A librdkafka name as it is (its value checked when kgroup knows the type), or an
            # unknown name: librdkafka decides when the client is built, and kgroup.core.admin
            # turns its refusal into a ConfigError naming origin.
            put(key, check_value(key, value, origin), origin)
    if "ssl.key.pem" in props and not declared.get("ssl.keystore.key"):
        props.pop("ssl.key.password", None)  # the keystore's key was decrypted in memory
    # A PEM keystore with a separate key password is fine; a PKCS12 password under the PEM
    # mapping means nothing to librdkafka.
    if "ssl.key.location" in props and "ssl.keystore.password" in props:
        notes.append("ignored ssl.keystore.password: PEM keystores use ssl.key.password")
        del props["ssl.keystore.password"]
    return props, origins, notes


def load_properties_file(path: str) -> list[tuple[str, str, str]]:
    """Read a client properties file, bounded (kgroup.core.files: missing exit 3; not a
    regular file, too large, unreadable or not UTF-8 exit 2)."""
    from kgroup.core.files import PROPERTIES, read_text

    text = read_text(
        path,
        PROPERTIES,
        bad_text=ConfigError,
        hint="pass the path of a Java client properties file to --command-config",
    )
    return parse_properties(text, source=str(path))


# Properties naming files a client reads (librdkafka names, after translation): each must be a
# regular file within its limit before kgroup or librdkafka opens it; a CA location may be a
# directory of certificates (OpenSSL's CApath).
_FILE_PROPERTIES = {
    "ssl.ca.location": "PEM",
    "ssl.certificate.location": "PEM",
    "ssl.key.location": "PEM",
    "ssl.crl.location": "PEM",
    "ssl.keystore.location": "KEYSTORE",
}


def check_file_properties(props: dict[str, str], origins: dict[str, str]) -> None:
    """Refuse (exit 2/3, naming the property and where it was set) a file property whose file
    is not a regular file within its size limit: a FIFO would block, /dev/zero never end."""
    from kgroup.core import files

    for key, kind_name in _FILE_PROPERTIES.items():
        value = props.get(key)
        if not value or value == "probe":
            continue
        kind = getattr(files, kind_name)
        try:
            files.check_regular(value, kind, directory_ok=key == "ssl.ca.location")
        except KgroupError as exc:
            exc.message = f"{key} (from {origins.get(key, 'the configuration')}): {exc.message}"
            raise


def parse_overrides(overrides: Iterable[str]) -> list[tuple[str, str, str]]:
    """Parse `-X key=value` options."""
    entries = []
    for raw in overrides:
        key, sep, value = raw.partition("=")
        if sep and not key.strip():  # the value may be a secret: never shown
            raise ConfigError(
                "-X '=...' has no property name before '='",
                hint="write -X property=value, e.g. -X client.id=ops",
            )
        if not sep:
            shown = "..." if is_secret(raw) else raw if raw.strip() else repr(raw)
            raise ConfigError(
                f"-X {shown} is not key=value",
                hint="write -X property=value, e.g. -X client.id=ops",
            )
        entries.append((key.strip(), value, "-X"))
    return entries


def parse_timeout(value: str | float | None, source: str) -> float | None:
    """A positive number of seconds, or None when not given."""
    if value is None or value == "":
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise ConfigError(
            f"{source} {value!r} is not a number of seconds", hint=f"e.g. {_setting(source, 10)}"
        ) from None
    return checked_seconds(seconds, source, value)


def _setting(source: str, value: object) -> str:
    """How `source` is given `value`: `--timeout 10`, or `KGROUP_TIMEOUT=10` for a variable."""
    return f"{source}={value}" if source.isupper() else f"{source} {value}"


MAX_SECONDS = 86_400.0  # a day: beyond it the socket and clock APIs overflow, and no one waits


def checked_seconds(seconds: float, source: str, given: object = None) -> float:
    """`seconds` if finite, positive and at most a day; else a usage error naming `source`."""
    shown = seconds if given is None else given
    if math.isnan(seconds) or seconds <= 0:
        raise ConfigError(
            f"{source} must be a positive number of seconds, got {shown}",
            hint=f"e.g. {_setting(source, 10)}",
        )
    if seconds > MAX_SECONDS:
        raise ConfigError(
            f"{source} must be at most {MAX_SECONDS:g} seconds (a day), got {shown}",
            hint=f"e.g. {_setting(source, 60)}",
        )
    return seconds


def build_cluster_config(
    *,
    bootstrap: str | None,
    command_config: str | None,
    overrides: Iterable[str] = (),
    timeout_s: float | None = None,
    fallback_bootstrap: Callable[[], tuple[str, str] | None] | None = None,
) -> ClusterConfig:
    """Combine the sources into one ClusterConfig.

    `fallback_bootstrap` returns (address, description) of a running sandbox, or None; it is
    called only when no other source names the cluster.
    """
    entries: list[tuple[str, str, str]] = []
    if command_config:
        entries.extend(load_properties_file(command_config))
    file_props, origins, notes = translate_java_properties(entries)
    override_entries = parse_overrides(overrides)
    for key, value, origin in override_entries:
        # librdkafka has no sasl.jaas.config: translated as from a -c file
        translated = (
            _translate_jaas(value, origin)
            if key == "sasl.jaas.config"
            else {key: check_value(key, value, origin)}
        )
        for new_key, new_value in translated.items():
            file_props[new_key] = new_value
            origins[new_key] = origin
    props = file_props
    msk = [o for k, v, o in entries if k in _OAUTH_CLASS_KEYS and v.strip() == _MSK_IAM_CLASS]
    if msk and not props.get("kgroup.aws.region"):
        raise ConfigError(
            f"the Amazon MSK IAM login class at {msk[0]} needs kgroup.aws.region: kgroup makes "
            "the tokens itself",
            hint="add kgroup.aws.region=REGION to the file or pass -X kgroup.aws.region=REGION "
            "(and pip install 'kgroup[aws]')",
        )
    check_file_properties(props, origins)

    file_timeout_ms = props.pop("kgroup.timeout.ms", None)
    if timeout_s is None and file_timeout_ms is not None:
        timeout_s = parse_timeout(float(file_timeout_ms) / 1000.0, "default.api.timeout.ms")

    source = "--bootstrap-server"
    used_fallback = False
    servers = bootstrap
    if not servers and "bootstrap.servers" in props:
        servers = props["bootstrap.servers"]
        source = origins.get("bootstrap.servers", "command config")
    if not servers and fallback_bootstrap is not None:
        found = fallback_bootstrap()
        if found is not None:
            servers, source = found
            used_fallback = True
    if not servers:
        raise ConfigError(
            "no Kafka cluster given",
            hint="pass -b HOST:PORT, set KGROUP_BOOTSTRAP_SERVERS, put bootstrap.servers in "
            "--command-config, or start a local broker with `kgroup sandbox start`",
        )
    props.pop("bootstrap.servers", None)
    for server in servers.split(","):
        host, sep, port = server.strip().rpartition(":")
        if not sep or not host or not port.isdigit():
            raise ConfigError(
                f"bootstrap server {server.strip()!r} is not HOST:PORT",
                hint="e.g. -b broker1:9092,broker2:9092",
            )
    return ClusterConfig(
        bootstrap_servers=servers,
        properties=props,
        timeout_s=timeout_s if timeout_s is not None else DEFAULT_TIMEOUT_S,
        origins=origins,
        bootstrap_source=source,
        used_fallback=used_fallback,
        notes=notes,
    )
