"""The engine behind the PettingZoo environments: a match, the asking order, token paths,
computer players in some seats, episodes and rewards. Free of any framework."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np

from cardtable.ai.bots import make_bot
from cardtable.engine.errors import IllegalAction, ParseError
from cardtable.engine.game import Event
from cardtable.engine.games import config_from_dict
from cardtable.engine.match import Match
from cardtable.envs import scout_codec, solo_codec
from cardtable.envs.asking import Asking, Decision
from cardtable.envs.shaping import potentials
from cardtable.envs.tokens import PASS

CODECS: dict[str, ModuleType] = {"solo": solo_codec, "scout": scout_codec}
EPISODES = ("round", "match")
REWARDS = ("score", "win")


def make_config(game: str, players: int, rules: Mapping[str, Any] | None = None) -> Any:
    """The engine config: ``rules`` holds ``edition`` and any option of the game's Config."""
    return config_from_dict({"game": game, "players": players, **dict(rules or {})})


def better_sign(config: Any) -> int:
    """+1 when a higher score is better, -1 when lower is (SOLO's penalty scoring)."""
    return -1 if getattr(config, "scoring", "pool") == "penalty" else 1


def win_rewards(signed: Sequence[float]) -> list[float]:
    """Zero-sum result: the best seats share +1, every seat pays 1/n."""
    best = max(signed)
    winners = [s for s, x in enumerate(signed) if x == best]
    n = len(signed)
    return [(1 / len(winners) if s in winners else 0.0) - 1 / n for s in range(n)]


