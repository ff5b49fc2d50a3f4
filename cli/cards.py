"""Cards as Textual markup: SOLO cards in their colours, SCOUT cards with both values.

Every style is written with hex colours (Textual 8 drops Rich's colour names such as
``dark_red`` without a word); ``STYLES`` lists them all so a test can parse each one. Cards are
solid blocks of colour, so they read the same on dark and light terminals; every card keeps
its letters (``R7``, ``wild``, ``9/3``), and the swatch of the colour in force its letter too,
so that no colour has to be told apart by its hue alone. Under ``NO_COLOR`` (https://no-color.org:
any non-empty value) every style loses its colours and keeps its shape (``paint``): cards in
reverse video, black cards within their edges, the marks in bold; Textual then draws its own
colours in greys.
"""

from __future__ import annotations

import os

from rich.markup import escape

SOLO_STYLES = {
    "R": "bold #ffffff on #c62828",
    "G": "bold #ffffff on #2e7d32",
    "B": "bold #ffffff on #1565c0",
    "Y": "bold #000000 on #fdd835",
}
"""A coloured SOLO card: its colour as the background."""
BLACK_STYLE = "bold #ffffff on #000000"
"""Black cards (wild, wd4, pass) are black, with a white edge so they stand out on dark screens."""
BLACK_EDGE = "#ffffff on #000000"
LIGHTNING = {
    "R": "bold #ff5252 on #000000",
    "G": "bold #69f0ae on #000000",
    "B": "bold #40c4ff on #000000",
    "Y": "bold #ffff00 on #000000",
}
"""A Protection card: black, its lightning in its colour."""
SCOUT_UP = "bold #000000 on #f5deb3"
"""The value of a SCOUT card that counts (the top one) ..."""
SCOUT_DOWN = "#6d6d6d on #e0e0e0"
"""... and the other one, small and grey."""
TOP_MARK = "bold"
PLAYABLE = "underline"
"""Added to the style of a hand card that may be played now."""
ALARM = "bold #ff5252"
"""A missed SOLO call, on the players and the table."""

STYLES = (*SOLO_STYLES.values(), BLACK_STYLE, BLACK_EDGE, *LIGHTNING.values(), SCOUT_UP, SCOUT_DOWN, TOP_MARK,
          PLAYABLE, ALARM)

SHAPES = {
    **dict.fromkeys(SOLO_STYLES.values(), "bold reverse"), BLACK_STYLE: "bold", BLACK_EDGE: "bold",
    **dict.fromkeys(LIGHTNING.values(), "bold"), SCOUT_UP: "bold reverse", SCOUT_DOWN: "dim", ALARM: "bold",
}
"""Each style with colours as it is under ``NO_COLOR``: its shape alone."""


def no_color() -> bool:
    """Whether ``NO_COLOR`` asks for no colour (set to any non-empty value)."""
    return bool(os.environ.get("NO_COLOR"))


def paint(style: str) -> str:
    """``style``, or under ``NO_COLOR`` its shape without colours (``SHAPES``)."""
    return SHAPES.get(style, style) if no_color() else style


def solo_card(text: str, playable: bool = False) -> str:
    """Markup for one SOLO card (``R7``, ``wild``, ``protB``): 2 cells wider than its text;
    ``playable``: underlined (a card you may play now)."""
    mark = f" {PLAYABLE}" if playable else ""
    if text.startswith("prot"):
        colour = text[4:]
        return f"[{paint(LIGHTNING.get(colour, BLACK_STYLE))}{mark}] ⚡{escape(colour)} [/]"
    style = SOLO_STYLES.get(text[:1])
    if style is None:  # wild, wd4, pass
        edge = paint(BLACK_EDGE)
        return f"[{edge}]▌[/][{paint(BLACK_STYLE)}{mark}]{escape(text)}[/][{edge}]▐[/]"
    return f"[{paint(style)}{mark}] {escape(text)} [/]"


def top_card(text: str) -> str:
    """The discard pile's top card, framed by arrows so it cannot be mistaken for a hand card."""
    return f"[{TOP_MARK}]▶[/]{solo_card(text)}[{TOP_MARK}]◀[/]"


def colour_in_force(colour: str | None, names: dict[str, str]) -> str:
    """``B blue in force`` with the swatch (its letter on its colour); ``any card fits`` without one."""
    if colour is None:
        return "any card fits"
    return f"[{paint(SOLO_STYLES[colour])}] {escape(colour)} [/] [b]{escape(names[colour])}[/b] in force"


def scout_card(text: str) -> str:
    """Markup for a SCOUT card ``up/down`` (5 cells): the value that counts bold on light
    wheat, the other one grey."""
    up, _, down = text.partition("/")
    return f"[{paint(SCOUT_UP)}]{escape(up):>2}[/][{paint(SCOUT_DOWN)}]/{escape(down):<2}[/]"


def alarm(markup: str) -> str:
    """``markup`` in the alarm style (a missed SOLO call)."""
    return f"[{paint(ALARM)}]{markup}[/]"
