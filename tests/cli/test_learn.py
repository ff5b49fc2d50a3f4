"""``cardtable learn solo|scout``: a short guided first round on the real table, with tips in
"What happened" as the round makes them useful, each said once."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
from pathlib import Path

from textual.widgets import RichLog

from cardtable.cli.controller import Controller
from cardtable.cli.learn_cmd import TIP, Tutor, learn_session
from cardtable.cli.plain import PlainClient
from cardtable.cli.tui import TableApp
from tests.cli.test_client_controller import heuristic_move

ROOT = Path(__file__).resolve().parents[2]


def play_the_round(game: str, seed: int) -> list[str]:
    """Play the first round of ``learn GAME`` in --plain, our seat played as the heuristic; the lines."""
    session = learn_session(game, seed)
    c = Controller(session)
    Tutor(c).attach()
    out = io.StringIO()
    plain = PlainClient(c, out, io.StringIO(), bot_delay=None)
    for _ in range(500):
        session.run_bots()
        plain.poll()
        if session.round_scores() or session.is_over():
            break
        assert c.submit(heuristic_move(session)) is None
    plain.poll()
    return out.getvalue().splitlines()


def test_a_solo_first_round_tells_each_tip_once_and_in_its_place() -> None:
    lines = play_the_round("solo", 4)
    tips = [line for line in lines if line.startswith(TIP)]
    assert len(tips) == len(set(tips)) >= 4
    assert tips[0].startswith("Tip: SOLO: be the first to play out every card") and lines[0] == tips[0]
    turn = lines.index("Tip: your turn: the cards you may play are underlined in your hand. None fits? "
                       "Choose 'draw a card'.")
    first_move = next(i for i, line in enumerate(lines) if line.startswith("You "))
    assert turn < first_move  # told before the first move, not after it
    assert any(line.startswith("Tip: the round is over") for line in lines)


def test_a_scout_first_round_tells_the_flip_the_show_and_the_end() -> None:
    tips = [line for line in play_the_round("scout", 1) if line.startswith(TIP)]
    assert tips[0].startswith("Tip: SCOUT: your hand stays in the order dealt")
    assert any("f flips it" in tip for tip in tips)
    assert any("the table is empty" in tip or "to beat the set" in tip for tip in tips)
    assert tips[-1].startswith("Tip: the round is over: each card you captured")


def test_the_tips_show_in_what_happened_on_the_table() -> None:
    session = learn_session("solo", 4)
    c = Controller(session)
    Tutor(c).attach()
    app = TableApp(c, bot_delay=None)
    seen: dict[str, str] = {}

    async def main() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            session.run_bots()
            app.refresh_view()
            await pilot.pause()
            log = app.query_one("#log", RichLog)
            seen["log"] = " ".join(" ".join(strip.text for strip in log.lines).split())

    asyncio.run(main())
    assert "Tip: SOLO: be the first to play out every card" in seen["log"]
    assert "Tip: your turn" in seen["log"]


def test_the_learn_command_opens_the_round_with_its_tips() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT.parent)}
    cardtable = [sys.executable, "-c", "from cardtable.cli.main import main; main()"]
    done = subprocess.run([*cardtable, "learn", "scout", "--plain", "--seed", "3", "--bot-delay", "0"],
                          input="leave\n", capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("Tip: SCOUT: your hand stays in the order dealt")
    assert "learn" in subprocess.run([*cardtable, "--help"], capture_output=True, text=True, env=env).stdout


def test_the_help_page_names_learn() -> None:
    from cardtable.cli.rules import table_keys

    assert "`cardtable learn solo`" in table_keys("solo") and "`cardtable learn solo`" in table_keys("")
