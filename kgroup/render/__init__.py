"""Renderers: one Output object printed as table (rich), json, jsonl or csv.

Data goes to stdout, diagnostics to stderr. JSON documents carry `"schema_version": 1`; field names
are snake_case and stable. Tables show None as `-`; CSV shows it as an empty field.
"""

from kgroup.render.output import MODES, Column, Output, render, stderr_console

__all__ = ["MODES", "Column", "Output", "render", "stderr_console"]
