"""librdkafka's errors as KgroupErrors: unreachable -> UnreachableError within the timeout (saying
why, from what librdkafka's error callback reported), unknown group or topic -> NotFoundError,
authorization -> AuthorizationError naming the ACL needed, a rejected client property ->
ConfigError naming where it came from. Error names are librdkafka's (rdkafka.h, RD_KAFKA_RESP_ERR_*:
Kafka's own names, and internal ones starting with `_`). confluent_kafka is imported lazily.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import (
    AuthorizationError,
    ConfigError,
    KafkaOperationError,
    KgroupError,
    NotFoundError,
    UnreachableError,
)

# librdkafka error names meaning "the cluster did not answer".
UNREACHABLE_ERRORS = {
    "_TRANSPORT",
    "_ALL_BROKERS_DOWN",
    "_TIMED_OUT",
    "_MSG_TIMED_OUT",
    "_RESOLVE",
    "REQUEST_TIMED_OUT",
    "_WAIT_COORD",
    "COORDINATOR_NOT_AVAILABLE",
    "_DESTROY",
    "NETWORK_EXCEPTION",
    "_TIMED_OUT_QUEUE",
}
_AUTH = {
    "GROUP_AUTHORIZATION_FAILED": "Group",
    "TOPIC_AUTHORIZATION_FAILED": "Topic",
    "CLUSTER_AUTHORIZATION_FAILED": "Cluster",
    "TRANSACTIONAL_ID_AUTHORIZATION_FAILED": "TransactionalId",
}
_NOT_FOUND = {
    "GROUP_ID_NOT_FOUND",
    "UNKNOWN_TOPIC_OR_PART",
    "_UNKNOWN_PARTITION",
    "_UNKNOWN_TOPIC",
    "UNKNOWN_TOPIC_ID",
}


def kafka_error_name(error: Any) -> str:
    """The librdkafka error name of a KafkaError, KafkaException or other exception."""
    inner = error.args[0] if getattr(error, "args", None) else error
    name = getattr(inner, "name", None)
    if callable(name):
        return str(name())
    return type(error).__name__


# librdkafka's connection failures as its error callback reports them (rdkafka_broker.c).
_RESOLVE_FAILED = re.compile(
    r"Failed to resolve '(?P<address>[^']*)': (?P<reason>.*?)(?: \(after |$)"
)
_CONNECT_REFUSED = re.compile(
    r"Connect to (?:ipv[46]#)?(?P<address>\S+) failed: Connection refused"
)


def connection_failures(errors: Iterable[tuple[str, str]]) -> list[str] | None:
    """What librdkafka's error callback said about its connections, as kgroup words it:
    `connection refused by HOST:PORT`, `cannot resolve HOST (reason)`. None when nothing was
    reported or something else happened too (a timeout, a TLS or SASL failure): then only the
    wait is known. `errors` are (error name, text) pairs."""
    found: list[str] = []
    for name, text in errors:
        if name == "_ALL_BROKERS_DOWN":
            continue
        resolve = _RESOLVE_FAILED.search(text) if name == "_RESOLVE" else None
        refused = _CONNECT_REFUSED.search(text) if name == "_TRANSPORT" else None
        if resolve is not None:
            host = resolve["address"].rpartition(":")[0] or resolve["address"]
            found.append(f"cannot resolve {host} ({resolve['reason']})")
        elif refused is not None:
            found.append(f"connection refused by {refused['address']}")
        else:
            return None
    return list(dict.fromkeys(found)) or None


def grant_for(
    resource: str, operation: str, subject: str, acl: str | Mapping[str, str] | None
) -> str:
    """The ACL to ask for when Kafka refused `operation` on a `resource` (Group, Topic, Cluster,
    TransactionalId): `acl` per resource kind, or one text when it names that kind; else the
    resource named as Kafka's ACL tools write it."""
    if isinstance(acl, Mapping):
        chosen = acl.get(resource)
    else:
        chosen = acl if acl and f"{resource}:" in acl else None
    if chosen:
        return chosen
    name = "kafka-cluster" if resource == "Cluster" else subject.split(" ")[0] or "*"
    return f"the operation needed to {operation} on {resource}:{name}"


