"""The SCOUT rule set: only the player count varies (RULES.md 2.1, 2.6.3, 2.7)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.errors import ParseError

MIN_PLAYERS = 2
MAX_PLAYERS = 5


@dataclass(frozen=True)
class Config:
    """SCOUT for 2..5 players. The match has one round per player (2 rounds for 2 players)."""

    players: int
    game: str = "scout"

    def __post_init__(self) -> None:
        if self.game != "scout":
            raise ParseError(f"a SCOUT config has game 'scout', not {self.game!r}")
        p = self.players
        if type(p) is not int or not MIN_PLAYERS <= p <= MAX_PLAYERS:
            raise ParseError(f"SCOUT is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {p!r}")

    @property
    def rounds(self) -> int:
        """Rounds in a match: one per player, two for two players."""
        return self.players

    def describe(self) -> str:
        return f"SCOUT, {self.players} players"

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "players": self.players}

    @classmethod
    def from_dict(cls, data: Any) -> Config:
        """The config from ``to_dict()`` form; missing, unknown or bad fields raise ParseError."""
        if not isinstance(data, dict):
            raise ParseError(f"a SCOUT config must be a map, not {type(data).__name__}")
        keys = set(data)
        if keys != {"game", "players"}:
            missing = sorted(map(str, {"game", "players"} - keys))
            unknown = sorted(map(str, keys - {"game", "players"}))
            raise ParseError(f"bad SCOUT config keys: missing {missing}, unknown {unknown}")
        return cls(players=data["players"], game=data["game"])

    def initial_totals(self) -> list[int]:
        return [0] * self.players

    def match_over(self, totals: Sequence[int], rounds_played: int) -> bool:
        return rounds_played >= self.rounds

    def winners(self, totals: Sequence[int]) -> list[int]:
        """Every seat with the highest total (ties share the win)."""
        best = max(totals)
        return [seat for seat, total in enumerate(totals) if total == best]
