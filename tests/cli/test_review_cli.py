"""``cardtable review``: lines on stdout, the summary on stderr, JSON, the same output every time,
your seat at a kept play table, and one-line errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from cardtable.cli.main import main
from tests.cli.test_match_cli import run
from tests.cli.test_plain_script import CARDTABLE, ROOT

pytest.importorskip("cardtable.ai._search")

LINE = re.compile(r"^round \d+, move \d+: .+ played \S+; ismcts:fast prefers .+ \(\+\d\.\d\d expected\)$")


@pytest.fixture
def match_log(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    code, _, _ = run(capsys, "match", "solo", "--players", "3", "--games", "1", "--seed", "5",
                     "--bots", "random,heuristic,heuristic", "--log-dir", str(tmp_path))
    assert code == 0
    return tmp_path / "game-0000.ctlog"


def test_lines_on_stdout_and_the_summary_on_stderr(capsys: pytest.CaptureFixture[str],
                                                   match_log: Path) -> None:
    argv = ("review", str(match_log), "--round", "1", "--seat", "0", "--level", "ismcts:fast")
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    lines = out.splitlines()
    assert lines and all(LINE.match(line) for line in lines), out  # seat 0 plays at random: flagged
    assert all("(seat 0) played" in line for line in lines)
    assert len(err.splitlines()) == 1 and f"{len(lines)} of " in err and "ismcts:fast" in err


def test_json_is_the_same_every_time(capsys: pytest.CaptureFixture[str], match_log: Path) -> None:
    argv = ("review", str(match_log), "--all-seats", "--level", "fast", "--round", "1", "--json")
    code, out, _ = run(capsys, *argv)
    assert code == 0
    again = run(capsys, *argv)[1]
    assert out == again
    data = json.loads(out)
    assert data["seats"] == [0, 1, 2] and data["level"] == "ismcts:fast" and data["round"] == 1
    assert data["flags"] and all(f["cost"] > data["threshold"] for f in data["flags"])
    strict = json.loads(run(capsys, *argv, "--threshold", "0.3")[1])
    assert {f["step"] for f in strict["flags"]} < {f["step"] for f in data["flags"]}


def test_a_match_log_has_no_seat_of_yours(capsys: pytest.CaptureFixture[str], match_log: Path) -> None:
    code, _, err = run(capsys, "review", str(match_log), "--level", "fast")
    assert code == 0
    assert "no seat of yours in this log: reviewing seat 0" in err


@pytest.mark.parametrize("extra, fragment", [
    (("--round", "99"), "there is no round 99: rounds 1 to"),
    (("--round", "0"), "there is no round 0"),
    (("--level", "superb"), "unknown ismcts level 'superb'"),
    (("--level", "1s"), "is a time budget"),
    (("--seat", "7"), "there is no seat 7"),
    (("--seat", "1", "--all-seats"), "--seat and --all-seats: give one"),
])
def test_bad_options_are_one_line(capsys: pytest.CaptureFixture[str], match_log: Path,
                                  extra: tuple[str, ...], fragment: str) -> None:
    code, out, err = run(capsys, "review", str(match_log), *extra)
    assert code in (1, 2) and not out
    assert fragment in err and len(err.strip().splitlines()) == 1, err


def test_bad_files_are_one_line(capsys: pytest.CaptureFixture[str], match_log: Path, tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.ctlog"
    corrupt.write_bytes(b"\x81\xa6format\xa4nope")
    for path, fragment in ((tmp_path / "missing.ctlog", "cannot read"), (corrupt, "not a cardtable log"),
                           (tmp_path, "is a directory")):
        code, out, err = run(capsys, "review", str(path))
        assert code == 1 and not out and fragment in err and len(err.strip().splitlines()) == 1, err
        assert "Traceback" not in err


def test_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["review", "--help"])
    out = capsys.readouterr().out
    assert "Examples:" in out and "cardtable review logs/game-0000.ctlog --all-seats --level fast" in out
    assert "--threshold" in out and "--level" in out


def test_a_kept_play_table_is_reviewed_for_your_seat(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CARDTABLE_HOME": str(tmp_path / "home")}
    proc = subprocess.run([*CARDTABLE, "play", "solo", "--plain", "--players", "3", "--seed", "7", "--bots",
                           "heuristic", "--bot-delay", "0.1"], cwd=ROOT, env=env, input="draw\nkeep\n",
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    log = tmp_path / "home" / "play" / "table.log"
    proc = subprocess.run([*CARDTABLE, "review", str(log), "--round", "1", "--level", "fast"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "no seat of yours" not in proc.stderr
    assert "reviewed for you (seat 0)" in proc.stderr, proc.stderr