class Table:
    """One environment's game. ``bots`` maps seats to bot specs (``heuristic``, ``ismcts:fast``...);
    the other seats are agents, asked through ``decision``/``say``."""

    def __init__(self, game: str, players: int, rules: Mapping[str, Any] | None = None,
                 bots: Mapping[int, str] | None = None, episode: str = "round", reward: str = "score",
                 false_catches: bool = False, max_actions: int = 20_000, shaping: float = 0.0) -> None:
        if game not in CODECS:
            raise ParseError(f"unknown game {game!r}: choose solo or scout")
        if episode not in EPISODES:
            raise ParseError(f"episode must be one of {', '.join(EPISODES)}, not {episode!r}")
        if reward not in REWARDS:
            raise ParseError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        self.config = make_config(game, players, rules)
        self.config_dict = self.config.to_dict()
        self.codec = CODECS[game]
        self.players = players
        self.bot_specs = dict(bots or {})
        for seat, spec in self.bot_specs.items():
            if not (isinstance(seat, int) and 0 <= seat < players):
                raise ParseError(f"bot seat {seat!r} is not a seat at a {players}-player table")
            make_bot(spec, b"check", seat)  # a bad spec fails here, in one line
        self.agent_seats = [s for s in range(players) if s not in self.bot_specs]
        if not self.agent_seats:
            raise ParseError("every seat has a bot: leave at least one seat to an agent")
        self.episode = episode
        self.reward = reward
        self.max_actions = max_actions
        self.shaping = float(shaping)
        self.asking = Asking(self.codec, false_catches)
        self.match: Match | None = None

    # --- an episode --------------------------------------------------------------------
    def reset(self, seed: bytes) -> None:
        """Deal a new episode from the engine seed ``seed``; bots play up to the first agent."""
        self.seed = seed
        self.match = Match(self.config, seed)
        self.bots = {s: make_bot(spec, seed, s) for s, spec in self.bot_specs.items()}
        self.asking.applied()
        self.path: list[int] = []
        self.entries: list[tuple[int, str]] = []
        self.events: list[Event] = []
        self.pending = [0.0] * self.players
        self.finished_round: Any = None
        self.done = False
        self.truncated = False
        self._potential = potentials(self.match.state)
        self._advance()

    @property
    def state(self) -> Any:
        assert self.match is not None
        return self.finished_round if self.finished_round is not None else self.match.state

    def decision(self) -> Decision | None:
        """Who is asked now (always an agent seat between calls); None once the episode is over."""
        if self.done or self.truncated:
            return None
        assert self.match is not None
        return self.asking.current(self.match, self.match.state, self.players)

    def legal_tokens(self) -> list[int]:
        decision = self.decision()
        return [] if decision is None else decision.trie.tokens(tuple(self.path))

    def say(self, token: int) -> None:
        """The asked agent says its next token; complete actions are applied, then bots move."""
        decision = self.decision()
        if decision is None:
            raise IllegalAction("the episode is over")
        legal = decision.trie.tokens(tuple(self.path))
        if token not in legal:
            raise IllegalAction(f"token {token} ({self.codec.token_text(token)}) is not legal now; "
                                f"legal: {legal}")
        self.path.append(int(token))
        action = decision.trie.action(tuple(self.path))
        if action is None:
            return
        self.path = []
        self._act(decision, action)
        self._advance()

    def _act(self, decision: Decision, action: Any) -> None:
        if action is PASS or action is None:
            self.asking.declined(decision.seat)
            return
        match = self.match
        assert match is not None
        rounds = len(match.round_scores)
        state = match.state
        self.events = match.apply(decision.seat, action)
        self.entries.append((decision.seat, str(action)))
        self.asking.applied()
        if len(match.round_scores) > rounds:
            self._round_over(state)
        elif len(self.entries) >= self.max_actions:
            self.truncated = True
        if self.shaping:
            now = [0.0] * self.players if self.done else potentials(self.state)
            self.pending = [p + self.shaping * (b - a)
                            for p, a, b in zip(self.pending, self._potential, now, strict=True)]
            self._potential = now

    def _round_over(self, state: Any) -> None:
        match = self.match
        assert match is not None
        sign = better_sign(self.config)
        deltas = [sign * d for d in match.round_scores[-1]]
        if self.reward == "score":
            self.pending = [p + d for p, d in zip(self.pending, deltas, strict=True)]
        if self.episode == "round" or match.is_over():
            self.done = True
            self.finished_round = state
            if self.reward == "win":
                result = deltas if self.episode == "round" else [sign * t for t in match.totals]
                self.pending = [p + w for p, w in zip(self.pending, win_rewards(result), strict=True)]

    def _advance(self) -> None:
        """Let the bots act until an agent is asked or the episode ends."""
        assert self.match is not None
        while (decision := self.decision()) is not None and decision.seat in self.bots:
            bot = self.bots[decision.seat]
            obs = self.match.observation(decision.seat)
            legal = self.match.legal_actions(decision.seat)  # bots judge catches themselves
            action = bot.react(obs, legal) if decision.may_pass else bot.choose(obs, legal)
            self._act(decision, PASS if action is None else action)

    def take_rewards(self) -> list[float]:
        """The rewards earned since the last call, per seat."""
        out, self.pending = self.pending, [0.0] * self.players
        return out

    # --- what a seat sees ----------------------------------------------------------------
    def observation(self, seat: int) -> dict[str, Any]:
        """The engine observation of ``seat`` (of the finished round once the episode is over)."""
        match = self.match
        assert match is not None
        obs: dict[str, Any] = self.state.observation(seat)
        obs["round"] = match.round_no if self.finished_round is None else len(match.round_scores) - 1
        obs["totals"] = list(match.totals)
        obs["config"] = self.config_dict
        return obs

    def features(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """The observation vector and the action mask (int8) of ``seat``."""
        decision = self.decision()
        mask = np.zeros(self.codec.NUM_TOKENS, np.int8)
        asked = ""
        path: list[int] = []
        if decision is not None and decision.seat == seat:
            asked = "offer" if decision.may_pass else "move"
            path = self.path
            mask[decision.trie.tokens(tuple(path))] = 1
        return self.codec.features(self.observation(seat), path, asked), mask
