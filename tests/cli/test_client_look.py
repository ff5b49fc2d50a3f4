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
from cardtable.cli.controller import Controller
from cardtable.cli.session import LocalSession
from cardtable.cli.tui import TableApp
from cardtable.engine.match import Match
from cardtable.engine.scout import Config as ScoutConfig
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
    swatch = [s for s in table if s.text == " G " and s.style is not None and s.style.bgcolor is not None
              and hue(s.style.bgcolor) == "green"]
    assert swatch, "no swatch of the colour in force, with its letter"


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
    """docs/rules.md 1.8.17: after a Protection against a Swap, the swapper and the protector both owe a
    call; each is marked, in bold red, in the players pane and on the table."""
    match = solo_match(["Rswap B1", "protB G1", "Y1 Y2 Y3"], discard="R6")
    match.apply(0, match.parse_action("Rswap:1"))
    match.apply(1, match.parse_action("protB"))
    for pane, words in (("#players", "no SOLO call!"), ("#table", "has not called SOLO")):
        marks = [s for s in rendered(match, pane) if words in s.text]
        assert len(marks) == 2, pane
        assert all(hue(s.style.color) == "red" and s.style.bold for s in marks), pane


EVERY_KIND = "R7 Gskip Brev Yd2 Rswap Ggift protR protG protB protY wild wd4 pass"
"""A hand with a card of every kind (the four colours, the actions, the Protections, the black ones)."""


