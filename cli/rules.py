"""The rules of each game as players read them (``docs/rules-*.md``, shipped with the package),
and the keys of the table."""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"

# (games the key belongs to, key, what it does); "" = every game
_KEYS = [
    ("", "↑ ↓ Enter", "choose a move from the list, then its details (a colour, a target, cards ...)"),
    ("", "Esc", "back out of a move being built"),
    ("solo", "`j`", "jump in with the identical card"),
    ("solo", "`s`", "SOLO! (a late call, or the call that goes with your next play)"),
    ("solo", "`c`", "catch a player who did not call SOLO"),
    ("solo", "`p` / `d`", "play a Protection / decline"),
    ("scout", "`f` / `k`", "flip or keep your whole hand at the start of a round"),
    ("", "`h`", "a hint: what the search would do, in words, and the cursor on that move in the list"),
    ("", "`v`", "once a round has ended: your moves in it that the search rates clearly worse"),
    ("", "`u`", "against computer players (`play`), once you have moved: take your last move back, "
                "their replies with it (never at a LAN table)"),
    ("", "`t`", "at a LAN table: talk to the table (Enter says it, Esc takes it back)"),
    ("", "`n` / `x` / `o`", "the host, in the lobby: start now (computer players in the free seats) / "
                            "free a seat (choose which) / the options form (players, computer seats, how "
                            "long the match runs, the rules options; Enter sets them, Esc cancels)"),
    ("", "`r`", "once the match is over: agree to a rematch"),
    ("", "`?` or F1", "these rules and keys (Esc closes)"),
    ("", "`q`", "leave (twice: at a LAN table a computer player takes your seat; `play` keeps the match)"),
]


# (games the note belongs to, note); "" = every game
_NOTES = [
    ("", "Hot keys show in the footer only while they are legal."),
    ("", "New to the game? `cardtable learn solo` (or `scout`) plays a short first round with tips in "
         "*What happened*."),
    ("", "When the game begins to wait for you, the terminal bell rings and the window title says "
         "*▶ your turn*: at a LAN table (`host`, `join`) unless turned off (`--no-bell`, or `cardtable "
         "config bell off`), against computer players (`play`) only if turned on (`--bell`)."),
    ("solo", "Every SOLO colour is drawn with its letter (`R7`, `⚡B`, the swatch of the colour in force "
             "`B`), so no colour has to be told apart by its hue alone."),
    ("", "`NO_COLOR=1` (any value but empty) draws the table without colours: in greys, the cards in "
         "reverse video, the black ones within their edges."),
]


def table_keys(game: str) -> str:
    """The keys of the table as Markdown, and how the table calls you and draws its colours:
    those of ``game`` (``solo``/``scout``), or all of them before the deal (empty ``game``)."""
    rows = [f"| {key} | {text} |" for games, key, text in _KEYS if not game or not games or games == game]
    notes = [text for games, text in _NOTES if not game or not games or games == game]
    return "\n".join(["## Keys at the table", "", "| key | what it does |", "|---|---|", *rows, "",
                      *[line for text in notes for line in (text, "")]])


def rules_path(game: str) -> Path:
    """The player's rule book of ``game`` (``solo`` or ``scout``)."""
    return DOCS / f"rules-{game}.md"


def rules_text(game: str) -> str:
    """The rule book of ``game`` as Markdown, or one line saying where it should have been."""
    path = rules_path(game)
    try:
        return path.read_text(encoding="utf-8")
    except OSError as err:
        return f"The rules of {game} are missing from this installation ({path}: {err.strerror})."
