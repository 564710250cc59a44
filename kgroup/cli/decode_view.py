"""How `kgroup decode` is shown: the progress bar and the views on stdout (the records stream,
`--summary`, what `--out DIR` wrote). kgroup/decode/run.py reads and calls these through its
`DecodeView`; it renders nothing itself."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from kgroup.core.notes import note
from kgroup.decode.run import summary_document

if TYPE_CHECKING:
    from kgroup.cli.context import GlobalOptions
    from kgroup.offsets.decode import DecodedRecord
    from kgroup.render.progress import Progress, TaskBar
    from kgroup.scan.api import Scan


class CliDecodeView:
    """`kgroup decode`'s DecodeView for the global options `opts` (output mode, colour)."""

    def __init__(self, opts: GlobalOptions) -> None:
        self.opts = opts

    def progress(self) -> Progress:
        from kgroup.render.progress import Progress

        return Progress(self.opts.no_color)

    def task_bar(self) -> TaskBar:
        from kgroup.render.progress import TaskBar

        return TaskBar(self.opts.no_color)

    def records(self, recs: Iterable[DecodedRecord], scan: Scan) -> None:
        write_records(self.opts, recs, scan)

    def out_summary(self, scan: Scan, path: str) -> None:
        _print_out_summary(self.opts, scan, path)

    def summary(self, groups: list[dict[str, Any]], scan: Scan) -> None:
        _render_summary(self.opts, groups, scan)

    def share_summary(self, rows: list[dict[str, Any]], scan: Scan) -> None:
        _render_share_summary(self.opts, rows, scan)

    def summary_cut_short(self, scan: Scan, exc: BaseException) -> None:
        if self.opts.output == "json":  # other modes have no document to close
            _summary_cut_short(self.opts, scan, exc)


CUT_NOTE = (
    "values longer than {n} characters are cut with '…' in the table; "
    "-o jsonl, -o csv or --out DIR give them whole"
)


def write_records(opts: GlobalOptions, recs: Iterable[DecodedRecord], scan: Scan) -> None:
    """The records on stdout in the output mode, streamed (kgroup/render/records_stream.py)."""
    from kgroup.render import records_stream as rs

    out = sys.stdout
    mode = opts.output
    if mode == "jsonl":
        rs.write_jsonl(recs, out)
    elif mode == "json":
        rs.write_json(recs, out, lambda: {"summary": summary_document(scan)})
    elif mode == "csv":
        rs.write_csv(recs, out)
    else:
        from kgroup.render.output import color_enabled
        from kgroup.render.table import terminal_width

        def footer(count: int) -> list[str]:
            lines = [f"{count} records"]
            if scan.stats.problems:
                lines.append(f"{len(scan.stats.problems)} problems reported on stderr")
            return lines

        result = rs.write_table(
            recs,
            out,
            color=color_enabled(opts.no_color, out),
            width=terminal_width(out),
            footer=footer,
        )
        if result.cut:
            out.flush()
            note(CUT_NOTE.format(n=rs.VALUE_MAX))


def _print_out_summary(opts: GlobalOptions, scan: Scan, path: str) -> None:
    from kgroup.render import Column, Output, render

    doc = summary_document(scan)
    row = {"path": path, "records": doc["records"], "records_read": doc["records_read"]}
    row["problems"] = len(doc["problems"])
    output = Output(
        columns=[
            Column("path"),
            Column("records", justify="right"),
            Column("records_read", justify="right"),
            Column("problems", justify="right"),
        ],
        rows=[row],
        document={"out": path, "summary": doc},
    )
    render(output, opts.output, no_color=opts.no_color)


SUMMARY_COLUMNS = (
    ("group", "GROUP", "left"),
    ("type", "TYPE", "left"),
    ("protocol", "PROTOCOL", "left"),
    ("last_commit", "LAST COMMIT", "left"),
    ("commits", "COMMITS", "right"),
    ("topics", "TOPICS", "left", "text"),
    ("partitions", "PARTITIONS", "right"),
    ("generation", "GENERATION", "right"),
    ("members", "MEMBERS", "right"),
    ("deleted", "DELETED", "left"),
)


def _summary_cut_short(opts: GlobalOptions, scan: Scan, exc: BaseException) -> None:
    """`--summary -o json` when reading failed: still one document, no groups (a group's row
    needs all its records), what was read, and the `error`."""
    from kgroup.render import Output, render
    from kgroup.render.records_stream import failure_text

    doc = {"groups": [], "summary": summary_document(scan), "error": failure_text(exc)}
    render(Output(columns=[], rows=[], document=doc), "json", no_color=opts.no_color)


def _render_summary(opts: GlobalOptions, groups: list[dict[str, Any]], scan: Scan) -> None:
    """`--summary`: one row per group; JSON keeps epoch ms and topic lists."""
    from kgroup.render import Column, Output, render
    from kgroup.render.records_stream import format_ms

    rows = [
        {
            **g,
            "last_commit": format_ms(g["last_commit"]),
            "topics": ",".join(g["topics"]) or None,
            "deleted": "yes" if g["deleted"] else "no",
        }
        for g in groups
    ]
    output = Output(
        columns=[Column(*spec) for spec in SUMMARY_COLUMNS],
        rows=rows,
        document={"groups": groups, "summary": summary_document(scan)},
        jsonl_items=groups,
        footer=[f"{len(groups)} groups"],
        empty_message="no groups",
    )
    render(output, opts.output, no_color=opts.no_color)


SHARE_SUMMARY_COLUMNS = (
    ("group", "GROUP", "left"),
    ("topic_id", "TOPIC ID", "left"),
    ("partition", "PARTITION", "right"),
    ("start_offset", "START OFFSET", "right"),
    ("state_epoch", "STATE EPOCH", "right"),
    ("leader_epoch", "LEADER EPOCH", "right"),
    ("snapshot_epoch", "SNAPSHOT EPOCH", "right"),
    ("updates_since_snapshot", "UPDATES", "right"),
)


def _render_share_summary(opts: GlobalOptions, rows: list[dict[str, Any]], scan: Scan) -> None:
    """`--summary` of `__share_group_state`: one row per share-partition with live state."""
    from kgroup.render import Column, Output, render

    output = Output(
        columns=[Column(*spec) for spec in SHARE_SUMMARY_COLUMNS],
        rows=rows,
        document={"share_partitions": rows, "summary": summary_document(scan)},
        jsonl_items=rows,
        footer=[f"{len(rows)} share-partitions of {len({r['group'] for r in rows})} share groups"],
        empty_message="no share-group state",
    )
    render(output, opts.output, no_color=opts.no_color)
