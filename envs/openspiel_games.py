"""SOLO and SCOUT as OpenSpiel Python games: ``cardtable_solo`` and ``cardtable_scout``.

Importing this module registers both with ``pyspiel`` (``register()`` does it once more
harmlessly). ``pyspiel.load_game("cardtable_solo", {"players": 4, "edition": "anniversary"})``.
Players act with the tokens of the PettingZoo environments and in the same asking order
(``envs.asking``); the deal and every draw are chance nodes (``envs.chance``).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from typing import Any

import pyspiel

from cardtable.engine.scout.cards import DECK
from cardtable.engine.solo.cards import deck as solo_deck
from cardtable.envs.asking import Asking
from cardtable.envs.chance import ScoutDeal, SoloDeal, SoloDraw, solo_cards_to_draw
from cardtable.envs.observers import Observer, make_observer
from cardtable.envs.resample import resample
from cardtable.envs.table import CODECS, EPISODES, REWARDS, better_sign, make_config, win_rewards
from cardtable.envs.tokens import PASS

_COMMON = {"episode": "round", "reward": "score", "false_catches": False, "max_actions": 3000}
SOLO_PARAMS: dict[str, Any] = {
    "players": 4, "edition": "classic", "gifts": -1, "protection": -1, "multiples": -1, "call": "",
    "scoring": "", "pool": -1, "threshold": -1, "self_jump_in": -1, "false_catch_penalty": -1,
    "mixed_stacking": -1, "hand_size": -1, **_COMMON,
}
"""-1 (or "") leaves an option at its edition's value; 0/1 turn a rule off/on."""
SCOUT_PARAMS: dict[str, Any] = {"players": 4, **_COMMON}
RESAMPLE_TRIES = 1000
"""Worlds drawn for one resample before the true one is returned (Position.resampled)."""
_BOOLS = ("gifts", "protection", "multiples", "self_jump_in", "mixed_stacking")


def _game_type(game: str, zero_sum: bool = False) -> Any:
    return pyspiel.GameType(
        short_name=f"cardtable_{game}", long_name=f"cardtable {game.upper()}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=10 if game == "solo" else 5, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=SOLO_PARAMS if game == "solo" else SCOUT_PARAMS)


def _rules(params: dict[str, Any]) -> dict[str, Any]:
    """The engine options the SOLO parameters set (the edition's value where left at -1/"")."""
    rules: dict[str, Any] = {"edition": params["edition"]}
    for key in _BOOLS:
        if params[key] != -1:
            rules[key] = bool(params[key])
    for key in ("call", "scoring"):
        if params[key]:
            rules[key] = params[key]
    for key in ("pool", "threshold", "false_catch_penalty", "hand_size"):
        if params[key] != -1:
            rules[key] = params[key]
    return rules


class Settings:
    """What a state needs from its game (shared, never copied with the state)."""

    def __init__(self, game: str, params: dict[str, Any]) -> None:
        if params["episode"] not in EPISODES or params["reward"] not in REWARDS:
            raise ValueError(f"episode must be one of {EPISODES} and reward one of {REWARDS}")
        self.game = game
        self.params = dict(params)
        self.config = make_config(game, params["players"], _rules(params) if game == "solo" else None)
        self.codec = CODECS[game]
        self.episode, self.reward = params["episode"], params["reward"]
        self.false_catches, self.max_actions = bool(params["false_catches"]), int(params["max_actions"])

    def __deepcopy__(self, memo: dict[int, Any]) -> Settings:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Settings, (self.game, self.params))


