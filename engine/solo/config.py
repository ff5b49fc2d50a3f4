"""The SOLO rule set: the two edition presets and every option on its own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from cardtable.engine.errors import ParseError

EDITIONS = ("classic", "anniversary")
CALL_MODES = ("with_play", "window")
SCORINGS = ("pool", "penalty")
HAND_SIZE = 8
SOLO_PENALTY = 2
MAX_PLAYERS = 10
"""The most seats a SOLO table has."""


@dataclass(frozen=True)
class Config:
    """A frozen SOLO rule set. Build it with ``Config.preset(edition, players, **options)``.

    Options (docs/rules.md section 1): ``gifts`` and ``protection`` add those cards to the
    deck; ``multiples`` allows playing 3+ equal numbers at once; ``call`` is ``with_play``
    (the call is part of the play, a missed call costs 2 cards when another player acts)
    or ``window`` (call until another player acts; a missed call costs 2 cards only when
    caught); ``scoring`` is ``pool`` (each seat starts with ``pool`` points, hand values
    are subtracted, the match ends when a pool drops below 0, the highest pool wins) or
    ``penalty`` (hand values accumulate, the match ends when a total reaches
    ``threshold``, the lowest total wins); ``rounds`` (0: no limit) also ends the match
    after that many rounds; ``self_jump_in``, ``false_catch_penalty`` and ``mixed_stacking``
    are the named rulings; ``hand_size`` (1 to 8, default 8) is the cards dealt to each seat,
    a short variant for learning agents and quick games.
    """

    players: int = 4
    edition: str = "classic"
    gifts: bool = False
    protection: bool = False
    multiples: bool = False
    call: str = "with_play"
    scoring: str = "pool"
    pool: int = 500
    threshold: int = 500
    rounds: int = 0
    self_jump_in: bool = False
    false_catch_penalty: int = 2
    mixed_stacking: bool = False
    hand_size: int = HAND_SIZE
    game: str = "solo"

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem:
            raise ParseError(f"bad SOLO config: {problem}")

    def _problem(self) -> str | None:
        checks = [
            (self.game == "solo", f"game must be 'solo', not {self.game!r}"),
            (_is_int(self.players) and 2 <= self.players <= MAX_PLAYERS,
             f"players must be 2 to {MAX_PLAYERS}, not {self.players!r}"),
            (self.edition in EDITIONS + ("custom",), f"unknown edition {self.edition!r}"),
            (self.call in CALL_MODES, f"call must be one of {', '.join(CALL_MODES)}"),
            (self.scoring in SCORINGS, f"scoring must be one of {', '.join(SCORINGS)}"),
            (_is_int(self.pool) and self.pool > 0, "pool must be a positive integer"),
            (_is_int(self.threshold) and self.threshold > 0, "threshold must be a positive integer"),
            (_is_int(self.rounds) and self.rounds >= 0, "rounds must be 0 (no limit) or a positive integer"),
            (_is_int(self.false_catch_penalty) and 0 <= self.false_catch_penalty <= 10,
             "false_catch_penalty must be 0 to 10"),
            (_is_int(self.hand_size) and 1 <= self.hand_size <= HAND_SIZE,
             f"hand_size must be 1 to {HAND_SIZE}"),
        ]
        for flag in ("gifts", "protection", "multiples", "self_jump_in", "mixed_stacking"):
            checks.append((isinstance(getattr(self, flag), bool), f"{flag} must be true or false"))
        return next((msg for ok, msg in checks if not ok), None)

    @classmethod
    def preset(cls, edition: str = "classic", players: int = 4, **options: Any) -> Config:
        """The ``classic`` or ``anniversary`` preset, with any option overridden."""
        if edition == "classic":
            base = cls(players=players)
        elif edition == "anniversary":
            base = cls(players=players, edition="anniversary", gifts=True, protection=True,
                       multiples=True, call="window", scoring="penalty")
        else:
            raise ParseError(f"unknown edition {edition!r}: choose classic or anniversary")
        unknown = set(options) - {f.name for f in fields(cls)}
        if unknown:
            raise ParseError(f"unknown SOLO option {sorted(unknown)[0]!r}")
        return replace(base, **options)

    def to_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in _FIELDS}  # (asdict's deep copy is slow: hot in digests)
        if not self.rounds:  # no limit: left out, so logs written before the option still verify
            del data["rounds"]
        if self.hand_size == HAND_SIZE:  # likewise
            del data["hand_size"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Config:
        if not isinstance(data, dict):
            raise ParseError("a SOLO config must be a map")
        options = dict(data)
        options.pop("game", None)
        edition = options.pop("edition", "classic")
        players = options.pop("players", 4)
        base = "classic" if edition == "custom" else edition
        config = cls.preset(base, players, **options)
        return replace(config, edition=edition)

    def describe(self) -> str:
        return f"SOLO {self.edition}, {self.players} players"

    # --- the match --------------------------------------------------------------------
    def initial_totals(self) -> list[int]:
        return [self.pool if self.scoring == "pool" else 0] * self.players

    def match_over(self, totals: Sequence[int], rounds_played: int) -> bool:
        if self.rounds and rounds_played >= self.rounds:
            return True
        if self.scoring == "pool":
            return any(t < 0 for t in totals)
        return any(t >= self.threshold for t in totals)

    def winners(self, totals: Sequence[int]) -> list[int]:
        best = max(totals) if self.scoring == "pool" else min(totals)
        return [s for s, t in enumerate(totals) if t == best]

    def round_delta(self, points: int) -> int:
        """What a hand worth ``points`` adds to its seat's total."""
        return -points if self.scoring == "pool" else points


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_FIELDS = tuple(f.name for f in fields(Config))
