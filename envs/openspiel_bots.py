"""Any cardtable bot as an OpenSpiel bot, to fill seats of ``cardtable_solo`` / ``cardtable_scout``.

``CardtableBot(seat, "ismcts:strong")`` asks the bot for an engine action when its seat is
asked (``choose`` when the game waits for it, ``react`` when it is offered an out-of-turn
chance, None meaning ``pass``) and says the action's tokens one step at a time. It sees only
its seat's observation.
"""

from __future__ import annotations

from typing import Any

import pyspiel

from cardtable.ai.bots import make_bot


class CardtableBot(pyspiel.Bot):  # type: ignore[misc]
    """A cardtable bot (``random``, ``heuristic``, ``ismcts:fast`` ...) in one OpenSpiel seat."""

    def __init__(self, seat: int, spec: str, seed: bytes = b"openspiel") -> None:
        pyspiel.Bot.__init__(self)
        self.seat = seat
        self.spec = spec
        self.bot = make_bot(spec, seed, seat)
        self._plan: list[int] = []

    def player_id(self) -> int:
        return self.seat

    def restart_at(self, state: Any) -> None:
        self._plan = []

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        pass

    def step(self, state: Any) -> int:
        position = state.p
        if not position.path:
            self._plan = self._choose(position)
        return self._plan.pop(0)

    def _choose(self, position: Any) -> list[int]:
        decision = position.decision()
        if decision is None or decision.seat != self.seat:
            raise ValueError(f"seat {self.seat} is not asked to act now")
        obs = position.engine_observation(self.seat)
        legal = position.round.legal_actions(self.seat)
        action = self.bot.react(obs, legal) if decision.may_pass else self.bot.choose(obs, legal)
        codec = position.g.codec
        if action is not None and str(action) not in {str(a) for a in decision.actions}:
            if not decision.may_pass:
                raise ValueError(f"bot {self.spec} chose {action}, which this game does not offer")
            action = None  # a catch the game does not offer (false_catches off): pass instead
        if action is None:
            return [codec.PASS]
        return list(codec.encode(action, self.seat, position.n))