def test_every_colour_on_the_table_carries_its_letter() -> None:
    """For colour-blind players: wherever one of SOLO's colours is drawn (a card, a Protection's
    lightning, the swatch of the colour a Wild named), its letter is drawn with it."""
    match = solo_match([EVERY_KIND, "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], discard="R5 wild", colour="B")
    letters = {"red": "R", "green": "G", "blue": "B", "yellow": "Y"}
    seen = set()
    for pane in ("#hand", "#table"):
        for seg in rendered(match, pane):
            if seg.style is None or not seg.text.strip() or seg.text.strip("─│╭╮╰╯ ") == "":
                continue
            for colour in (seg.style.color, seg.style.bgcolor):
                if colour is not None and hue(colour) in letters:
                    seen.add(hue(colour))
                    assert letters[hue(colour)] in seg.text, (pane, seg)
    assert seen == set(letters)
    table = "".join(s.text for s in rendered(match, "#table"))
    assert "▶▌wild▐◀" in table and " B  blue in force" in table


def test_no_color_draws_shapes_not_colours(monkeypatch: Any) -> None:
    """``NO_COLOR`` (any non-empty value): Textual draws in greys, and the cards keep their shapes
    and letters with no colour of their own: coloured cards in reverse video, black cards within
    their edges, the value of a SCOUT card that counts in reverse, the other one dim."""
    monkeypatch.setenv("NO_COLOR", "1")
    match = solo_match([EVERY_KIND, "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], discard="R5 G5", colour="G")
    hand, table = rendered(match, "#hand"), rendered(match, "#table")
    base = style_of(hand, " ")  # the pane's own colours
    for text in ("R7", "Gskip", "Yd2", " G "):
        style = style_of(hand if text != " G " else table, text)
        assert style.reverse and style.bold, text
        assert (style.color, style.bgcolor) == (base.color, base.bgcolor), text
    for text in ("⚡B", "wild", "▌"):
        style = style_of(hand, text)
        assert not style.reverse and (style.color, style.bgcolor) == (base.color, base.bgcolor), text
    scout = rendered(scout_match(["9/3 2/7", "1/2 3/4", "5/6 7/8"]), "#hand")
    assert style_of(scout, " 9").reverse and style_of(scout, "/3").dim
    monkeypatch.setenv("NO_COLOR", "")  # empty: colours as usual (no-color.org)
    assert hue(style_of(rendered(match, "#hand"), "R7").bgcolor) == "red"


def test_the_players_and_the_table_break_between_phrases_at_80_by_24() -> None:
    """At 80x24 a line too long for its pane goes on under itself, broken between two phrases,
    never inside one ("11 cards", "0 captured", "yellow in force", "draw pile 74")."""
    match = Match(ScoutConfig(players=5), b"look-80")
    names = ["you", "Bea", "Cyrus", "Dagmar", "Bartholomew"]
    session = LocalSession(match, 0, "heuristic", names=names)
    app = TableApp(Controller(session), bot_delay=None)
    lines: dict[str, list[str]] = {}

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            for pane in ("#players", "#table"):
                widget = app.query_one(pane, Widget)
                lines[pane] = [widget.render_line(y).text for y in range(widget.size.height)]

    asyncio.run(main())
    players = lines["#players"]
    starts = [next(i for i, line in enumerate(players) if f"{name} (seat {s}" in line)
              for s, name in enumerate(names)]
    assert starts == sorted(starts) and len(players) > len(names)  # some players' lines go on under
    for s, name in enumerate(names):
        own = players[starts[s]:starts[s + 1] if s + 1 < len(names) else None]  # this player's lines
        label = f"{name} (seat {s}):" if s == 0 else f"{name} (seat {s}, cpu):"
        for phrase in (label, "9 cards", "0 pts", "0 captured", "0 chips"):
            assert any(phrase in line for line in own), (phrase, own)
    solo = solo_match(["R7 G3", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], discard="Y5", colour="Y")
    app = TableApp(Controller(LocalSession(solo, 0, "heuristic", names=names[:4])), bot_delay=None)
    asyncio.run(main())
    for phrase in ("top ▶ Y5 ◀", "yellow in force", "direction → clockwise", "draw pile"):
        assert any(phrase in line for line in lines["#table"]), (phrase, lines["#table"])


def test_a_long_hand_goes_on_under_itself_whole_cards_at_80_by_24() -> None:
    """A SCOUT hand wider than the pane goes on on the next line with each card whole and its
    place right under it; a long SOLO hand never cuts a card."""
    import re

    scout_hand = "9/3 2/7 1/4 5/8 6/2 3/5 7/1 8/6 4/9 5/7 2/3 6/7 1/9 4/6"
    hands = {"scout": scout_match([scout_hand, "1/2 3/4", "5/6 7/8"]),
             "solo": solo_match(["Rskip Rrev Rswap Rgift Gskip Grev Gswap Ggift Bskip Brev Bswap Bgift "
                                 "Yskip Yrev Yswap Ygift wild wd4 pass", "G1", "B1", "Y1"])}
    lines: dict[str, list[str]] = {}
    for game, match in hands.items():
        app = TableApp(Controller(LocalSession(match, 0, "heuristic")), bot_delay=None)

        async def main(app: TableApp = app, game: str = game) -> None:
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.pause()
                widget = app.query_one("#hand", Widget)
                lines[game] = [widget.render_line(y).text.rstrip() for y in range(widget.size.height)]

        asyncio.run(main())
    scout = lines["scout"]
    assert len(scout) == 4, scout  # two lines of cards, each with its places under it
    places = 0
    for cards, under in zip(scout[::2], scout[1::2], strict=True):
        shown = list(re.finditer(r"\d+/\d+", cards))
        numbers = list(re.finditer(r"\d+", under))
        assert [int(n.group()) for n in numbers] == list(range(places, places + len(shown))), (cards, under)
        for card, number in zip(shown, numbers, strict=True):
            assert card.start() - 1 <= number.start() and number.end() <= card.end() + 1, (cards, under)
        places += len(shown)
    assert places == len(scout_hand.split())
    solo = lines["solo"]
    assert len(solo) > 1 and sorted(" ".join(solo).replace("▌", " ").replace("▐", " ").split()) \
        == sorted(hands["solo"].observation(0)["hand"])
