"""The rule-based computer player for both games: a sensible casual player.

``HeuristicBot`` dispatches on ``obs["game"]`` to ``ai.heuristic_solo`` or
``ai.heuristic_scout``; docs/ai.md ("The heuristic bots") gives the rules of thumb. It sees
only its observation and its legal actions, and draws its only randomness (tie-breaks)
from its own ``engine.shuffle.Stream(seed, "bot/heuristic/<seat>")``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardtable.ai import heuristic_scout, heuristic_solo
from cardtable.engine.shuffle import Stream

_GAMES = {"solo": heuristic_solo, "scout": heuristic_scout}


class HeuristicBot:
    """Rule-based play: ``choose`` returns one of ``legal``; ``react`` one of ``legal`` or None."""

    name = "heuristic"

    def __init__(self, seed: bytes, seat: int) -> None:
        self.seat = seat
        self.rng = Stream(seed, f"bot/heuristic/{seat}")

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any:
        if not legal:
            raise ValueError("choose needs at least one legal action")
        return _GAMES[obs["game"]].choose(obs, legal, self.rng)

    def react(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        if not legal:
            return None
        return _GAMES[obs["game"]].react(obs, legal, self.rng)
