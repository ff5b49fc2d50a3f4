"""The strong computer player: information-set MCTS in ai/_search.pyx behind the bot interface.

Levels are iteration budgets, so a seeded match plays the same on every machine however
fast it is: ``fast`` 500, ``normal`` 3,000, ``strong`` 20,000 iterations per decision. Their
CPU time per decision and whether each wins more than the one below are measured by
``bench/ladder.py`` (docs/ai.md, "Does more thinking win more?"). The search's other
settings are its per-game defaults (``ai._search.SEARCH_DEFAULTS``).
SOLO calls and catches need no search: the bot calls whenever a call is due and catches
exactly the missed calls it saw. Everything else it searches, out-of-turn plays included
(the root then also offers "not now").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardtable.ai.catches import genuine_catches
from cardtable.engine.errors import ParseError
from cardtable.engine.shuffle import Stream

LEVELS = {"fast": 500, "normal": 3_000, "strong": 20_000}


class IsmctsBot:
    """Searches from its own observation only; its randomness is its own seeded stream."""

    name = "ismcts"

    def __init__(self, seed: bytes, seat: int, level: str = "normal") -> None:
        if level not in LEVELS:
            raise ParseError(f"unknown ismcts level {level!r}: choose {', '.join(LEVELS)}")
        try:
            from cardtable.ai._search import search
        except ImportError:  # only without the compiled extension (tests/packaging)
            problem = ("the ismcts bot needs the compiled search, which was not built when cardtable was "
                       "installed (no C compiler?): install a C compiler and the Python headers "
                       "(e.g. apt-get install gcc python3-dev), then reinstall cardtable")
            raise ParseError(problem) from None
        self._search = search
        self.seat = seat
        self.level = level
        self.iterations = LEVELS[level]
        self.rng = Stream(seed, f"bot/ismcts/{seat}")
        self.last_stats: dict[str, Any] = {}

    def _run(self, obs: dict[str, Any], wait: bool) -> str | None:
        seed = self.rng.below(2**63)
        text, stats = self._search(obs["game"], obs, obs["config"], self.seat,
                                   iterations=self.iterations, seed=seed, wait=wait)
        self.last_stats = stats
        return text  # type: ignore[no-any-return]

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any:
        if len(legal) == 1:
            return legal[0]
        moves = {str(a): a for a in legal}
        text = self._run(obs, wait=False)
        if text not in moves:
            raise RuntimeError(f"the search proposed {text!r}, which is not legal here")
        return moves[text]

    def react(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        moves = {str(a): a for a in legal}
        if "solo" in moves:
            return moves["solo"]
        catches = genuine_catches(obs, legal)
        if catches:
            return catches[0]
        plays = [a for a in legal if not str(a).startswith("catch:")]
        if not plays:
            return None
        if obs["game"] == "scout":  # the whole-hand turn: decide now, there is no "not now"
            return self.choose(obs, plays)
        text = self._run(obs, wait=True)
        return None if text is None else moves.get(text)
