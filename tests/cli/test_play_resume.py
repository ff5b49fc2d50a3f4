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

from cardtable.cli.main import main
from cardtable.engine.match import Match
from cardtable.engine.solo import Config as SoloConfig

ROOT = Path(__file__).resolve().parents[2]
CARDTABLE = [sys.executable, "-c", "from cardtable.cli.main import main; main()"]
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
    assert "You leave the table; the match is kept where it stands" in resumed.stdout  # end of input

    told = cardtable(home, "replay", str(home / "play" / "table.log"))
    assert told.returncode == 0, told.stderr
    card = played.rstrip("!")
    assert ("you (seat 0) draws" if card == "draw" else f"you (seat 0) plays {card}") in told.stdout
    assert told.stdout.splitlines()[-1].startswith("verified: ")
    assert "leaves the table" not in told.stdout  # leaving a play match left no leave entry

    again = cardtable(home, "play", "--resume", "--plain", "--bots", "heuristic", "--bot-delay", "0.05")
    assert again.returncode == 0, again.stderr
    assert "resuming your SOLO match" in again.stderr  # left with end of input, it resumes again


def test_replay_tells_a_leave_in_words(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A LAN table's leave entry (the host gives its seat to a computer player and goes)."""
    from cardtable.p2p.identity import Identity
    from cardtable.p2p.peer import Peer, Timeouts
    from cardtable.p2p.store import FileStore

    store = tmp_path / "table.log"
    peer = Peer.host(Identity.generate(), FileStore(store), SoloConfig.preset("classic", 3), "alpha", 2,
                     now=0.0, seed=b"x" * 32, bots="random", timeouts=Timeouts(bot_delay=0.0))
    now, left = 0.0, False
    for _ in range(5000):
        if peer.table.match is not None and not left:
            peer.leave(now)
            left = True
        if peer.left:
            break
        out = peer.timer(now)
        now = out.deadline if out.deadline is not None else now + 0.05
    assert peer.left
    with pytest.raises(SystemExit) as done:
        main(["replay", str(store)])
    told = capsys.readouterr().out
    assert done.value.code in (0, None), told
    assert "alpha (seat 0) leaves the table; a computer player takes the seat" in told
    assert "leave: leave" not in told


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


def test_pilot_the_table_of_a_resumed_peer_shows_the_kept_position(tmp_path: Path) -> None:
    """What ``play --resume`` runs: a peer resumed from the kept store, in the Textual table;
    the hand is the one kept, and a move chosen goes to the table."""
    import asyncio
    from types import SimpleNamespace

    from textual.widgets import OptionList, RichLog, Static

    from cardtable.cli.controller import Controller
    from cardtable.cli.net_session import NetSession
    from cardtable.cli.tui import TableApp
    from cardtable.p2p.identity import Identity
    from cardtable.p2p.peer import Peer, Timeouts
    from cardtable.p2p.store import FileStore

    me, store = Identity.generate(), tmp_path / "table.log"
    first = Peer.host(me, FileStore(store), SoloConfig.preset("classic", 3), "you", 2, now=0.0,
                      seed=b"x" * 32, bots="heuristic", timeouts=Timeouts(bot_delay=0.1))
    now = 0.0
    for _ in range(2000):  # the seed agreement and the computer players, until it is our turn
        if first.table.match is not None and first.table.match.to_move() == 0:
            break
        out = first.timer(now)
        now = out.deadline if out.deadline is not None else now + 0.05
    kept = first.table.match
    assert kept is not None and kept.to_move() == 0
    resumed = Peer.resume(me, FileStore(store), now=now, seed=b"y" * 32, bots="heuristic",
                          timeouts=Timeouts(bot_delay=0.1))
    proposed: list[str] = []
    session = NetSession(SimpleNamespace(on_event=None, propose=proposed.append), resumed)
    app = TableApp(Controller(session), bot_delay=None)
    seen: dict[str, str] = {}

    async def main_() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            seen["hand"] = str(app.query_one("#hand", Static).render())
            seen["status"] = str(app.query_one("#status", Static).render())
            seen["log"] = " ".join(strip.text for strip in app.query_one("#log", RichLog).lines)
            moves = app.query_one("#moves", OptionList)
            moves.highlighted = moves.get_option_index("draw")
            await pilot.press("enter")
            await pilot.pause()

    asyncio.run(main_())
    assert resumed.table.match is not None and resumed.table.match.digest() == kept.digest()
    shown = seen["hand"].replace("▌", " ").replace("▐", " ").split()  # black cards have edges
    assert shown == list(kept.observation(0)["hand"])
    assert "Your turn" in seen["status"]
    assert proposed == ["draw"]
    assert " plays " in seen["log"], f"the resumed table's log retells the round so far: {seen['log']!r}"
