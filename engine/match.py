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

    def __init__(self, config: Any, seed: bytes, first: RoundState | None = None) -> None:
        """``first``: the first round, dealt by the table (hidden hands); then the match never
        deals or scores a round itself: the table calls ``finish_round`` after its audit and
        ``next_round`` with the next deal."""
        self.config = config
        self.seed = bytes(seed)
        self.module: GameModule = game_module(config.game)
        self.totals: list[int] = list(config.initial_totals())
        self.round_scores: list[list[int]] = []
        self.round_no = 0
        self.dealt_by_table = first is not None
        self.awaiting = self.redeal = False  # dealt by the table: between a round and the next
        self.state: RoundState = first if first is not None else self.module.new_round(config, self.seed, 0)

    # --- the position -------------------------------------------------------------
    def is_over(self) -> bool:
        return self.state.is_over() and self.config.match_over(self.totals, len(self.round_scores))

    def actors(self) -> list[int]:
        return [] if self.is_over() or self.awaiting else self.state.actors()

    def to_move(self) -> int | None:
        return None if self.is_over() or self.awaiting else self.state.to_move()

    def legal_actions(self, seat: int) -> list[Any]:
        """``seat``'s legal actions in the game's everyday notation (a client or a bot chooses
        from these; a hidden-hands table writes the choice on slots)."""
        if self.is_over() or self.awaiting:
            return []
        return self.state.legal_actions(seat)

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
        if self.awaiting:
            raise IllegalAction("the next round is not dealt yet")
        if isinstance(action, str):
            action = self.module.parse_action(action)
        events = self.state.apply(seat, action)
        if self.state.is_over() and not self.dealt_by_table:
            events += self._close_round(self.state.round_scores())
        return events

    def finish_round(self, deltas: list[int] | None, why: str = "") -> list[Event]:
        """A round dealt by the table ends after its audit: score it with ``deltas``; or void it
        (None; also in the middle of the round; ``why``: the reason, in player words): nobody scores
        and it is dealt again. Then the match is over, or waits for ``next_round``."""
        if not self.dealt_by_table or self.awaiting:
            raise IllegalAction("no round waits to be finished")
        self.awaiting = True
        if deltas is None:
            self.redeal = True
            because = f" because {why}" if why else ""
            return [Event("round_void", None, f"round {self.round_no + 1} is void{because}: nobody scores, "
                          "it is dealt again", round=self.round_no + 1)]
        events = self._close_round(deltas)
        self.awaiting = not self.is_over()
        return events

    def next_round(self, state: RoundState) -> None:
        """The next round (or the void one again), dealt by the table."""
        if not self.awaiting:
            raise IllegalAction("no round is due")
        if not self.redeal:
            self.round_no += 1
        self.awaiting = self.redeal = False
        self.state = state

    def _close_round(self, deltas: list[int]) -> list[Event]:
        self.round_scores.append(list(deltas))
        self.totals = [t + d for t, d in zip(self.totals, deltas, strict=True)]
        events = [Event("round_end", None, f"round {self.round_no + 1} ends: {_signed(deltas)}",
                        round=self.round_no + 1, scores=list(deltas))]
        if self.config.match_over(self.totals, len(self.round_scores)):
            won = ", ".join(str(s) for s in self.config.winners(self.totals))
            events.append(Event("match_end", None, f"match over, totals {self.totals}, won by {won}",
                                totals=list(self.totals), winners=self.config.winners(self.totals)))
        elif not self.dealt_by_table:
            self.round_no += 1
            self.state = self.module.new_round(self.config, self.seed, self.round_no)
            events.append(Event("round_start", None, f"round {self.round_no + 1} dealt",
                                round=self.round_no + 1))
        return events

    # --- plain data ------------------------------------------------------------------
    def snapshot(self) -> dict[str, JSON]:
        data = {
            "config": self.config.to_dict(),
            "seed": self.seed.hex(),
            "round": self.round_no,
            "totals": list(self.totals),
            "round_scores": [list(r) for r in self.round_scores],
            "state": self.state.snapshot(),
        }
        if self.dealt_by_table:
            data["dealt_by_table"] = True
        return data

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
        match.dealt_by_table = bool(data.get("dealt_by_table", False))
        match.awaiting = match.redeal = False
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
