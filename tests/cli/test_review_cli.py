"""``cardtable review``: lines on stdout, the summary on stderr, JSON, the same output every time,
your seat at a kept play table, and one-line errors."""

from __future__ import annotations

import asyncio
import io
import json
import re
import subprocess
from pathlib import Path

import pytest

from cardtable.cli.controller import Controller
from cardtable.cli.main import main
from cardtable.cli.plain import HELP, PlainClient
from cardtable.cli.session import LocalSession
from tests.cli.test_match_cli import run
from tests.cli.test_plain_script import CARDTABLE, ROOT, kept_play_log

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
    log, env = kept_play_log(tmp_path)
    proc = subprocess.run([*CARDTABLE, "review", str(log), "--round", "1", "--level", "fast"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "no seat of yours" not in proc.stderr
    assert "reviewed for you (seat 0)" in proc.stderr, proc.stderr


def played_round() -> LocalSession:
    """A 3-player SOLO match in process, its first round played to its end: seat 0 (you) draws
    whenever it may (often a move the search rates clearly worse), else plays the heuristic's move."""
    from cardtable.ai.bots import make_bot
    from cardtable.engine.games import config_from_dict
    from cardtable.engine.match import Match

    session = LocalSession(Match(config_from_dict({"game": "solo", "players": 3}), b"review-plain"), 0,
                           "heuristic")
    mine = make_bot("heuristic", b"review-plain", 0)
    match = session.match()
    while not match.round_scores:
        if match.to_move() == 0:
            legal = match.legal_actions(0)
            texts = [str(a) for a in legal]
            move = "draw" if "draw" in texts else str(mine.choose(match.observation(0), legal))
            assert session.propose(move) is None
        else:
            assert session.step()
    return session


def test_plain_review_prints_the_review_of_your_last_round() -> None:
    from cardtable.engine.games import config_from_dict
    from cardtable.engine.match import Match

    fresh = LocalSession(Match(config_from_dict({"game": "solo", "players": 3}), b"x"), 0, "heuristic")
    out, err = io.StringIO(), io.StringIO()
    PlainClient(Controller(fresh), out, err, bot_delay=None).feed("review")
    assert out.getvalue() == "review: no review yet: no round has finished\n"

    session = played_round()
    out = io.StringIO()
    client = PlainClient(Controller(session), out, err, bot_delay=None)
    assert client.ready("review")
    client.feed("review")
    lines = out.getvalue().splitlines()
    assert lines[-1].startswith("review: round 1 reviewed for you by ismcts:strong: ")
    flagged = lines[:-1]
    assert flagged and all(re.match(r"review: round 1, move \d+: you played draw; ismcts:strong prefers \S+ "
                                    r"\(\+\d\.\d\d expected\)$", line) for line in flagged), lines
    assert err.getvalue() == ""
    assert "review" in HELP


def test_v_shows_the_review_in_the_table_once_a_round_has_ended() -> None:
    from textual.widgets import Static

    from cardtable.cli.help_screen import ReviewScreen
    from cardtable.cli.tui import TableApp

    session = played_round()
    app = TableApp(Controller(session), bot_delay=None)
    shown: list[str] = []

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert "v" in app.screen.active_bindings and app.check_action("review", ())
            await pilot.press("v")
            for _ in range(100):
                await pilot.pause(0.05)
                if isinstance(app.screen, ReviewScreen):
                    break
            assert isinstance(app.screen, ReviewScreen)
            shown.append(str(app.screen.query_one("#review", Static).render()))
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, ReviewScreen)

    asyncio.run(main())
    assert "you played draw; ismcts:strong prefers" in shown[0] and "round 1 reviewed for you" in shown[0]

    from cardtable.engine.match import Match

    fresh = LocalSession(Match(session.match().config, b"x"), 0, "heuristic")
    assert not TableApp(Controller(fresh), bot_delay=None).check_action("review", ())
