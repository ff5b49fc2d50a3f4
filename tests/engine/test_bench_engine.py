"""bench/engine.py --against: a wrong directory is one clear line, and the engine set beside
itself plays the same games."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "engine.py"


def test_against_a_directory_that_is_no_checkout_says_so_in_one_line(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, str(BENCH), "--against", str(tmp_path)], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 1
    assert run.stderr.strip().splitlines() == [
        f"error: {tmp_path} is not a checkout of this repository (no engine/solo/state.py)"]


def test_against_itself_plays_the_same_games_at_about_the_same_speed() -> None:
    run = subprocess.run([sys.executable, str(BENCH), "--against", str(ROOT), "--pairs", "2",
                          "--case", "SCOUT 5p"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    header, line = run.stdout.strip().splitlines()
    assert line.startswith("SCOUT 5p") and "not the same games" not in line
    assert float(line.split()[4]) > 0
