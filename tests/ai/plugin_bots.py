"""Plugin bots for the tests: one that records what it is given, and misbehaving ones."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardtable.ai.bots import RandomBot
from cardtable.engine.shuffle import Stream


class SpyBot(RandomBot):
    """A random bot that keeps its seed and every observation it is shown."""

    name = "spy"
    seen: list[tuple[bytes, int, dict[str, Any], list[str]]] = []

    def __init__(self, seed: bytes, seat: int) -> None:
        super().__init__(seed, seat)
        self.seed, self.seat = seed, seat

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any:
        SpyBot.seen.append((self.seed, self.seat, obs, [str(a) for a in legal]))
        return super().choose(obs, legal)

    def react(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        SpyBot.seen.append((self.seed, self.seat, obs, [str(a) for a in legal]))
        return super().react(obs, legal)


class RaisingBot(RandomBot):
    """Raises on every third decision."""

    name = "raising"
    calls = 0

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any:
        self.calls += 1
        if self.calls % 3 == 0:
            raise RuntimeError("a bug in the bot")
        return super().choose(obs, legal)


class IllegalBot(RandomBot):
    """Answers a move that is never legal."""

    name = "illegal"

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any:
        return "not a move"


class SloppyHeuristic:
    """The heuristic bot, except that one decision in four is a random legal move."""

    name = "sloppy"

    def __init__(self, seed: bytes, seat: int) -> None:
        from cardtable.ai.heuristic import HeuristicBot

        self.good = HeuristicBot(seed, seat)
        self.bad = RandomBot(seed, seat)
        self.rng = Stream(seed, "sloppy")

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any:
        return (self.bad if self.rng.below(4) == 0 else self.good).choose(obs, legal)

    def react(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        return self.good.react(obs, legal)


class NeedsMore:
    """Built with the wrong signature."""

    def __init__(self, seed: bytes, seat: int, depth: int) -> None:
        self.depth = depth
