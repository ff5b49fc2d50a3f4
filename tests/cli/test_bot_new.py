"""``cardtable bot new python|js DIR`` writes a bot that plays a match without a fault."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.cli.test_match_cli import run


@pytest.mark.parametrize("language", ["python", "js"])
def test_the_written_example_plays_a_match_without_faults(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                          language: str) -> None:
    if language == "js" and shutil.which("node") is None:
        pytest.skip("node is not installed: the JavaScript bot cannot run here")
    code, out, err = run(capsys, "bot", "new", language, str(tmp_path / "mine"))
    assert code == 0, err
    written = tmp_path / "mine" / ("bot.py" if language == "python" else "bot.js")
    assert f"wrote {written}" in out and written.stat().st_mode & 0o111
    command = f"{sys.executable} {written}" if language == "python" else f"node {written}"
    assert f"cmd:{'python3' if language == 'python' else 'node'} {written}" in out
    for game in ("solo", "scout"):
        code, out, err = run(capsys, "match", game, "--players", "3", "--games", "2", "--seed", "4", "--json",
                             "--bots", f"me=cmd:{command},heuristic,heuristic")
        assert code == 0, err
        me = next(r for r in json.loads(out)["summary"]["bots"] if r["bot"] == "me")
        assert me["faults"] == {} and me["seat_games"] == 2


def test_it_never_writes_over_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("mine\n")
    code, out, err = run(capsys, "bot", "new", "python", str(tmp_path))
    assert code == 1
    assert err.strip() == f"cardtable: error: {tmp_path / 'bot.py'} exists already: give another folder"
    assert (tmp_path / "bot.py").read_text() == "mine\n"
