"""What a bot from outside cardtable gets when it fails a decision, and the count of failures.

A plugin or process bot that raises or crashes, hangs past its time budget, or answers an
action that is not legal loses that decision: the ``heuristic`` bot (with the same seed)
chooses for it when it had to move, and it passes up an out-of-turn chance. Each fault is
counted by kind; the match goes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

FAULT_KINDS = ("crash", "timeout", "illegal")


class Fallback:
    """The faults of one bot in one match, and the moves made for it."""

    def __init__(self, seed: bytes, seat: int) -> None:
        self.seed = seed
        self.seat = seat
        self.faults: dict[str, int] = {}
        self._heuristic: Any = None

    def fault(self, kind: str, must: bool, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        """Count a fault of ``kind`` and answer the decision in the bot's place."""
        self.faults[kind] = self.faults.get(kind, 0) + 1
        return self.answer(must, obs, legal)

    def answer(self, must: bool, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        """The decision made in the bot's place: the heuristic's move, or not acting."""
        if not must:
            return None
        self.faults["fallback_moves"] = self.faults.get("fallback_moves", 0) + 1
        if self._heuristic is None:
            from cardtable.ai.heuristic import HeuristicBot

            self._heuristic = HeuristicBot(self.seed, self.seat)
        return self._heuristic.choose(obs, legal)


class GuardedBot:
    """A Python plugin bot behind the fallback: exceptions and illegal answers are faults."""

    def __init__(self, bot: Any, seed: bytes, seat: int) -> None:
        self.bot = bot
        self.name = str(getattr(bot, "name", type(bot).__name__))
        self.fallback = Fallback(seed, seat)

    @property
    def faults(self) -> dict[str, int]:
        return self.fallback.faults

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any:
        return self._ask(True, obs, legal)

    def react(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        return self._ask(False, obs, legal)

    def _ask(self, must: bool, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        try:
            action = self.bot.choose(obs, legal) if must else self.bot.react(obs, legal)
        except Exception:  # noqa: BLE001 - a plugin's bug costs it the decision, not the match
            return self.fallback.fault("crash", must, obs, legal)
        if (action is None and must) or (action is not None and action not in legal):
            return self.fallback.fault("illegal", must, obs, legal)
        return action

    def close(self) -> None:
        close = getattr(self.bot, "close", None)
        if callable(close):
            close()
