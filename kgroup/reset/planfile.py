"""Plan files: Kafka's reset CSV and kgroup's JSON plan/backup, read and written.

Sources of truth: Kafka's `ConsumerGroupCommand` (`parseResetPlan` reads, `--export` writes
`group,topic,partition,offset` lines without a header; a file without the group column,
`topic,partition,offset`, applies to the one group being reset) and, for JSON, the format
below, owned by kgroup.

kgroup JSON plan / backup, schema_version 1::

    {
      "schema_version": 1,
      "kind": "plan" | "backup",
      "created_at": "2026-05-01T10:00:00.000Z",          # optional on read
      "groups": [
        {
          "group": "orders-app",
          "strategy": "to earliest",                    # optional, informative
          "timestamp": "2026-05-01T10:00:00.000Z",      # optional: resolved instant
          "undoes": "/.../billing-2026...Z.json",       # optional: the backup an undo restored
          "forced": ["orders:0 moves back ..."],         # optional: limits --force overrode
          "partitions": [
            {
              "topic": "orders", "partition": 0,        # required
              "new_offset": 42,                         # required; null: remove the offset
              "current_offset": 40,                     # optional, null = none committed
              "log_start_offset": 0, "log_end_offset": 50,   # optional
              "metadata": null, "leader_epoch": null,   # optional, committed with the offset
              "delta": 2, "clamped": false,             # written, informative
              "no_record_after_time": false, "warning": null
            }
          ]
        }
      ]
    }

In a plan, `new_offset` is what to commit. In a backup (written before `--execute` commits),
`new_offset` is the offset committed *before* the reset (what undo restores, with its
metadata and leader epoch), and `current_offset` is what the reset committed. Either kind
read with `--from-file` therefore means "commit new_offset".

The parsing and formatting are pure functions over text; `read_plan_file` and
`write_plan_file` are the thin I/O wrappers.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from kgroup.core.errors import CorruptInputError, UsageError
from kgroup.core.files import PLAN, FileKind, read_text
from kgroup.reset.model import GroupPlan, PlanRow
from kgroup.reset.strategy import FileRow, FromFile
from kgroup.reset.timespec import format_utc_ms, parse_datetime_ms

SCHEMA_VERSION = 1
Kind = Literal["plan", "backup"]
Format = Literal["csv", "json"]

# Kafka's legal topic names (org.apache.kafka.common.internals.Topic): [a-zA-Z0-9._-]{1,249}.
_TOPIC_RE = re.compile(r"[a-zA-Z0-9._-]{1,249}")
_INT_RE = re.compile(r"[0-9]+")
# Wire types: partition is int32, offset and leader epoch int64 / int32 (OffsetCommit).
MAX_PARTITION = 2**31 - 1
MAX_OFFSET = 2**63 - 1


@dataclass(frozen=True, slots=True)
class PlanFile:
    """A plan file read back.

    `rows` is the file as `--from-file` rows (every format). `plans` is the JSON document's
    groups as GroupPlans (empty for CSV); `kind` is None for CSV.
    """

    source: str
    format: Format
    rows: tuple[FileRow, ...]
    kind: Kind | None = None
    created_at: str | None = None
    plans: tuple[GroupPlan, ...] = ()

    def strategy(self) -> FromFile:
        """The `--from-file` strategy for this file."""
        return FromFile(self.rows, self.source)


# ---------------------------------------------------------------------------------------------
# CSV


def _csv_error(source: str, number: int, reason: str, hint: str | None = None) -> CorruptInputError:
    return CorruptInputError(
        f"{source}, line {number}: {reason}",
        hint or "each line is topic,partition,offset or group,topic,partition,offset",
        source=source,
        position=number,
    )


def parse_csv_plan(text: str, source: str) -> tuple[FileRow, ...]:
    """Kafka's CSV: `topic,partition,offset` or `group,topic,partition,offset`, no header.

    Blank lines are skipped; every other line must have the layout of the first one.
    Raises CorruptInputError (exit 7) naming the file and the 1-based line number.
    """
    rows: list[FileRow] = []
    seen: dict[tuple[str | None, str, int], int] = {}
    width: int | None = None
    # Kafka splits on "\n" only; group names are taken verbatim (they may contain spaces),
    # numbers may have spaces around them.
    for number, raw in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        line = raw.removesuffix("\r")
        if not line.strip():
            continue
        fields = line.split(",")
        if len(fields) not in (3, 4):
            raise _csv_error(
                source, number, f"expected 3 or 4 comma-separated fields, found {len(fields)}"
            )
        if width is None:
            width = len(fields)
        elif len(fields) != width:
            raise _csv_error(
                source,
                number,
                f"{len(fields)} fields where line 1 of the file set {width}",
                "use one layout for the whole file",
            )
        group = fields[0] if width == 4 else None
        topic = fields[-3]
        partition_text, offset_text = fields[-2].strip(), fields[-1].strip()
        if group is not None and not group:
            raise _csv_error(source, number, "empty group name")
        if not _TOPIC_RE.fullmatch(topic):
            raise _csv_error(source, number, f"'{topic}' is not a valid topic name")
        if not _INT_RE.fullmatch(partition_text):
            hint = "Kafka's CSV has no header line" if not rows else None
            raise _csv_error(
                source, number, f"partition '{partition_text}' is not a non-negative integer", hint
            )
        if not _INT_RE.fullmatch(offset_text):
            raise _csv_error(
                source, number, f"offset '{offset_text}' is not a non-negative integer"
            )
        partition, offset = int(partition_text), int(offset_text)
        if partition > MAX_PARTITION or offset > MAX_OFFSET:
            raise _csv_error(source, number, "partition or offset out of Kafka's range")
        key = (group, topic, partition)
        if key in seen:
            raise _csv_error(
                source, number, f"{topic}-{partition} already given on line {seen[key]}"
            )
        seen[key] = number
        rows.append(FileRow(group, topic, partition, offset, line=number))
    if not rows:
        raise CorruptInputError(
            f"{source}: no plan lines", "the file is empty", source=source, position=None
        )
    return tuple(rows)


def plans_to_csv(plans: Sequence[GroupPlan]) -> str:
    """Plans as Kafka's `group,topic,partition,offset` CSV (readable by Kafka's own tool)."""
    lines = []
    for plan in sorted(plans, key=lambda p: p.group):
        if any(c in plan.group for c in ",\r\n") or not plan.group.strip():
            raise UsageError(
                f"group '{plan.group}' cannot be written to CSV", hint="export to a .json file"
            )
        for row in plan.rows:
            if row.new_offset is None:
                raise UsageError(
                    f"{row.topic}-{row.partition} of group {plan.group} removes an offset, "
                    "which CSV cannot express",
                    hint="export to a .json file",
                )
            lines.append(f"{plan.group},{row.topic},{row.partition},{row.new_offset}\n")
    return "".join(lines)


# ---------------------------------------------------------------------------------------------
# JSON


def plans_to_json(plans: Sequence[GroupPlan], *, kind: Kind, created_at_ms: int) -> str:
    """Plans as a kgroup JSON plan or backup document (see the module docstring)."""
    if kind not in ("plan", "backup"):
        raise ValueError(f"kind must be 'plan' or 'backup', not {kind!r}")
    groups = []
    for plan in sorted(plans, key=lambda p: p.group):
        entry: dict[str, Any] = {"group": plan.group, "strategy": plan.strategy}
        if plan.timestamp_ms is not None:
            entry["timestamp"] = format_utc_ms(plan.timestamp_ms)
        if plan.undoes is not None:
            entry["undoes"] = plan.undoes
        if plan.forced:
            entry["forced"] = list(plan.forced)
        partitions = []
        for row in plan.rows:
            item = row.to_dict()
            del item["group"]
            partitions.append(item)
        entry["partitions"] = partitions
        groups.append(entry)
    document = {
        "schema_version": SCHEMA_VERSION,
        "kind": kind,
        "created_at": format_utc_ms(created_at_ms),
        "groups": groups,
    }
    return json.dumps(document, indent=2) + "\n"


class _Json:
    """Typed field access on a decoded JSON document, failing with the JSON path."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, path: str, reason: str) -> CorruptInputError:
        return CorruptInputError(
            f"{self.source}: {path}: {reason}",
            "not a kgroup plan or backup (schema_version 1)",
            source=self.source,
        )

    def obj(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, "expected an object")
        return value

    def lst(self, value: Any, path: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(path, "expected a list")
        return value

    def string(self, value: Any, path: str, *, optional: bool = False) -> str | None:
        if value is None and optional:
            return None
        if not isinstance(value, str):
            raise self.fail(path, "expected a string")
        return value

    def integer(
        self, value: Any, path: str, *, optional: bool = False, limit: int = MAX_OFFSET
    ) -> int | None:
        if value is None and optional:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= limit:
            raise self.fail(path, f"expected an integer in [0, {limit}]")
        return value

    def flag(self, value: Any, path: str) -> bool:
        if value is None:
            return False
        if not isinstance(value, bool):
            raise self.fail(path, "expected true or false")
        return value


def parse_json_plan(text: str, source: str) -> PlanFile:
    """A kgroup JSON plan or backup -> PlanFile. Raises CorruptInputError (exit 7)."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        raise CorruptInputError(
            f"{source}, line {e.lineno}: invalid JSON: {e.msg}",
            "not a kgroup plan or backup",
            source=source,
            position=e.lineno,
        ) from e
    j = _Json(source)
    doc = j.obj(document, "$")
    version = doc.get("schema_version")
    if version != SCHEMA_VERSION:
        if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
            raise CorruptInputError(
                f"{source}: schema_version {version} is newer than this kgroup reads "
                f"({SCHEMA_VERSION})",
                "upgrade kgroup to read this file",
                source=source,
            )
        raise j.fail("$.schema_version", f"expected {SCHEMA_VERSION}")
    kind = doc.get("kind")
    if kind not in ("plan", "backup"):
        raise j.fail("$.kind", "expected 'plan' or 'backup'")
    created_at = j.string(doc.get("created_at"), "$.created_at", optional=True)
    plans: list[GroupPlan] = []
    file_rows: list[FileRow] = []
    seen_groups: set[str] = set()
    for gi, group_value in enumerate(j.lst(doc.get("groups"), "$.groups")):
        gpath = f"$.groups[{gi}]"
        entry = j.obj(group_value, gpath)
        group = j.string(entry.get("group"), f"{gpath}.group")
        assert group is not None
        if not group:
            raise j.fail(f"{gpath}.group", "empty group name")
        if group in seen_groups:
            raise j.fail(f"{gpath}.group", f"group {group} appears twice")
        seen_groups.add(group)
        strategy = j.string(entry.get("strategy"), f"{gpath}.strategy", optional=True)
        timestamp_text = j.string(entry.get("timestamp"), f"{gpath}.timestamp", optional=True)
        timestamp_ms = None
        if timestamp_text is not None:
            try:
                timestamp_ms = parse_datetime_ms(timestamp_text)
            except UsageError as e:
                raise j.fail(f"{gpath}.timestamp", e.message) from e
        undoes = j.string(entry.get("undoes"), f"{gpath}.undoes", optional=True)
        forced = tuple(
            j.string(item, f"{gpath}.forced[{i}]") or ""
            for i, item in enumerate(j.lst(entry.get("forced", []), f"{gpath}.forced"))
        )
        rows: list[PlanRow] = []
        seen: set[tuple[str, int]] = set()
        for pi, part_value in enumerate(j.lst(entry.get("partitions"), f"{gpath}.partitions")):
            path = f"{gpath}.partitions[{pi}]"
            part = j.obj(part_value, path)
            topic = j.string(part.get("topic"), f"{path}.topic")
            assert topic is not None
            if not _TOPIC_RE.fullmatch(topic):
                raise j.fail(f"{path}.topic", f"'{topic}' is not a valid topic name")
            partition = j.integer(part.get("partition"), f"{path}.partition", limit=MAX_PARTITION)
            assert partition is not None
            if (topic, partition) in seen:
                raise j.fail(path, f"{topic}-{partition} appears twice in group {group}")
            seen.add((topic, partition))
            if "new_offset" not in part:
                raise j.fail(f"{path}.new_offset", "missing")
            new_offset = j.integer(part["new_offset"], f"{path}.new_offset", optional=True)
            row = PlanRow(
                group=group,
                topic=topic,
                partition=partition,
                current_offset=j.integer(
                    part.get("current_offset"), f"{path}.current_offset", optional=True
                ),
                new_offset=new_offset,
                log_start_offset=j.integer(
                    part.get("log_start_offset"), f"{path}.log_start_offset", optional=True
                ),
                log_end_offset=j.integer(
                    part.get("log_end_offset"), f"{path}.log_end_offset", optional=True
                ),
                clamped=j.flag(part.get("clamped"), f"{path}.clamped"),
                warning=j.string(part.get("warning"), f"{path}.warning", optional=True),
                no_record_after_time=j.flag(
                    part.get("no_record_after_time"), f"{path}.no_record_after_time"
                ),
                metadata=j.string(part.get("metadata"), f"{path}.metadata", optional=True),
                leader_epoch=j.integer(
                    part.get("leader_epoch"), f"{path}.leader_epoch", optional=True
                ),
            )
            rows.append(row)
            file_rows.append(
                FileRow(group, topic, partition, new_offset, row.metadata, row.leader_epoch)
            )
        rows.sort(key=lambda r: (r.topic, r.partition))
        plans.append(
            GroupPlan(
                group,
                tuple(rows),
                strategy or "from-file",
                timestamp_ms,
                undoes=undoes,
                forced=forced,
            )
        )
    return PlanFile(
        source=source,
        format="json",
        rows=tuple(file_rows),
        kind=kind,
        created_at=created_at,
        plans=tuple(sorted(plans, key=lambda p: p.group)),
    )


# ---------------------------------------------------------------------------------------------
# Format by extension, and the I/O wrappers


def format_for_path(path: str | os.PathLike[str]) -> Format:
    """`.csv` or `.json` (any case) -> the format; anything else is a usage error."""
    suffix = Path(path).suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix == ".json":
        return "json"
    raise UsageError(
        f"cannot tell the plan format of '{path}' from its name",
        hint="name the file *.csv (Kafka's format) or *.json (kgroup's, with metadata)",
    )


def parse_plan_text(text: str, source: str, fmt: Format | None = None) -> PlanFile:
    """Parse a plan file's text; without `fmt`, JSON if it starts with '{', else CSV."""
    if fmt is None:
        fmt = "json" if text.lstrip("\ufeff \t\r\n").startswith("{") else "csv"
    if fmt == "json":
        return parse_json_plan(text.removeprefix("\ufeff"), source)
    return PlanFile(source=source, format="csv", rows=parse_csv_plan(text, source))


def render_plans(
    plans: Sequence[GroupPlan], fmt: Format, *, kind: Kind = "plan", created_at_ms: int
) -> str:
    """The text of a plan file in `fmt`. Backups must be JSON (CSV loses metadata)."""
    if fmt == "csv":
        if kind == "backup":
            raise UsageError(
                "a backup cannot be written as CSV: it would lose the committed metadata",
                hint="name the backup file *.json",
            )
        return plans_to_csv(plans)
    return plans_to_json(plans, kind=kind, created_at_ms=created_at_ms)


def read_plan_file(path: str | os.PathLike[str], kind: FileKind = PLAN) -> PlanFile:
    """Read a plan file: format by extension (.csv/.json), else by content.

    Bounded (kgroup.core.files): a path that does not exist is exit 3; one that is not a
    regular file or is over the size limit exit 2, before a byte is read."""
    source = os.fspath(path)
    suffix = Path(source).suffix.lower()
    fmt: Format | None = "csv" if suffix == ".csv" else "json" if suffix == ".json" else None
    text = read_text(source, kind, bad_text=CorruptInputError, hint="is this a plan file?")
    return parse_plan_text(text, source, fmt)


def write_plan_file(
    path: str | os.PathLike[str],
    plans: Sequence[GroupPlan],
    *,
    kind: Kind = "plan",
    created_at_ms: int,
    exclusive: bool = False,
    mode: int | None = None,
) -> Path:
    """Write plans to `path` (format by extension), atomically: a complete file or none.

    The text goes to a temporary file in the same directory, is flushed to disk, then renamed
    over `path`. The directory must exist. Returns the path written. With `exclusive`, an
    existing `path` is never replaced: the file is linked into place (FileExistsError when
    `path` exists, even if another process made it a moment ago) and the directory is synced,
    so the file survives a crash right after this returns (backups).
    """
    target = Path(path)
    text = render_plans(plans, format_for_path(target), kind=kind, created_at_ms=created_at_ms)
    directory = target.parent
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            if exclusive:
                _link_new(Path(tmp), target)  # fails if target exists: never overwrites
                _sync_directory(directory)
            else:
                os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except FileExistsError:
        raise
    except OSError as e:
        raise UsageError(f"cannot write plan file {target}: {e.strerror or e}") from e
    return target


def _link_new(tmp: Path, target: Path) -> None:
    """Put `tmp` in place as `target`, which must not exist (FileExistsError otherwise).

    A hard link is atomic and never replaces; file systems without links (FAT, some network
    and FUSE mounts) get an exclusive create and a copy instead: still never an overwrite.
    """
    import errno
    import shutil

    try:
        os.link(tmp, target)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (
            errno.EPERM,
            errno.ENOTSUP,
            errno.EOPNOTSUPP,
            errno.EXDEV,
            errno.EMLINK,
        ):
            raise
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as out, open(tmp, "rb") as source:
                shutil.copyfileobj(source, out)
                out.flush()
                os.fsync(out.fileno())
        except BaseException:
            target.unlink(missing_ok=True)
            raise
    tmp.unlink()


def _sync_directory(directory: Path) -> None:
    """fsync a directory so a new entry in it is durable (POSIX; a no-op where unsupported)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
