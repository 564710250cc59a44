"""`kgroup --help` wall time (median of N runs, whole process). Target: <= 200 ms median."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path


def main(runs: int = 21) -> int:
    import compileall
    import os

    compileall.compile_dir(os.path.join(os.path.dirname(__file__), "..", "kgroup"), quiet=1)
    # the entry point of the Python running this script (the first `kgroup` on PATH may belong
    # to another Python's venv), else `python -m kgroup`
    exe = Path(sys.executable).with_name("kgroup")
    command = [str(exe), "--help"] if exe.is_file() else [sys.executable, "-m", "kgroup", "--help"]
    subprocess.run(command, capture_output=True, check=True)  # warm the page cache
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        times.append((time.perf_counter() - started) * 1000)
    median = statistics.median(times)
    print(
        f"kgroup --help: median {median:.0f} ms, min {min(times):.0f} ms, "
        f"max {max(times):.0f} ms over {runs} runs (target <= 200 ms)"
    )
    return 0 if median <= 200 else 1


if __name__ == "__main__":
    sys.exit(main())
