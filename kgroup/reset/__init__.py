"""Offset-reset planning for `kgroup reset-offsets` and `kgroup undo` (pure engine).

Source of truth: CLI.md, "kgroup reset-offsets" and "kgroup undo"; Kafka's
`ConsumerGroupCommand` ResetOffsets for the strategies and the CSV plan format.

Everything here is pure (data in, data out, no clock; `now_ms` is passed in) except
`planfile.read_plan_file` / `planfile.write_plan_file`, the thin file wrappers.
Nothing here talks to Kafka: the executor reads the cluster, calls these functions, and
commits what they return.

How the executor and CLI use it
-------------------------------
1. Strategy from the options (`kgroup.reset.strategy`)::

       parse_to("earliest"|"latest"|"none"|"current")      -> ToEarliest() ...
       to_datetime("2026-05-01T10:00:00Z")                  -> ToTimestamp(ms, source_text)
       to_timestamp("1777629600000")                        -> ToTimestamp(ms, source_text)
       by_duration("PT30M")                                 -> ByDuration(ms, source_text)
       to_offset("42") / shift_by("-10")                    -> ToOffset(42) / ShiftBy(-10)
       planfile.read_plan_file(path).strategy()             -> FromFile(rows, source)

   All raise `UsageError` (exit 2) on bad values; a zoneless date-time is refused with a hint.
   Epoch integers: < 100,000,000,000 are seconds, otherwise milliseconds.

2. Scope per group (`kgroup.reset.planner`)::

       sels = [parse_topic_option(v) for v in topic_options]   # "t" or "t:0,2"
       # --from-file without --topic: sels = selections_for_file(file_strategy, group)
       scope = resolve_scope(sels, partition_counts, all_topics=..., committed=committed.keys())
       # -> sorted tuple[TopicPartition]; PartitionsNotFound (exit 3) lists unknown ones

3. Kafka lookups the planner needs, for the partitions in scope, straight from GroupAdmin
   (plain ints and (log_start, log_end) pairs are accepted too, for tests and tools)::

       committed  = admin.committed_offsets(group)          # {TP: CommittedOffset}
       watermarks = admin.watermarks(scope)                 # {TP: Watermarks}
       ms = resolve_timestamp_ms(strategy, now_ms)          # None unless a timestamp strategy
       times = admin.list_offsets(scope, ms) if ms is not None else None   # {TP: OffsetAtTime}

   Offsets of -1 (Kafka's "none") count as absent: no committed offset, or no record at or
   after the time.

4. Plan, all or nothing::

       plan = plan_group(group, scope, committed, watermarks, times, strategy, now_ms)
       plans = plan_groups([GroupInputs(group, scope, committed, watermarks, times), ...],
                           strategy, now_ms)
       # PlanCheckFailed (CheckFailed, exit 5) with .failures for `--to none` and for
       # `--shift-by` without a committed offset; no plan at all is returned then.
       # PartitionsNotFound (NotFoundError, exit 3) if a partition in scope has no watermarks.

   `GroupPlan(group, rows, strategy, timestamp_ms, notes)`: rows sorted by (topic,
   partition), each a `PlanRow(group, topic, partition, current_offset, new_offset,
   log_start_offset, log_end_offset, clamped, warning, no_record_after_time, metadata,
   leader_epoch)` with `.delta` and `.to_dict()` (render rows / JSON). `plan.warnings` are
   the clamp warnings and notes; `plan.strategy` describes the strategy and
   `format_utc_ms(plan.timestamp_ms)` is the resolved instant to echo.
   `admin.alter_offsets(group, plan.offsets_to_commit())` commits it in one call;
   `plan.offsets_to_delete()` (only when restoring a backup of a partition that had no
   offset) needs DeleteConsumerGroupOffsets or a refusal.

5. Execute (executor's side; helpers here)::

       stale = stale_offsets(plan, admin.committed_offsets(group))   # non-empty -> exit 4
       backup = backup_plan(plan, committed_reread)    # {TP: CommittedOffset} before commit
       write_plan_file(path, [backup], kind="backup", created_at_ms=now_ms)   # JSON only
       write_plan_file(export_path, plans, kind="plan", created_at_ms=now_ms) # --export

   `undo`: `read_plan_file(backup_path).strategy()` is a FromFile that restores the previous
   offsets (with their metadata); plan it like any other strategy.
"""

from kgroup.reset.model import GroupPlan, PlanRow, StaleOffset, stale_offsets

__all__ = ["GroupPlan", "PlanRow", "StaleOffset", "stale_offsets"]
