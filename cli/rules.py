"""The rules of each game as players read them (``docs/rules-*.md``, shipped with the package),
and the keys of the table."""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"

TABLE_KEYS = """\
## Keys at the table

| key | what it does |
|---|---|
| ↑ ↓ Enter | choose a move from the list (and the Wild's colour, the target, the cards ...) |
| Esc | back out of a move being built |
| `j` | jump in with the identical card |
| `s` | SOLO! (a late call, or the call that goes with your next play) |
| `c` | catch a player who did not call SOLO |
| `p` / `d` | play a Protection / decline |
| `f` / `k` | SCOUT: flip or keep your whole hand at the start of a round |
| `h` | a hint: what the search would do |
| `?` or F1 | these rules and keys (Esc closes) |
| `q` | leave (twice: a computer player takes your seat) |

Hot keys show in the footer only while they are legal.
"""


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