class CardtableGame(pyspiel.Game):  # type: ignore[misc]
    """One of the two games with its parameters; ``game`` is ``solo`` or ``scout``."""

    game = "solo"

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        spec = SOLO_PARAMS if self.game == "solo" else SCOUT_PARAMS
        p = {**spec, **(params or {})}
        self.settings = Settings(self.game, p)
        self.config, self.codec = self.settings.config, self.settings.codec
        self.episode, self.reward, self.max_actions = p["episode"], p["reward"], int(p["max_actions"])
        n = self.config.players
        low, high, rounds = self._bounds()
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.NUM_TOKENS,
            max_chance_outcomes=63 if self.game == "solo" else 2 * len(DECK),
            num_players=n, min_utility=float(low), max_utility=float(high),
            utility_sum=0.0 if self.reward == "win" else None,
            max_game_length=self.max_actions * (n + 8) + 130 * rounds)
        super().__init__(_game_type(self.game, self.reward == "win"), info, p)

    def _bounds(self) -> tuple[float, float, int]:
        n, c = self.config.players, self.config
        if self.game == "solo":
            rounds = 1 if self.episode == "round" else self.max_actions
        else:
            rounds = 1 if self.episode == "round" else c.rounds
        if self.reward == "win":
            return -1 / n, 1 - 1 / n, rounds
        if self.game == "scout":
            return -45.0 * rounds, (45.0 + self.max_actions) * rounds, rounds
        points = sum(card.points for card in solo_deck(c.gifts, c.protection))
        if self.episode == "round":
            return -points, 0.0, rounds
        return -(max(c.pool, c.threshold) + points), 0.0, rounds

    def new_initial_state(self) -> CardtableState:
        return CardtableState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        """The view ``iig_obs_type`` asks for, or ValueError (``envs.observers``)."""
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        return make_observer(self.codec, iig_obs_type)


class SoloGame(CardtableGame):
    game = "solo"


class ScoutGame(CardtableGame):
    game = "scout"


