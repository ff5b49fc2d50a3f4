"""The SCOUT rule set: the player count and the two-player option (docs/rules.md 2.1, 2.6.3, 2.7)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cardtable.engine.errors import ParseError

MIN_PLAYERS = 2
MAX_PLAYERS = 5


OPTIONS = ("voluntary_pass",)
"""The named rulings that are options (docs/rules.md 2.7.4), all off by default."""


@dataclass(frozen=True)
class Config:
    """SCOUT for 2..5 players. The match has one round per player (2 rounds for 2 players).

    ``voluntary_pass`` (two players only, off by default): a player may pass instead of
    showing or scouting; the round then ends as if that player could neither show nor scout.
    """

    players: int
    game: str = "scout"
    voluntary_pass: bool = False

    def __post_init__(self) -> None:
        if self.game != "scout":
            raise ParseError(f"a SCOUT config has game 'scout', not {self.game!r}")
        p = self.players
        if type(p) is not int or not MIN_PLAYERS <= p <= MAX_PLAYERS:
            raise ParseError(f"SCOUT is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {p!r}")
        if type(self.voluntary_pass) is not bool:
            raise ParseError(f"voluntary_pass must be true or false, not {self.voluntary_pass!r}")
        if self.voluntary_pass and p != 2:
            raise ParseError("voluntary_pass is a two-player option")

    @property
    def rounds(self) -> int:
        """Rounds in a match: one per player, two for two players."""
        return self.players

    def describe(self) -> str:
        return f"SCOUT, {self.players} players" + (", voluntary pass" if self.voluntary_pass else "")

    def to_dict(self) -> dict[str, Any]:
        """``game``, ``players``, and each option that is on (an option left out is off, so
        the plain form of a config without options is what it was before options existed)."""
        data: dict[str, Any] = {"game": self.game, "players": self.players}
        data.update({name: True for name in OPTIONS if getattr(self, name)})
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Config:
        """The config from ``to_dict()`` form; missing, unknown or bad fields raise ParseError."""
        if not isinstance(data, dict):
            raise ParseError(f"a SCOUT config must be a map, not {type(data).__name__}")
        keys = set(data)
        required = {"game", "players"}
        if not required <= keys or keys - required - set(OPTIONS):
            missing = sorted(map(str, required - keys))
            unknown = sorted(map(str, keys - required - set(OPTIONS)))
            raise ParseError(f"bad SCOUT config keys: missing {missing}, unknown {unknown}")
        return cls(players=data["players"], game=data["game"],
                   voluntary_pass=data.get("voluntary_pass", False))

    def initial_totals(self) -> list[int]:
        return [0] * self.players

    def match_over(self, totals: Sequence[int], rounds_played: int) -> bool:
        return rounds_played >= self.rounds

    def winners(self, totals: Sequence[int]) -> list[int]:
        """Every seat with the highest total (ties share the win)."""
        best = max(totals)
        return [seat for seat, total in enumerate(totals) if total == best]
