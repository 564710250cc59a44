"""JSON (one document) and JSON Lines writers; text is JSON-escaped and terminal-safe
(kgroup/render/safe.py json_text_safe)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TextIO

from kgroup.render.safe import json_text_safe


def write_json(document: dict[str, Any], out: TextIO) -> None:
    # one write: json.dump writes every token separately, seconds for a large document
    out.write(json_text_safe(json.dumps(document, indent=2, ensure_ascii=False)))
    out.write("\n")


def write_jsonl(items: Iterable[dict[str, Any]], out: TextIO) -> None:
    for item in items:
        out.write(json_text_safe(json.dumps(item, ensure_ascii=False, separators=(",", ":"))))
        out.write("\n")
