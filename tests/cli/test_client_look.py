"""What the table looks like: the rendered styles of the hand, the top card and the SCOUT cards
(colours that Textual drops without a word would leave every card light grey)."""

from __future__ import annotations

import asyncio
from typing import Any

from rich.color import Color
from rich.segment import Segment
from textual.style import Style
from textual.widget import Widget

from cardtable.cli.cards import STYLES
from cardtable.cli.controller import Controller, LocalSession
from cardtable.cli.tui import TableApp
from cardtable.engine.match import Match
from tests.cli.test_client_controller import scout_match, solo_match


def rendered(match: Match, widget_id: str, size: tuple[int, int] = (120, 40)) -> list[Segment]:
    """The segments a widget of the table for seat 0 renders (its content region)."""
    app = TableApp(Controller(LocalSession(match, 0, "heuristic")), bot_delay=None)
    out: list[Segment] = []

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            widget = app.query_one(widget_id, Widget)
            for y in range(widget.size.height):
                out.extend(widget.render_line(y))

    asyncio.run(main())
    return out


def style_of(segments: list[Segment], text: str) -> Any:
    """The style of the first segment that holds ``text``."""
    for seg in segments:
        if text in seg.text:
            return seg.style
    raise AssertionError(f"{text!r} is not rendered: {''.join(s.text for s in segments)!r}")


def rgb(color: Color | None) -> tuple[int, int, int]:
    assert color is not None, "no colour at all"
    t = color.get_truecolor()
    return (t.red, t.green, t.blue)


def hue(color: Color | None) -> str:
    """Which of the four SOLO colours (or black/grey) an RGB colour is closest to."""
    r, g, b = rgb(color)
    if max(r, g, b) - min(r, g, b) < 40:
        return "black" if max(r, g, b) < 80 else "grey"
    if r > 150 and g > 150 and b < 120:
        return "yellow"
    return {0: "red", 1: "green", 2: "blue"}[max(range(3), key=lambda i: (r, g, b)[i])]


def test_every_card_style_parses_in_textual() -> None:
    for style in STYLES:
        Style.parse(style)  # raises on a colour name Textual does not know


def test_solo_hand_cards_have_their_colours_and_black_cards_are_distinct() -> None:
    match = solo_match(["R7 G3 B2 Y4 wild protB", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"])
    hand = rendered(match, "#hand")
    assert [hue(style_of(hand, t).bgcolor) for t in ("R7", "G3", "B2", "Y4")] == ["red", "green", "blue",
                                                                                   "yellow"]
    assert hue(style_of(hand, "wild").bgcolor) == "black"
    assert hue(style_of(hand, "⚡B").color) == "blue"  # Protection: its lightning in its colour
    for text in ("R7", "Y4", "wild"):  # the letters stand out from the card
        style = style_of(hand, text)
        assert rgb(style.color) != rgb(style.bgcolor) and style.bold
    # on R5, R7 and the wild may be played now: they are underlined, the others not
    assert [bool(style_of(hand, t).underline) for t in ("R7", "G3", "B2", "Y4", "wild")] \
        == [True, False, False, False, True]


def test_the_top_card_and_the_colour_in_force_are_unmistakable() -> None:
    table = rendered(solo_match(["R7 G3", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], discard="G5"), "#table")
    assert hue(style_of(table, "G5").bgcolor) == "green"
    text = "".join(s.text for s in table)
    assert "▶ G5 ◀" in text and "green in force" in text
    swatch = [s for s in table if s.text == "  " and s.style is not None and s.style.bgcolor is not None
              and hue(s.style.bgcolor) == "green"]
    assert swatch, "no swatch of the colour in force"


def test_scout_cards_show_both_values_and_which_counts() -> None:
    match = scout_match(["9/3 2/7", "1/2 3/4", "5/6 7/8"], active="4/8", owner=1)
    hand = rendered(match, "#hand")
    text = "".join(s.text for s in hand)
    assert " 9/3 " in text and " 2/7 " in text
    up, down = style_of(hand, " 9"), style_of(hand, "/3")
    assert up.bold and not down.bold
    assert rgb(up.bgcolor) != rgb(down.bgcolor)  # the value that counts sits on another colour
    active = style_of(rendered(match, "#table"), " 4")
    assert active.bold and rgb(active.bgcolor) == rgb(up.bgcolor)


def test_both_open_solo_windows_are_marked_in_red() -> None:
    """RULES 1.8.17: after a Protection against a Swap, the swapper and the protector both owe a
    call; each is marked, in bold red, in the players pane and on the table."""
    match = solo_match(["Rswap B1", "protB G1", "Y1 Y2 Y3"], discard="R6")
    match.apply(0, match.parse_action("Rswap:1"))
    match.apply(1, match.parse_action("protB"))
    for pane, words in (("#players", "no SOLO call!"), ("#table", "has not called SOLO")):
        marks = [s for s in rendered(match, pane) if words in s.text]
        assert len(marks) == 2, pane
        assert all(hue(s.style.color) == "red" and s.style.bold for s in marks), pane
