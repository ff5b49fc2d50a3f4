"""One process per config dir: a second one is told at once, in one line, to use another --home."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cardtable.p2p.node import Home, HomeBusy


def test_a_home_is_held_by_one_process_at_a_time(tmp_path: Path) -> None:
    home = Home(tmp_path / "h")
    home.lock()
    where = str(tmp_path / "h")
    holder = (f"from pathlib import Path\nfrom p2p.node import Home, HomeBusy\n"
              f"try:\n    Home(Path({where!r})).lock()\n"
              "except HomeBusy as err:\n    print('busy', err)\nelse:\n    print('free')\n")
    out = subprocess.run([sys.executable, "-c", holder], capture_output=True, text=True, timeout=60,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.startswith("busy another cardtable process is using"), out
    home.unlock()
    out = subprocess.run([sys.executable, "-c", holder], capture_output=True, text=True, timeout=60,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "free", out
    other = Home(tmp_path / "other")
    other.lock()  # another home is another lock
    other.unlock()


def test_a_second_cardtable_on_one_home_is_a_one_line_error(tmp_path: Path) -> None:
    home = Home(tmp_path / "h")
    home.lock()
    with pytest.raises(HomeBusy):
        Home(tmp_path / "h").lock()  # flock is per open file: a second holder in one process fails too
    env = {**os.environ, "CARDTABLE_HOME": str(tmp_path / "h")}
    table = "00112233445566778899aabbccddeeff@127.0.0.1:9"
    out = subprocess.run([sys.executable, "-c", "from cardtable.cli.main import main; main()", "join", table,
                          "--auto", "random", "--home", str(tmp_path / "h")],
                         capture_output=True, text=True, timeout=60, env=env,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.returncode != 0 and "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "another cardtable process is using" in lines[0], lines
    assert "--home" in lines[0]
