"""`kgroup sandbox start --engine kafka` refuses clearly, in one line, with exit 2 (CLI.md: a
usage error: the command cannot run as given) when there is no distribution, the directory is
not one, or Java is missing; nothing is started and no state is recorded."""

from __future__ import annotations

import stat
from pathlib import Path

from tests.helpers import run_kgroup


def _fake_home(root: Path) -> Path:
    home = root / "kafka"
    (home / "bin").mkdir(parents=True)
    for name in ("kafka-storage.sh", "kafka-server-start.sh"):
        script = home / "bin" / name
        script.write_text("#!/bin/sh\nexit 99\n")
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return home


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"XDG_STATE_HOME": str(tmp_path / "state"), **extra}


def _one_line_error(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kgroup: error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_no_kafka_home_is_a_usage_error(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("KAFKA_HOME", raising=False)
    result = run_kgroup("sandbox", "start", "--engine", "kafka", env=_env(tmp_path), expect=2)
    assert "no Kafka distribution" in _one_line_error(result.stderr)
    assert "KAFKA_HOME" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "state" / "kgroup" / "sandbox.json").exists()


def test_a_directory_without_the_start_script_is_not_a_distribution(tmp_path) -> None:
    home = tmp_path / "not-kafka"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "kafka-storage.sh").write_text("#!/bin/sh\n")
    result = run_kgroup(
        "sandbox",
        "start",
        "--engine",
        "kafka",
        "--kafka-home",
        str(home),
        env=_env(tmp_path),
        expect=2,
    )
    line = _one_line_error(result.stderr)
    assert "is not an Apache Kafka distribution" in line
    assert "bin/kafka-server-start.sh" in line
    missing = run_kgroup(
        "sandbox",
        "start",
        "--engine",
        "kafka",
        env=_env(tmp_path, KAFKA_HOME=str(tmp_path / "nope")),
        expect=2,
    )
    assert f"KAFKA_HOME={tmp_path / 'nope'} does not exist" in missing.stderr


def test_no_java_is_a_clear_error(tmp_path) -> None:
    home = _fake_home(tmp_path)
    bare = tmp_path / "bin-without-java"
    bare.mkdir()
    env = _env(tmp_path, KAFKA_HOME=str(home), PATH=str(bare))
    result = run_kgroup(
        "sandbox", "start", "--engine", "kafka", env={**env, "JAVA_HOME": ""}, expect=2
    )
    assert "Java is missing" in _one_line_error(result.stderr)
    assert not (tmp_path / "state" / "kgroup").joinpath("sandbox.json").exists()
    broken = run_kgroup(
        "sandbox",
        "start",
        "--engine",
        "kafka",
        env={**env, "JAVA_HOME": str(tmp_path / "no-jdk")},
        expect=2,
    )
    assert "Java is missing: JAVA_HOME=" in _one_line_error(broken.stderr)


def test_kafka_home_needs_the_kafka_engine(tmp_path) -> None:
    result = run_kgroup(
        "sandbox", "start", "--kafka-home", str(tmp_path), env=_env(tmp_path), expect=2
    )
    assert "--engine kafka" in _one_line_error(result.stderr)


def test_a_bad_kafka_home_is_refused_even_while_a_sandbox_runs(tmp_path) -> None:
    """Issue #24 item 15: the request is checked before the running sandbox is looked at; a
    running sandbox of another engine is never reported as the one asked for."""
    env = _env(tmp_path)
    run_kgroup("sandbox", "start", env=env)  # tansu
    try:
        result = run_kgroup(
            "sandbox", "start", "--engine", "kafka", "--kafka-home", "/nonexistent",
            env=env, expect=2,
        )  # fmt: skip
        line = _one_line_error(result.stderr)
        assert "--kafka-home /nonexistent does not exist" in line
        assert result.stdout == ""
        variable = run_kgroup(
            "sandbox", "start", "--engine", "kafka",
            env={**env, "KAFKA_HOME": "/nonexistent"}, expect=2,
        )  # fmt: skip
        assert "KAFKA_HOME=/nonexistent does not exist" in _one_line_error(variable.stderr)
        # a real distribution while tansu runs: said, not passed off as Kafka
        home = _fake_home(tmp_path)
        other = run_kgroup(
            "sandbox", "start", "--engine", "kafka", "--kafka-home", str(home),
            env=env, expect=2,
        )  # fmt: skip
        line = _one_line_error(other.stderr)
        assert "a tansu sandbox already runs at 127.0.0.1:" in line
        assert "kgroup sandbox stop" in line
        # no --engine: whatever runs is fine, as before
        again = run_kgroup("sandbox", "start", env=env)
        assert "already running: tansu sandbox" in again.stderr
    finally:
        run_kgroup("sandbox", "stop", env=env, expect=None)
