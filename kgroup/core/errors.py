"""The KgroupError hierarchy: every failure a user can see, with its exit code and a hint.

Exit codes are the contract in CLI.md ("Exit codes"); `cli/app.py` maps each error to one
line on stderr and its code through `KgroupError.exit_code`.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_KAFKA = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_REFUSED = 4
EXIT_CHECK_FAILED = 5
EXIT_UNREACHABLE = 6
EXIT_CORRUPT = 7
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # 128 + SIGTERM, as shells report a process ended by it


class Terminated(BaseException):
    """SIGTERM while a run changes the cluster (`reset.interrupts.Interrupts` installs the
    handler raising it)."""


class KgroupError(Exception):
    """Base of every error kgroup reports to a user."""

    exit_code: int = EXIT_KAFKA

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        """The message and hint as the single stderr line the CLI prints."""
        text = self.message.rstrip(".")
        if self.hint:
            return f"{text}. Hint: {self.hint}"
        return text


class KafkaOperationError(KgroupError):
    """A Kafka request failed for a reason other than the specific ones below."""

    exit_code = EXIT_KAFKA


class AuthorizationError(KgroupError):
    """The cluster refused an operation for lack of an ACL."""

    exit_code = EXIT_KAFKA


class UsageError(KgroupError):
    """Bad option, bad value or bad configuration given by the user."""

    exit_code = EXIT_USAGE


class ConfigError(UsageError):
    """A client property file or -X override that cannot be used."""


class NotFoundError(KgroupError):
    """A group, topic or partition does not exist."""

    exit_code = EXIT_NOT_FOUND


class SafetyRefusal(KgroupError):
    """kgroup refused an operation that could hurt: active group, stale plan, partial change."""

    exit_code = EXIT_REFUSED


class CheckFailed(KgroupError):
    """A check the user asked for failed (--fail-on-lag, --to none)."""

    exit_code = EXIT_CHECK_FAILED


class UnreachableError(KgroupError):
    """The cluster did not answer within the timeout."""

    exit_code = EXIT_UNREACHABLE


class CorruptInputError(KgroupError):
    """A segment, record or plan file is corrupt (and --skip-corrupt was not given)."""

    exit_code = EXIT_CORRUPT

    def __init__(
        self,
        message: str,
        hint: str | None = None,
        *,
        source: str | None = None,
        position: int | None = None,
    ) -> None:
        super().__init__(message, hint)
        self.source = source
        self.position = position


class PartialFailure(KgroupError):
    """Some items of a batch failed; the others were reported. Exit 1 after output."""

    exit_code = EXIT_KAFKA


def timed_out(error: BaseException) -> bool:
    """Whether `error` is the cluster not answering in time: unreachable, or an error Kafka's
    clients retry that was still coming back at --timeout (Kafka's admin client ends such a call
    with a TimeoutException). Exit 6 for a run whose failures are all of this kind."""
    return isinstance(error, UnreachableError) or bool(getattr(error, "retried", False))


def failed_groups_error(
    failed: list[tuple[str, str | None]], total: int, *, listed: bool, verb: str
) -> KgroupError | None:
    """The error a multi-group command ends with when some groups failed, or None.

    `failed` holds (group, error kind) of each failed group. Groups the user named that all do not
    exist: NotFoundError (exit 3); groups that all failed as "unreachable" (`timed_out`):
    PartialFailure with exit 6; otherwise, or for groups the cluster listed (--all-groups,
    --match) and then could not handle (deleted meanwhile, ...): PartialFailure (exit 1).
    """
    if not failed:
        return None
    names = ", ".join(group for group, _kind in failed)
    if not listed and all(kind == "not_found" for _group, kind in failed):
        return NotFoundError(
            f"{len(failed)} of {total} groups not found: {names}",
            hint="check the names with `kgroup list`",
        )
    error = PartialFailure(
        f"{len(failed)} of {total} groups could not be {verb} (see their error fields): {names}"
    )
    if all(kind == "unreachable" for _group, kind in failed):
        error.exit_code = EXIT_UNREACHABLE
    return error
