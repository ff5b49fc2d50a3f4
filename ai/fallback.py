"""What a bot from outside cardtable gets when it fails a decision, and the count of failures.

A plugin or process bot that raises or crashes, hangs past its time budget, or answers an
action that is not legal loses that decision: the ``heuristic`` bot (with the same seed)
chooses for it when it had to move, and it passes up an out-of-turn chance. Each fault is
counted by kind, and the first of each kind is kept as an example (what the bot was asked,
what it answered or how it failed: the traceback, the exit code); the match goes on.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from typing import Any

from cardtable.ai import bot_logs

FAULT_KINDS = ("crash", "timeout", "illegal")
LEGAL_SHOWN = 20
"""How many of the legal actions a fault's example lists (it gives their number too)."""


class Fallback:
    """The faults of one bot in one match, and the moves made for it."""

    def __init__(self, seed: bytes, seat: int) -> None:
        self.seed = seed
        self.seat = seat
        self.faults: dict[str, int] = {}
        self.examples: dict[str, dict[str, Any]] = {}
        self._heuristic: Any = None

    def fault(self, kind: str, must: bool, obs: dict[str, Any], legal: Sequence[Any],
              detail: dict[str, Any] | None = None) -> Any | None:
        """Count a fault of ``kind`` (its first one kept in ``examples``, with ``detail``: ``error``,
        ``answer``, ``line``, ``traceback``, ``exit_code``, ``stopped``), tell the listeners
        (``ai.bot_logs.on_fault``), and answer the decision in the bot's place."""
        self.faults[kind] = self.faults.get(kind, 0) + 1
        example = {"kind": kind, "count": self.faults[kind], "decision": "choose" if must else "react",
                   "round": obs.get("round"), "legal": [str(a) for a in legal[:LEGAL_SHOWN]],
                   "legal_count": len(legal), **(detail or {})}
        self.examples.setdefault(kind, example)
        bot_logs.tell(self.seat, example)
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

    @property
    def fault_examples(self) -> dict[str, dict[str, Any]]:
        return self.fallback.examples

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any:
        return self._ask(True, obs, legal)

    def react(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        return self._ask(False, obs, legal)

    def _ask(self, must: bool, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        try:
            action = self.bot.choose(obs, legal) if must else self.bot.react(obs, legal)
        except Exception as err:  # noqa: BLE001 - a plugin's bug costs it the decision, not the match
            trace = err.__traceback__.tb_next if err.__traceback__ else None  # from the bot's own frame
            return self.fallback.fault("crash", must, obs, legal, {
                "error": f"{type(err).__name__}: {err}",
                "traceback": "".join(traceback.format_exception(type(err), err, trace))})
        if (action is None and must) or (action is not None and action not in legal):
            return self.fallback.fault("illegal", must, obs, legal, {
                "error": f"it answered {action!r}, not one of the legal actions", "answer": _plain(action)})
        return action

    def close(self) -> None:
        close = getattr(self.bot, "close", None)
        if callable(close):
            close()


def _plain(value: Any) -> Any:
    """An answer as JSON can hold it (an action object as its text)."""
    return value if value is None or isinstance(value, str | int | float | bool) else str(value)