def map_kafka_error(
    error: BaseException,
    *,
    operation: str,
    subject: str = "",
    acl: str | Mapping[str, str] | None = None,
    timeout_s: float | None = None,
    bootstrap: str = "",
    transport_errors: Iterable[tuple[str, str]] = (),
) -> KgroupError:
    """Turn a librdkafka exception into the KgroupError a user should see.

    `transport_errors`: what librdkafka's error callback reported meanwhile, to say why the
    cluster could not be reached (refused, unknown host) instead of only how long it waited.
    """
    if isinstance(error, KgroupError):
        return error
    name = kafka_error_name(error)
    inner = error.args[0] if getattr(error, "args", None) else error
    text = inner.str() if hasattr(inner, "str") else str(error)
    where = f" {subject}" if subject else ""
    if name in UNREACHABLE_ERRORS:
        causes = connection_failures(transport_errors)
        if causes:
            return UnreachableError(
                f"cannot reach cluster {bootstrap} to {operation}{where}: {'; '.join(causes)}",
                hint="check -b/--bootstrap-server and that the brokers are running",
            )
        waited = f" within {timeout_s:g} s" if timeout_s else ""
        return UnreachableError(
            f"cluster {bootstrap} did not answer{waited} while trying to {operation}{where}"
            f" ({text})",
            hint="check -b/--bootstrap-server, the network and the security settings, or raise "
            "--timeout",
        )
    if name in _AUTH:
        needed = grant_for(_AUTH[name], operation, subject, acl)
        return AuthorizationError(
            f"not authorized to {operation}{where} ({name})",
            hint=f"ask for an ACL granting {needed}",
        )
    if name in _NOT_FOUND:
        return NotFoundError(
            f"cannot {operation}{where}: {text}",
            hint="check the name with `kgroup list` or the topic list",
        )
    if name in ("_AUTHENTICATION", "SASL_AUTHENTICATION_FAILED", "_SSL"):
        return KafkaOperationError(
            f"authentication to {bootstrap} failed ({text})",
            hint="check the SASL/SSL settings in --command-config",
        )
    return KafkaOperationError(f"failed to {operation}{where}: {name}: {text}")


def rdkafka_config_error(exc: BaseException, config: ClusterConfig) -> ConfigError:
    """The ConfigError for a client property librdkafka rejected, naming where it came from."""
    text = str(exc.args[0].str() if exc.args and hasattr(exc.args[0], "str") else exc)
    key = None
    if '"' in text:
        key = text.split('"')[1]
    where = f" (from {config.origin_of(key)})" if key else ""
    return ConfigError(
        f"client property rejected{where}: {text}",
        hint="use a Java client property kgroup translates or a librdkafka property "
        "(see librdkafka CONFIGURATION.md)",
    )


def as_exception(error: Any) -> BaseException:
    """librdkafka's KafkaError (of a message or partition) as the exception `map_kafka_error`
    takes."""
    from confluent_kafka import KafkaException

    return KafkaException(error)


def is_rdkafka_error(exc: BaseException) -> bool:
    """Whether `exc` is librdkafka's own error (confluent_kafka's KafkaException), which core/
    turns into a KgroupError before it leaves."""
    from confluent_kafka import KafkaException

    return isinstance(exc, KafkaException)


@contextmanager
def rdkafka_errors_as(translate: Callable[[BaseException], KgroupError]) -> Iterator[None]:
    """Run librdkafka calls: a KafkaException they raise leaves as `translate(exc)` (usually
    `map_kafka_error`), so no caller outside core/ sees the client library's error type.
    KgroupErrors and other exceptions pass unchanged."""
    try:
        yield
    except KgroupError:
        raise
    except Exception as exc:
        if not is_rdkafka_error(exc):
            raise
        raise translate(exc) from exc
