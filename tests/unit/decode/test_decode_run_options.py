"""decode's run layer takes typed options (DecodeOptions, built by cli/ from the global
options) and a DecodeView: segments are decoded without asking for the cluster; `--live`
asks DecodeOptions.admin once (issue #25: run layers never read the CLI's option bag)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kgroup.core.errors import NotFoundError
from kgroup.decode.run import DecodeOptions, DecodeRequest, run_decode
from kgroup.scan.local import DecodeFilter

FIXTURE = (
    Path(os.environ.get("KGROUP_KAFKA41_FIXTURES", "/work/shared/fixtures/kafka-4.1"))
    / "every-record-type"
)


class NoBar:
    enabled = False

    def start_bytes(self, total: int, label: str) -> None:
        self.total = total

    def advance(self, n: int) -> None:
        pass

    def start_records(self, label: str) -> None:
        self.label = label

    def records(self, done: int, total: int) -> None:
        pass

    def stop(self) -> None:
        pass


class RecordingView:
    """A DecodeView keeping what it was handed."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, Any]] = []

    @contextlib.contextmanager
    def progress(self) -> Iterator[NoBar]:
        yield NoBar()

    def task_bar(self) -> Any:
        raise AssertionError("no Spark here")

    def records(self, recs: Iterable[Any], scan: Any) -> None:
        self.shown.append(("records", list(recs)))

    def out_summary(self, scan: Any, path: str) -> None:
        self.shown.append(("out", path))

    def summary(self, groups: list[dict[str, Any]], scan: Any) -> None:
        self.shown.append(("summary", groups))

    def share_summary(self, rows: list[dict[str, Any]], scan: Any) -> None:
        self.shown.append(("share_summary", rows))

    def summary_cut_short(self, scan: Any, exc: BaseException) -> None:
        self.shown.append(("cut", exc))


def _no_cluster() -> Any:
    raise AssertionError("segments were decoded by asking for the cluster")


@pytest.mark.skipif(not FIXTURE.is_dir(), reason="the Kafka 4.1 fixtures are not here")
def test_segments_need_no_cluster() -> None:
    view = RecordingView()
    req = DecodeRequest(flt=DecodeFilter(), view="summary", paths=[str(FIXTURE)], engine="local")
    run_decode(DecodeOptions(admin=_no_cluster), req, view)
    [(kind, groups)] = view.shown
    assert kind == "summary" and groups, "the fixture's groups are summarised"


class NoOffsetsTopic:
    """An admin of a cluster without __consumer_offsets (as tansu)."""

    timeout_s = 1.0

    def topics(self, include_internal: bool = False) -> dict[str, Any]:
        return {}


def test_live_asks_the_options_for_the_cluster_once() -> None:
    asked: list[NoOffsetsTopic] = []

    def admin() -> Any:
        asked.append(NoOffsetsTopic())
        return asked[-1]

    req = DecodeRequest(flt=DecodeFilter(), view="records", paths=None, engine="local")
    view = RecordingView()
    with pytest.raises(NotFoundError, match="topic __consumer_offsets does not exist"):
        run_decode(DecodeOptions(admin=admin), req, view)
    assert len(asked) == 1
