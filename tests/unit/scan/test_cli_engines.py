"""`kgroup decode --engine`: missing pyspark or Java exit 2 with the hint; the Spark engine's
output on stdout is the local engine's, with Spark's noise kept off it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from kgroup.cli.app import run


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> str:
    from scripts.sample_offsets import write_sample

    d = tmp_path_factory.mktemp("sample")
    write_sample(str(d))
    return str(d)


def test_spark_without_pyspark_exits_2_with_the_install_hint(
    sample: str, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pyspark" else real(name, *a)
    )
    assert run(["decode", "--segments", sample, "--engine", "spark"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "pip install 'kgroup[spark]'" in captured.err


def test_spark_without_java_names_java_home(
    sample: str, capsys, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    assert run(["decode", "--segments", sample, "--engine", "spark", "--summary"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "JAVA_HOME" in err


def test_spark_conf_needs_key_value(sample: str, capsys) -> None:
    assert run(["decode", sample, "--engine", "spark", "--spark-conf", "novalue"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err


@pytest.mark.spark
@pytest.mark.parametrize(
    "view", [[], ["--latest"], ["--summary"], ["--as-of", "2026-01-01T00:01:10Z"]]
)
def test_spark_output_equals_local_output(spark_session, sample: str, capsys, view) -> None:
    outputs = []
    for engine in ("local", "spark"):
        assert run(["decode", "--segments", sample, "--engine", engine, "-o", "json", *view]) == 0
        captured = capsys.readouterr()
        doc = json.loads(captured.out)
        doc["summary"].pop("records_read")  # the local engine counts records read, Spark not
        doc["summary"].pop("batches")
        outputs.append(doc)
        if engine == "spark" and not view:  # the printed record stream stays local, said once
            assert captured.err.count("read by the local engine") == 1
        else:
            assert captured.err == ""
    assert outputs[0] == outputs[1]


def test_auto_picks_spark_only_where_it_finishes_sooner(capsys) -> None:
    from kgroup.decode.run import choose_engine as _choose_engine
    from kgroup.decode.run import spark_missing
    from kgroup.scan.api import SPARK_AUTO_BYTES, spark_pays_off
    from kgroup.scan.local import SegmentInput

    gib = 2**30
    # The cost model with the rates measured on the 2-core machine (bench_spark.py, 1 GiB):
    # on 2 cores Spark pays off from ~1.1 GB for --out and ~2.2 GB for --summary; the printed
    # record stream never goes to Spark; more cores pay off sooner; nothing below
    # SPARK_AUTO_BYTES.
    assert not spark_pays_off(gib, 2, "records")  # local ~11.0 s vs Spark ~11.2 s
    assert spark_pays_off(4 * gib, 2, "records")  # local ~44 s vs Spark ~30 s
    assert not spark_pays_off(64 * gib, 64, "stream")
    assert not spark_pays_off(2 * gib, 2, "summary")  # local ~24.7 s vs Spark ~24.9 s
    assert spark_pays_off(3 * gib, 2, "summary")  # local ~37 s vs Spark ~35 s
    assert spark_pays_off(gib, 4, "records")  # local ~11.0 s vs Spark ~8.2 s
    assert not spark_pays_off(SPARK_AUTO_BYTES - 1, 64, "summary")

    def files(size: int) -> list[SegmentInput]:
        return [SegmentInput("/x", "p-0/x.log", 0, size)]

    # the printed record stream stays local, saying so where Spark would pay off with --out
    assert _choose_engine("auto", files(4 * gib), False, view="stream", cores=2) is False
    assert "the record stream printed to stdout stays local" in capsys.readouterr().err
    assert _choose_engine("auto", files(gib), False, view="stream", cores=2) is False
    assert _choose_engine("auto", None, False) is False  # --live: local
    assert capsys.readouterr().err == ""
    picked = _choose_engine("auto", files(3 * gib), False, view="summary", cores=2)
    err = capsys.readouterr().err
    assert picked is (spark_missing() is None)
    assert "engine auto: 3,072 MiB" in err
    assert _choose_engine("local", files(10 * SPARK_AUTO_BYTES), False) is False


def test_spark_class_archive_location_and_switch(monkeypatch, tmp_path) -> None:
    pytest.importorskip("pyspark")
    from kgroup.scan import spark_session as sp

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("KGROUP_SPARK_CDS", raising=False)
    path = sp.cds_archive_path()
    if sp._jdk_tool("jcmd") is None:
        assert path is None  # a JRE without jcmd: no archive, Spark starts as usual
    else:
        assert path is not None and path.startswith(str(tmp_path / "kgroup" / "spark-cds"))
        assert path.endswith(".jsa") and sp.cds_archive_path() == path  # stable per install
    monkeypatch.setenv("KGROUP_SPARK_CDS", "0")
    assert sp.cds_archive_path() is None
    monkeypatch.delenv("KGROUP_SPARK_CDS")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    assert sp.cds_archive_path() is None
