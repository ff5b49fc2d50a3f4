"""A match: rounds of one game with running totals and an end condition.

``Match`` is the one object the rest of cardtable talks to. It is fully described by its
config, its seed and the ordered ``(seat, action)`` entries applied to it: replaying them
gives the same states and digests on every machine.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgpack

from cardtable.engine.errors import IllegalAction
from cardtable.engine.game import JSON, Event, RoundState
from cardtable.engine.games import GameModule, game_module


class Match:
    """Rounds of a game, dealt one after the other from one seed."""

    def __init__(self, config: Any, seed: bytes) -> None:
        self.config = config
        self.seed = bytes(seed)
        self.module: GameModule = game_module(config.game)
        self.totals: list[int] = list(config.initial_totals())
        self.round_scores: list[list[int]] = []
        self.round_no = 0
        self.state: RoundState = self.module.new_round(config, self.seed, 0)

    # --- the position -------------------------------------------------------------
    def is_over(self) -> bool:
        return self.state.is_over() and self.config.match_over(self.totals, len(self.round_scores))

    def actors(self) -> list[int]:
        return [] if self.is_over() else self.state.actors()

    def to_move(self) -> int | None:
        return None if self.is_over() else self.state.to_move()

    def legal_actions(self, seat: int) -> list[Any]:
        return [] if self.is_over() else self.state.legal_actions(seat)

    def observation(self, seat: int) -> dict[str, JSON]:
        obs = self.state.observation(seat)
        obs["round"] = self.round_no
        obs["totals"] = list(self.totals)
        obs["config"] = self.config.to_dict()
        return obs

    def winners(self) -> list[int]:
        return self.config.winners(self.totals) if self.is_over() else []

    def scores(self) -> list[int]:
        """The running totals (final once the match is over)."""
        return list(self.totals)

    # --- moves ---------------------------------------------------------------------
    def parse_action(self, text: str) -> Any:
        return self.module.parse_action(text)

    def apply(self, seat: int, action: Any) -> list[Event]:
        """Apply one action; finishing a round scores it and deals the next one."""
        if self.is_over():
            raise IllegalAction("the match is over")
        if isinstance(action, str):
            action = self.module.parse_action(action)
        events = self.state.apply(seat, action)
        if self.state.is_over():
            events += self._close_round()
        return events

    def _close_round(self) -> list[Event]:
        deltas = self.state.round_scores()
        self.round_scores.append(list(deltas))
        self.totals = [t + d for t, d in zip(self.totals, deltas, strict=True)]
        events = [Event("round_end", None, f"round {self.round_no + 1} ends: {_signed(deltas)}",
                        round=self.round_no + 1, scores=list(deltas))]
        if self.config.match_over(self.totals, len(self.round_scores)):
            won = ", ".join(str(s) for s in self.config.winners(self.totals))
            events.append(Event("match_end", None, f"match over, totals {self.totals}, won by {won}",
                                totals=list(self.totals), winners=self.config.winners(self.totals)))
        else:
            self.round_no += 1
            self.state = self.module.new_round(self.config, self.seed, self.round_no)
            events.append(Event("round_start", None, f"round {self.round_no + 1} dealt",
                                round=self.round_no + 1))
        return events

    # --- plain data ------------------------------------------------------------------
    def snapshot(self) -> dict[str, JSON]:
        return {
            "config": self.config.to_dict(),
            "seed": self.seed.hex(),
            "round": self.round_no,
            "totals": list(self.totals),
            "round_scores": [list(r) for r in self.round_scores],
            "state": self.state.snapshot(),
        }

    @classmethod
    def from_snapshot(cls, data: dict[str, JSON]) -> Match:
        from cardtable.engine.games import config_from_dict

        config = config_from_dict(data["config"])
        match = cls.__new__(cls)
        match.config = config
        match.seed = bytes.fromhex(data["seed"])
        match.module = game_module(config.game)
        match.round_no = int(data["round"])
        match.totals = [int(t) for t in data["totals"]]
        match.round_scores = [[int(x) for x in r] for r in data["round_scores"]]
        match.state = match.module.round_from_snapshot(data["state"])
        return match

    def digest(self) -> str:
        """A stable hex digest of the whole position, for comparing replicas."""
        return snapshot_digest(self.snapshot())


def snapshot_digest(data: dict[str, JSON]) -> str:
    """SHA-256 over the canonical msgpack form of a snapshot (maps with sorted keys)."""
    return hashlib.sha256(msgpack.packb(_canonical(data), use_bin_type=True)).hexdigest()


def _canonical(value: JSON) -> JSON:
    if isinstance(value, dict):
        return [[str(k), _canonical(value[k])] for k in sorted(value, key=str)]
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    return value


def _signed(deltas: list[int]) -> str:
    return ", ".join(f"seat {s} {d:+d}" for s, d in enumerate(deltas))


def match_seed(master: int, index: int) -> bytes:
    """The seed of game ``index`` of a batch run with master seed ``master``."""
    return f"cardtable/{master}/{index}".encode()
