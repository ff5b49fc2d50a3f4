"""The bot interface and the bots that need no search.

A bot is asked in two ways: ``choose`` when the game waits for its seat (it must return
one of the legal actions), and ``react`` when it merely *may* act out of turn (a jump-in,
a SOLO call or catch, a Protection, a SCOUT hand turn): it returns an action or None.
Bots draw randomness only from their own seeded ``engine.shuffle.Stream``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ai.catches import genuine_catches
from engine.errors import ParseError
from engine.shuffle import Stream


class Bot(Protocol):
    name: str

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any: ...

    def react(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None: ...


def _is_meta(action: Any) -> bool:
    text = str(action)
    return text.startswith("catch:") or text == "solo"


class RandomBot:
    """Uniformly random moves; calls SOLO when due and catches only missed calls it saw.

    Out of turn it jumps in, protects or turns a SCOUT hand with probability 1/2, so that
    random play still exercises every out-of-turn rule.
    """

    name = "random"

    def __init__(self, seed: bytes, seat: int) -> None:
        self.rng = Stream(seed, f"bot/random/{seat}")

    def _pick(self, options: Sequence[Any]) -> Any:
        return options[self.rng.below(len(options))]

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any:
        moves = [a for a in legal if not _is_meta(a)]
        return self._pick(moves or list(legal))

    def react(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        if any(str(a) == "solo" for a in legal):
            return next(a for a in legal if str(a) == "solo")
        catches = genuine_catches(obs, legal)
        if catches:
            return catches[0]
        moves = [a for a in legal if not _is_meta(a)]
        if moves and self.rng.below(2):
            return self._pick(moves)
        return None


def _heuristic(seed: bytes, seat: int, level: str) -> Bot:
    from ai.heuristic import HeuristicBot

    return HeuristicBot(seed, seat)


def _ismcts(seed: bytes, seat: int, level: str) -> Bot:
    from ai.ismcts import IsmctsBot

    return IsmctsBot(seed, seat, level or "normal")


BOTS: dict[str, Callable[[bytes, int, str], Bot]] = {
    "random": lambda seed, seat, level: RandomBot(seed, seat),
    "heuristic": _heuristic,
    "ismcts": _ismcts,
}
LEVELS = {"random": ("",), "heuristic": ("",), "ismcts": ("", "fast", "normal", "strong")}


def parse_bot_spec(spec: str) -> tuple[str, str]:
    """``name`` or ``name:level`` → (name, level); raises ParseError for unknown bots."""
    name, _, level = spec.strip().partition(":")
    if name not in BOTS:
        raise ParseError(f"unknown bot {name!r}: choose from {', '.join(sorted(BOTS))}")
    if level not in LEVELS[name]:
        levels = [lv for lv in LEVELS[name] if lv]
        choice = f"choose {', '.join(levels)}" if levels else "it has no levels"
        raise ParseError(f"unknown level {level!r} for bot {name!r}: {choice}")
    return name, level


def make_bot(spec: str, seed: bytes, seat: int) -> Bot:
    """A bot from its spec (``random``, ``heuristic``, ``ismcts:fast`` ...)."""
    name, level = parse_bot_spec(spec)
    return BOTS[name](seed, seat, level)
