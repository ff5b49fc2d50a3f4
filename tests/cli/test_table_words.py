"""Issue 38 item 11, the table's parts: the hint says the move in the words of the moves list
(``play Bswap: swap hands with cpu 2 (seat 2)``, not ``Bswap:2``) and puts the list's cursor on
it; the ``?`` page covers the whole table."""

from __future__ import annotations

import io
from typing import Any

from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from cardtable.cli.controller import Controller
from cardtable.cli.help_screen import HelpScreen
from cardtable.cli.plain import PlainClient
from cardtable.cli.session import LocalSession
from cardtable.cli.tui import TableApp
from tests.cli.test_client_controller import scout_match, solo_match
from tests.cli.test_client_tui import run_app


class Picks:
    """A hint bot that answers with the legal action written ``text``."""

    def __init__(self, text: str) -> None:
        self.text = text

    def choose(self, obs: Any, legal: list[Any]) -> Any:
        return next(a for a in legal if str(a) == self.text)

    react = choose


def with_hint(session: LocalSession, text: str) -> None:
    session.hint_inputs()  # the hint bot is made on the first hint: then ours takes its place
    session._hint_bot = Picks(text)  # type: ignore[assignment]
    session.hint_bot_name = "ismcts:strong"


async def hint(pilot: Pilot[Any], app: TableApp) -> str:
    await pilot.press("h")
    for _ in range(100):
        await pilot.pause(0.02)
        if app.hint_text != "thinking...":
            break
    return app.hint_text


def test_the_hint_says_the_swap_in_words_and_puts_the_cursor_on_it() -> None:
    seen: dict[str, Any] = {}

    async def scenario(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
        with_hint(session, "Bswap:2")
        moves = app.query_one("#moves", OptionList)
        seen["first"] = moves.highlighted
        seen["hint"] = await hint(pilot, app)
        seen["status"] = str(app.query_one("#status", Static).render())
        option = moves.get_option_at_index(moves.highlighted or 0)
        seen["cursor"] = (option.id, str(option.prompt))

    match = solo_match(["R7 Bswap G1", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], discard="B5", edition="classic")
    run_app(match, scenario)
    assert seen["hint"] == "ismcts:strong would play Bswap: swap hands with cpu 2 (seat 2)"
    assert "Bswap:2" not in seen["status"] and "swap hands with cpu 2" in seen["status"]
    assert seen["first"] == 0 and seen["cursor"][0] == "Bswap"
    assert seen["cursor"][1].startswith("play Bswap")  # the same words as the list's


def test_the_hint_words_a_wild_a_gift_a_scout_and_a_show() -> None:
    from cardtable.cli.player_words import move_words
    from cardtable.engine.match import Match

    def words(match: Match, text: str) -> str:
        obs = match.observation(0)
        return move_words(match.parse_action(text), obs, ["you", "cpu 1", "cpu 2", "cpu 3"])

    solo = solo_match(["wild Rgift R3 G5", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], discard="R5")
    assert words(solo, "wild:B") == "play wild, naming blue"
    assert words(solo, "Rgift:3:R3,G5") == "play Rgift: give cpu 3 (seat 3) R3 and G5"
    scout = scout_match(["3/1 4/2 5/9", "6/2 7/3", "9/4 6/5"], active="7/2 8/3", owner=2)
    assert words(scout, "scout:R:8@1") == "scout 8/3 from the right end, into place 1"
    assert words(scout, "show:0-1") == "show 3-4 (run of 2)"


def test_plain_hint_says_the_words_and_the_notation_to_type() -> None:
    match = solo_match(["R7 Bswap G1", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], discard="B5", edition="classic")
    session = LocalSession(match, 0, "heuristic")
    with_hint(session, "Bswap:2")
    out = io.StringIO()
    plain = PlainClient(Controller(session), out, io.StringIO(), bot_delay=None)
    plain.feed("hint")
    assert "hint: ismcts:strong would play Bswap: swap hands with cpu 2 (seat 2) (type Bswap:2)" \
        in out.getvalue().splitlines()


def test_the_rules_page_covers_the_whole_table() -> None:
    seen: dict[str, Any] = {}

    async def scenario(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        page = app.screen.query_one("#help")
        seen["page"] = (page.region.x, page.region.y, page.region.width, page.region.height)
        seen["screen"] = (app.screen.size.width, app.screen.size.height)
        seen["shown"] = app.export_screenshot()

    match = solo_match(["R7 Bswap G1", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], discard="B5", edition="classic")
    run_app(match, scenario)
    width, height = seen["screen"]
    assert seen["page"] == (0, 0, width, height - 1)  # all but the footer's line
    assert "Your hand" not in seen["shown"] and "What happened" not in seen["shown"]


CRASHING = '''
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "crashy", "games": ["solo"], "protocol": 1}), flush=True)
    else:
        print("thinking hard", file=sys.stderr)
        print("ValueError: no move \\x1b[2Jfor you", file=sys.stderr, flush=True)
        sys.exit(3)
'''


def test_a_crashed_program_is_told_with_the_last_line_of_its_stderr(tmp_path: Any) -> None:
    import subprocess
    import sys
    from pathlib import Path

    bot = tmp_path / "crashy.py"
    bot.write_text(CRASHING, encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-c", "from cardtable.cli.main import main; main()", "play", "solo", "--seed", "3",
         "--players", "2", "--bots", f"cmd:{sys.executable} {bot}", "--plain",
         "--home", str(tmp_path / "home")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=root.parent)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("draw\n")  # our move (if the program does not move first): then it must answer
    proc.stdin.flush()
    seen = []
    try:
        for line in proc.stdout:
            seen.append(line.rstrip("\n"))
            if line.startswith("Bot fault:"):
                break
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    told = [line for line in seen if line.startswith("Bot fault:")]
    assert len(told) == 1, "\n".join(seen)
    assert "program stopped: it exited (code 3)" in told[0]
    assert told[0].endswith(", its last line: ValueError: no move [2Jfor you)")
    assert "\x1b" not in told[0]  # a terminal escape it wrote never reaches the screen


def test_the_help_page_says_what_the_hint_does() -> None:
    from cardtable.cli.rules import table_keys

    assert all("the cursor on that move" in table_keys(game) for game in ("solo", "scout"))
