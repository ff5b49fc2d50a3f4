"""A complete cardtable bot in Python, for both games: ``--bots examples/python_bot.py:SheddingBot``.

It sheds as many cards as it can: in SOLO it plays the action that lays the most cards
(calling SOLO whenever a play offers it, never drawing while it can play), calls a late
SOLO at once and catches only a missed call it saw; in SCOUT it shows the longest span it
can and scouts otherwise. Ties are broken by its own seeded random stream, so a seeded
match plays the same every time. It imports nothing from cardtable: a bot is any class
built as ``Class(seed, seat)`` with ``choose`` and ``react`` (docs/bots.md).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any


class SheddingBot:
    name = "shedding"

    def __init__(self, seed: bytes, seat: int) -> None:
        self.seat = seat
        self.rng = random.Random(seed)  # the only randomness: seeded from what the bot is given

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any:
        """The game waits for this seat: return one of ``legal``."""
        best = self._best(obs, legal)
        return best if best is not None else self.rng.choice(list(legal))

    def react(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        """This seat may act out of turn: return one of ``legal``, or None to let it pass."""
        texts = {str(a): a for a in legal}
        if "solo" in texts:
            return texts["solo"]
        solo = obs.get("solo")
        if solo and not solo["called"] and f"catch:{solo['seat']}" in texts:
            return texts[f"catch:{solo['seat']}"]
        if obs["game"] == "scout" and "keep" in texts:
            return texts["keep"]
        return None

    def _best(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        scored = [(self._value(obs["game"], str(a)), self.rng.random(), i) for i, a in enumerate(legal)]
        value, _, index = max(scored)
        return legal[index] if value > float("-inf") else None

    @staticmethod
    def _value(game: str, text: str) -> float:
        if game == "solo":
            if text.startswith("catch:") or text == "solo":
                return float("-inf")  # handled in react; never a false catch
            if text in ("draw", "keep", "decline"):
                return 0.0
            return 10.0 * (text.count("+") + 1) + (1.0 if text.endswith("!") else 0.0)
        if text.startswith("show:"):
            span = text[5:].split("-")
            return 10.0 * (int(span[-1]) - int(span[0]) + 1)
        if text in ("flip", "keep"):
            return 0.0
        return 1.0 if "+show:" in text else 0.5  # a scout (and show) when no show is better
