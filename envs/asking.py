"""Who is asked to act next: the turn-based face of a game where seats may act out of turn.

At each position the seats that may act out of turn (a SOLO jump-in, a late call, a catch,
a Protection that is not yet theirs to play) are offered the chance one by one, in seat
order starting after the seat the game waits for, each with a ``pass`` token; then the
waiting seat acts and may not pass. The first seat that acts wins the race and every seat
is offered again at the new position; a seat that passes is not asked again until some
action is applied. This is ``ai/driver.py``'s order for headless matches.
SCOUT's whole-hand choice is made by every seat at the same moment; here each seat makes
it when the engine waits for it (from the start player on), and no seat's observation
shows another's choice. Everything else in SCOUT is in turn.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from cardtable.envs.tokens import Trie


class Decision:
    """One seat asked at one position: its actions (``may_pass``: out of turn)."""

    __slots__ = ("actions", "codec", "may_pass", "players", "seat", "_trie")

    def __init__(self, codec: ModuleType, players: int, seat: int, actions: list[Any],
                 may_pass: bool) -> None:
        self.codec = codec
        self.players = players
        self.seat = seat
        self.actions = actions
        self.may_pass = may_pass
        self._trie: Trie | None = None

    @property
    def trie(self) -> Trie:
        if self._trie is None:
            seat, n, codec = self.seat, self.players, self.codec
            self._trie = Trie(self.actions, lambda a: codec.encode(a, seat, n),
                              codec.PASS if self.may_pass else None)
        return self._trie


class Asking:
    """The decisions of one position after another; ``applied()`` after every engine action."""

    def __init__(self, codec: ModuleType, false_catches: bool = False) -> None:
        self.codec = codec
        self.false_catches = false_catches
        self.passed: set[int] = set()
        self._current: Decision | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> Asking:
        twin = Asking(self.codec, self.false_catches)
        twin.passed = set(self.passed)
        return twin

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (self.codec.__name__, self.false_catches, sorted(self.passed)))

    def applied(self) -> None:
        """An action changed the position: every seat may be offered again."""
        self.passed.clear()
        self._current = None

    def declined(self, seat: int) -> None:
        """``seat`` passed on its out-of-turn chance at this position."""
        self.passed.add(seat)
        self._current = None

    def current(self, position: Any, state: Any, players: int) -> Decision | None:
        """The decision now (None once the position is over). ``position`` has the ``Match``
        queries (``to_move``, ``actors``, ``legal_actions``); ``state`` is the round state."""
        if self._current is None:
            self._current = self._next(position, state, players)
        return self._current

    def _legal(self, position: Any, state: Any, seat: int) -> list[Any]:
        legal = list(position.legal_actions(seat))
        return legal if self.false_catches else self.codec.open_call_catches(state, seat, legal)

    def _next(self, position: Any, state: Any, players: int) -> Decision | None:
        waiting = position.to_move()
        if waiting is None:
            return None
        if self.codec.PASS is not None:
            actors = set(position.actors())
            for k in range(1, players):
                seat = (waiting + k) % players
                if seat in actors and seat not in self.passed:
                    legal = self._legal(position, state, seat)
                    if legal:
                        return Decision(self.codec, players, seat, legal, True)
        return Decision(self.codec, players, waiting, self._legal(position, state, waiting), False)


def _restore(codec: str, false_catches: bool, passed: list[int]) -> Asking:
    """An ``Asking`` back from its pickled form (the codec by module name)."""
    asking = Asking(importlib.import_module(codec), false_catches)
    asking.passed = set(passed)
    return asking