class Position:
    """A position: a chance event in progress (deal, draw) or an asked seat. Plain Python,
    so that OpenSpiel's clone (a deep copy) and serialization (a pickle) are quick."""

    def __init__(self, settings: Settings) -> None:
        self.g = settings
        self.n = self.g.config.players
        self.totals = list(self.g.config.initial_totals())
        self.rounds_played = 0
        self.round: Any = None
        self.chance: Any = self._deal(0, None)
        self.pending: tuple[int, Any] | None = None
        self.asking = Asking(self.g.codec, self.g.false_catches)
        self.path: list[int] = []
        self.logs: list[Log] = [None] * self.n
        self._returns = [0.0] * self.n
        self.actions = 0
        self.over = False

    def _deal(self, round_no: int, previous: Any) -> Any:
        config = self.g.config
        if self.g.game == "solo":
            return SoloDeal(config, round_no)
        if config.players == 2 and round_no % 2:
            return ScoutDeal(config, round_no, [c.pair for c in previous.set_aside],
                             [h.pair for hand in previous.hands for h in hand]
                             + [c.pair for pile in previous.captured for c in pile]
                             + [c.pair for c in previous.active])
        return ScoutDeal(config, round_no)

    # --- the OpenSpiel interface ----------------------------------------------------------
    def current_player(self) -> int:
        if self.over:
            return int(pyspiel.PlayerId.TERMINAL)
        if self.chance is not None:
            return int(pyspiel.PlayerId.CHANCE)
        decision = self.decision()
        assert decision is not None
        return int(decision.seat)

    def decision(self) -> Any:
        """Who is asked now (None at a chance node or the end)."""
        if self.over or self.chance is not None:
            return None
        return self.asking.current(self.round, self.round, self.n)

    def legal_actions(self, player: int) -> list[int]:
        decision = self.decision()
        if decision is None or decision.seat != player:
            return []
        return list(decision.trie.tokens(tuple(self.path)))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self.chance.outcomes())

    def apply(self, action: int) -> None:
        if self.chance is not None:
            self._chance(int(action))
            return
        decision = self.decision()
        self.path.append(int(action))
        self._log(decision.seat, f"t{action}")
        chosen = decision.trie.action(tuple(self.path))
        if chosen is None:
            return
        self.path = []
        if chosen is PASS:
            self.asking.declined(decision.seat)
            return
        count = solo_cards_to_draw(self.round, decision.seat, chosen) if self.g.game == "solo" else 0
        if count:
            self.chance = SoloDraw(self.round, count)
            self.pending = (decision.seat, chosen)
        else:
            self._engine(decision.seat, chosen)

    def _chance(self, outcome: int) -> None:
        chance = self.chance
        chance.apply(outcome)
        if not chance.done():
            return
        self.chance = None
        if chance.kind == "deal":
            self.round = chance.state()
            self.asking.applied()
            for p in range(self.n):
                self._log(p, f"round {self.rounds_played} dealt|{self._hand(p)}|{self._public()}")
            return
        chance.arrange()
        assert self.pending is not None
        seat, action = self.pending
        self.pending = None
        self._engine(seat, action)

    def _engine(self, seat: int, action: Any) -> None:
        reshuffles = getattr(self.round, "reshuffles", 0)
        events = self.round.apply(seat, action)
        assert getattr(self.round, "reshuffles", 0) == reshuffles, "the engine reshuffled by itself"
        self.actions += 1
        self.asking.applied()
        said = "; ".join(str(e) for e in events)
        for p in range(self.n):
            self._log(p, f"{said}|{self._hand(p)}")
        if self.round.is_over():
            self._close_round()
        elif self.actions >= self.g.max_actions:
            self.over = True

    def _close_round(self) -> None:
        config = self.g.config
        deltas = self.round.round_scores()
        self.totals = [t + d for t, d in zip(self.totals, deltas, strict=True)]
        self.rounds_played += 1
        sign = better_sign(config)
        earned = [float(sign * d) for d in deltas] if self.g.reward == "score" else [0.0] * self.n
        if self.g.episode == "round" or config.match_over(self.totals, self.rounds_played):
            self.over = True
            if self.g.reward == "win":
                result = deltas if self.g.episode == "round" else self.totals
                earned = win_rewards([sign * x for x in result])
        else:
            self.chance = self._deal(self.rounds_played, self.round)
        self._returns = [r + e for r, e in zip(self._returns, earned, strict=True)]

    def _log(self, seat: int, entry: str) -> None:
        self.logs[seat] = (entry, self.logs[seat])

    def history_of(self, seat: int) -> list[str]:
        """What ``seat`` has seen and said, oldest first (its information state)."""
        out: list[str] = []
        log = self.logs[seat]
        while log is not None:
            out.append(log[0])
            log = log[1]
        return out[::-1]

    def __deepcopy__(self, memo: dict[int, Any]) -> Position:
        """A fast clone: logs are shared (immutable), the round's lists are copied."""
        twin = Position.__new__(Position)
        twin.__dict__.update(self.__dict__)
        twin.round = _clone_round(self.round)
        memo[id(self.round)] = twin.round
        twin.chance = copy.deepcopy(self.chance, memo)
        twin.asking = copy.deepcopy(self.asking)
        twin.path = list(self.path)
        twin.logs = list(self.logs)
        twin.totals = list(self.totals)
        twin._returns = list(self._returns)
        return twin

    def resampled(self, seat: int, rng: random.Random) -> Position:
        """A world ``seat`` cannot tell from this one: the cards it cannot see dealt again, and
        every seat's information state (its history and how it is asked now) unchanged.

        Whether a seat is offered an out-of-turn chance depends on its hidden cards (a
        jump-in needs the top card's twin), so worlds in which the asking differs (another
        seat asked, or the same one asked otherwise) are drawn again, up to
        ``RESAMPLE_TRIES`` times; then the true world is returned (a copy; this never
        happened in the tests' thousands of worlds, see docs/envs.md)."""
        if self.chance is not None or self.round is None or self.over:
            raise ValueError("worlds are resampled only where a seat is asked (not at chance or the end)")
        if not 0 <= seat < self.n:
            raise ValueError(f"there is no seat {seat!r}")
        decision = self.decision()
        asked = (decision.seat, decision.may_pass)
        waiting = self.round.to_move()
        order = [(waiting + k) % self.n for k in range(1, self.n + 1)]
        for _ in range(RESAMPLE_TRIES):
            twin = copy.deepcopy(self)
            twin.round = resample(self.round, seat, rng)
            if seat == decision.seat:  # the seats offered before it passed or had no chance
                twin.asking.passed.update(order[: order.index(seat)])
            found = twin.decision()
            if (found.seat, found.may_pass) == asked:
                return twin
        return copy.deepcopy(self)

    def __getstate__(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["logs"] = [self.history_of(p) for p in range(self.n)]
        return data

    def __setstate__(self, data: dict[str, Any]) -> None:
        logs = data.pop("logs")
        self.__dict__.update(data)
        self.logs = [None] * self.n
        for p, entries in enumerate(logs):
            for entry in entries:
                self._log(p, entry)

    def _hand(self, seat: int) -> str:
        return " ".join(str(c) for c in self.round.hands[seat])

    def _public(self) -> str:
        if self.g.game == "solo":
            return "discard " + " ".join(c.text for c in self.round.discard)
        return ""

    def action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            kind = "deal" if self.chance is None or self.chance.kind == "deal" else "draw"
            text = (SoloDeal if self.g.game == "solo" else ScoutDeal).text(action)
            return f"{kind} {text}"
        return str(self.g.codec.token_text(action))

    def is_terminal(self) -> bool:
        return self.over

    def returns(self) -> list[float]:
        """The episode's rewards, paid at its end (OpenSpiel's terminal reward model)."""
        return list(self._returns) if self.over else [0.0] * self.n

    def __str__(self) -> str:
        if self.round is None:
            return f"dealing round {self.rounds_played}"
        return json.dumps(self.round.snapshot(), sort_keys=True)

    # --- what a seat sees ----------------------------------------------------------------
    def engine_observation(self, seat: int) -> dict[str, Any]:
        """The engine's observation of ``seat`` with the match keys (as ``Match.observation``)."""
        obs: dict[str, Any] = self.round.observation(seat)
        obs["round"] = self.rounds_played
        obs["totals"] = list(self.totals)
        obs["config"] = self.g.config.to_dict()
        if obs.get("phase") == "turn_choice":  # SCOUT: the whole-hand choices are simultaneous
            obs["flipped"] = [f if s == seat else None for s, f in enumerate(obs["flipped"])]
        return obs

    def asked(self, seat: int) -> tuple[str, list[int]]:
        """How ``seat`` is asked now (``move``, ``offer`` or ``""``) and the tokens it has said."""
        if self.over or self.chance is not None:
            return "", []
        decision = self.decision()
        if decision is None or decision.seat != seat:
            return "", []
        return ("offer" if decision.may_pass else "move"), list(self.path)


Log = tuple[str, "Log"] | None
"""A seat's log as immutable links (newest first), shared between clones."""




class CardtableState(pyspiel.State):  # type: ignore[misc]
    """The OpenSpiel face of a ``Position`` (kept in ``self.p``)."""

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        self.p = Position(game.settings)

    def current_player(self) -> int:
        return self.p.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self.p.legal_actions(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.p.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self.p.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self.p.action_to_string(player, action)

    def is_terminal(self) -> bool:
        return self.p.over

    def returns(self) -> list[float]:
        return self.p.returns()

    def rewards(self) -> list[float]:
        return self.p.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CardtableState:
        """For ISMCTS: a state with the same information state for ``player_id``."""
        twin: CardtableState = self.clone()
        rng = random.Random(int(probability_sampler() * 2**53))
        twin.p = self.p.resampled(player_id, rng)
        return twin

    def __str__(self) -> str:
        return str(self.p)
def _clone(value: Any) -> Any:
    if isinstance(value, list):
        return [_clone(v) for v in value]
    if isinstance(value, dict):
        return {k: _clone(v) for k, v in value.items()}
    frozen = getattr(getattr(value, "__dataclass_params__", None), "frozen", True)
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and not frozen:
        return dataclasses.replace(value, **{f.name: _clone(getattr(value, f.name))
                                             for f in dataclasses.fields(value) if f.init})
    return value


def _clone_round(state: Any) -> Any:
    """A copy of an engine round state sharing its immutable parts (cards, config, actions)."""
    if state is None:
        return None
    twin = copy.copy(state)
    names = list(getattr(state, "__dict__", {})) or list(type(state).__slots__)
    for name in names:
        setattr(twin, name, _clone(getattr(state, name)))
    return twin


def register() -> None:
    """Register ``cardtable_solo`` and ``cardtable_scout`` with pyspiel (once)."""
    known = set(pyspiel.registered_names())
    for game, cls in (("solo", SoloGame), ("scout", ScoutGame)):
        if f"cardtable_{game}" not in known:
            pyspiel.register_game(_game_type(game), cls)


register()
