"""Evening-length matches: ``play`` keeps its table log in the config dir, an unfinished match
resumes with ``play --resume``, ``games`` lists the kept games, ``replay`` tells a table log in
words; ``--rounds``, ``--pool`` and ``--threshold`` shorten a match."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli.main import main
from engine.match import Match
from engine.solo import Config as SoloConfig

ROOT = Path(__file__).resolve().parents[2]
CARDTABLE = [sys.executable, "-c", "from cli.main import main; main()"]
PROMPT = re.compile(r"^your turn \(seat 0\): \d+ moves?: (\S+)")


def cardtable(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CARDTABLE_HOME": str(home)}
    return subprocess.run([*CARDTABLE, *args], cwd=ROOT, env=env, input=stdin, capture_output=True, text=True,
                          timeout=120)


def test_an_interrupted_play_match_resumes_where_it_stopped(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CARDTABLE_HOME": str(home)}
    proc = subprocess.Popen([*CARDTABLE, "play", "solo", "--plain", "--players", "3", "--seed", "7", "--bots",
                             "heuristic", "--bot-delay", "0.05"], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    assert proc.stdin is not None and proc.stdout is not None
    seen: list[str] = []
    played = None
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            line = proc.stdout.readline().rstrip("\n")
            seen.append(line)
            m = PROMPT.match(line)
            if m and played is None:
                played = m.group(1)
                proc.stdin.write(played + "\n")
                proc.stdin.flush()
            elif played is not None and line.startswith("You ") and "seated" not in line:
                break
    finally:
        proc.send_signal(signal.SIGKILL)  # the terminal closes: no leave reaches the table
        proc.wait(10)
    assert played is not None, seen
    hand_before = next(line for line in reversed(seen) if line.startswith("hand: ")).split()[1:]

    listed = cardtable(home, "games")
    assert listed.returncode == 0
    assert "SOLO classic, 3 players at play: unfinished" in listed.stdout
    assert "(resume: cardtable play --resume)" in listed.stdout

    resumed = cardtable(home, "play", "--resume", "--plain", "--bots", "heuristic", "--bot-delay", "0.05",
                        stdin="view\n")
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming your SOLO match" in resumed.stderr
    hands = [line.split()[1:] for line in resumed.stdout.splitlines() if line.startswith("hand: ")]
    assert hands, resumed.stdout
    # the resumed hand is the one left after our move (the others may have played on meanwhile)
    if played != "draw":
        after = list(hand_before)
        after.remove(played.rstrip("!"))
        assert hands[0] == after, (hands[0], after)
    assert "You leave the table" in resumed.stdout  # end of input leaves, as ever

    told = cardtable(home, "replay", str(home / "play" / "table.log"))
    assert told.returncode == 0, told.stderr
    card = played.rstrip("!")
    assert ("you (seat 0) draws" if card == "draw" else f"you (seat 0) plays {card}") in told.stdout
    assert told.stdout.splitlines()[-1].startswith("verified: ")


def test_resume_without_a_kept_match_is_one_line(tmp_path: Path) -> None:
    done = cardtable(tmp_path, "play", "--resume", "--plain")
    assert done.returncode == 1
    where = tmp_path / "play"
    assert done.stderr.strip() == f"cardtable: error: no unfinished play match to resume in {where}"


def test_no_games_kept_yet(tmp_path: Path) -> None:
    done = cardtable(tmp_path, "games")
    assert done.returncode == 0 and done.stdout.startswith("no games kept in ")


def test_rounds_end_a_solo_match_early() -> None:
    config = SoloConfig.preset("classic", 3, rounds=1)
    assert config.match_over([500, 480, 490], 1)
    assert not SoloConfig.preset("classic", 3).match_over([500, 480, 490], 1)
    assert "rounds" not in SoloConfig.preset("classic", 3).to_dict()  # old logs still verify
    assert Match.from_snapshot(Match(config, b"s").snapshot()).config.rounds == 1


@pytest.mark.parametrize(("args", "words"), [
    (["scout", "--rounds", "2"], "SCOUT has no match-length options"),
    (["solo", "--threshold", "100"], "use --pool"),
    (["solo", "--edition", "anniversary", "--pool", "100"], "use --threshold"),
])
def test_match_length_options_are_checked(capsys: pytest.CaptureFixture[str], args: list[str],
                                          words: str) -> None:
    with pytest.raises(SystemExit) as done:
        main(["play", *args, "--plain"])
    assert done.value.code == 2
    assert words in capsys.readouterr().err
