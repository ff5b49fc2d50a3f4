"""The rules at hand: the help screen (``?`` / F1), ``rules`` in line mode, the scoring line,
and the rule books shipped in docs/."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

from textual.widgets import Markdown, Static

from cardtable.cli.controller import Controller
from cardtable.cli.help_screen import HelpScreen
from cardtable.cli.plain import PlainClient
from cardtable.cli.rules import rules_path
from cardtable.cli.session import LocalSession
from cardtable.cli.tui import TableApp
from cardtable.engine.match import Match
from tests.cli.test_client_controller import client, scout_match, solo_match

REPO = Path(__file__).resolve().parents[2]


def help_text(key: str, match: Match) -> tuple[str, bool]:
    """Press ``key`` at the table: the Markdown the help screen shows, and whether Esc closed it."""
    app = TableApp(Controller(LocalSession(match, 0, "heuristic")), bot_delay=None)
    shown: list[str] = []
    closed: list[bool] = []

    async def main() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            shown.append(app.screen.query_one("#rules", Markdown).source)
            await pilot.press("escape")
            await pilot.pause()
            closed.append(not isinstance(app.screen, HelpScreen))

    asyncio.run(main())
    return shown[0], closed[0]


def test_question_mark_opens_the_solo_rules_and_the_keys() -> None:
    text, closed = help_text("question_mark", solo_match(["R7 G3", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"]))
    assert "# SOLO: how to play" in text and "Jump in" in text
    assert "Keys at the table" in text and "`j`" in text
    assert "`f` / `k`" not in text.split("# SOLO")[0]
    assert closed


def test_f1_opens_the_scout_rules() -> None:
    text, closed = help_text("f1", scout_match(["9/3 2/7", "1/2 3/4", "5/6 7/8"]))
    assert "# SCOUT: how to play" in text and "SOLO" not in text.split("# SCOUT")[1]
    keys = text.split("# SCOUT")[0]
    assert "`f` / `k`" in keys and "`h`" in keys
    assert "SOLO" not in keys and "`j`" not in keys and "Protection" not in keys
    assert closed


def test_plain_answers_rules_with_the_rule_book_of_the_game() -> None:
    _, c = client(scout_match(["9/3 2/7", "1/2 3/4", "5/6 7/8"]))
    out, err = io.StringIO(), io.StringIO()
    p = PlainClient(c, out, err, bot_delay=None)
    p.feed("rules")
    assert out.getvalue() == rules_path("scout").read_text(encoding="utf-8").rstrip() + "\n"
    assert err.getvalue() == ""


def test_the_scoring_and_the_leader_are_always_on_screen() -> None:
    anniversary = solo_match(["R7 G3", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"])
    anniversary.totals = [54, 12, 80, 12]
    _, c = client(anniversary)
    assert c.scoring_line() == ("penalty points: lowest total wins, ends at 500 points"
                                " · leading: cpu 1, cpu 3 (12)")
    classic = solo_match(["R7 G3", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], edition="classic")
    classic.totals = [480, 500, 431, 499]
    _, c = client(classic)
    assert c.scoring_line().startswith("pools of 500") and c.scoring_line().endswith("leading: cpu 1 (500)")
    app = TableApp(c, bot_delay=None)
    seen: list[str] = []

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            seen.append(str(app.query_one("#scoring", Static).render()))

    asyncio.run(main())
    assert "highest pool wins" in seen[0]


def test_the_rule_books_are_in_the_repository_and_nothing_points_outside_it() -> None:
    for game in ("solo", "scout"):
        assert rules_path(game).is_file() and rules_path(game).parent == REPO / "docs"
    text = (REPO / "docs" / "rules-solo.md").read_text(encoding="utf-8")
    for option in ("gifts", "protection", "multiples", "call", "scoring", "pool", "threshold",
                   "self_jump_in", "false_catch_penalty", "mixed_stacking", "hand_size"):
        assert f"`{option}`" in text, option
    assert "`voluntary_pass`" in (REPO / "docs" / "rules-scout.md").read_text(encoding="utf-8")
    for doc in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        assert not re.search(r"\.\./shared|/work/", doc.read_text(encoding="utf-8")), doc


def test_the_command_palette_offers_the_rules() -> None:
    app = TableApp(Controller(LocalSession(solo_match(["R7 G3", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"]), 0,
                                           "heuristic")), bot_delay=None)
    titles: list[str] = []

    async def main() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            titles.extend(c.title for c in app.get_system_commands(app.screen))

    asyncio.run(main())
    assert titles[:2] == ["Rules and keys", "Hint"] and len(titles) > 2


def test_the_help_says_how_the_table_calls_you_and_draws_its_colours() -> None:
    solo, _ = help_text("question_mark", solo_match(["R7 G3", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"]))
    keys = solo.split("# SOLO")[0]
    assert "the terminal bell rings" in keys and "`--no-bell`" in keys
    assert "`cardtable config bell off`" in keys
    assert "drawn with its letter" in keys and "`NO_COLOR=1`" in keys
    scout, _ = help_text("f1", scout_match(["9/3 2/7", "1/2 3/4", "5/6 7/8"]))
    keys = scout.split("# SCOUT")[0]
    assert "the terminal bell rings" in keys and "`NO_COLOR=1`" in keys
    assert "drawn with its letter" not in keys  # SCOUT has no colours


def test_the_table_ticks_while_a_page_is_on_top_and_while_the_app_closes() -> None:
    """The table's timer keeps running while the rules are open (the game may move on meanwhile),
    and draws the table again once they close; a tick as the app closes does nothing."""
    match = scout_match(["9/3 2/7", "1/2 3/4", "5/6 7/8"])
    app = TableApp(Controller(LocalSession(match, 0, "heuristic")), bot_delay=None)
    drawn: list[bool] = []

    async def main() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            version = app.controller.session.version
            await pilot.press("f1")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            session = app.controller.session
            assert session.propose(str(session.legal()[0])) is None  # the game moves on meanwhile
            app._tick()
            app.refresh_view()
            assert app.controller.session.version != version
            await pilot.press("escape")
            await pilot.pause()
            app._tick()
            drawn.append(app._seen_version == app.controller.session.version)
            for widget in list(app.screen.query("#talk")):  # the table's widgets go as the app closes
                await widget.remove()
            app._tick()

    asyncio.run(main())
    assert drawn == [True]
