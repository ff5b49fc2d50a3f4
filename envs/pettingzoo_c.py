"""The PettingZoo AEC environment on the C path: one game of the C vector env behind the API.

``solo_v0.env(backend="c")`` / ``scout_v0.env(backend="c")`` (or ``solo_env(...,
backend="c")``) build ``CardtableCEnv``: the same agents, tokens, asking order, observation
vectors, action masks, rewards, ``state()``, spaces and seeding as the engine-backed
``CardtableEnv``, stepped by ``envs.vector.VectorEnv(num_envs=1)`` in the project's C mirror.

What differs (docs/envs.md, "PettingZoo on the C path"): the deal and every reshuffle come
from the mirror's seeded stream (episode k of seed S: ``episode_seed(S, k)``), not the
engine's shuffle, so a seed deals another round than the engine-backed env; an episode is
one round (``episode="round"``, ``reward="score"``); computer opponents are the C mirror's
(``random`` or ``heuristic`` in every seat but one), not the project's bots;
``false_catches`` and SCOUT's ``voluntary_pass`` are not offered; ``render()`` says the last
agent action as its tokens, not the engine's events.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from cardtable.engine.errors import IllegalAction
from cardtable.engine.match import match_seed
from cardtable.engine.scout import State as ScoutState
from cardtable.engine.solo import State as SoloState
from cardtable.envs.agent_spaces import AgentSpaces, declare_agents
from cardtable.envs.table import make_config
from cardtable.envs.vector import VectorEnv

C_OPPONENTS = ("random", "heuristic")


def episode_seed(seed: int, episode: int) -> int:
    """The mirror's seed for episode ``episode`` of ``seed``: the first 8 bytes of the SHA-256
    of the engine's seed for it (``match_seed``)."""
    return int.from_bytes(hashlib.sha256(match_seed(seed, episode)).digest()[:8], "big")


class CardtableCEnv(AgentSpaces):
    """One table of SOLO or SCOUT stepped in C; the options are ``solo_env``'s and
    ``scout_env``'s, with the limits in the module's docstring (others: ValueError)."""

    def __init__(self, game: str, players: int, rules: Mapping[str, Any] | None = None,
                 opponents: Mapping[int, str] | None = None, episode: str = "round",
                 reward: str = "score", false_catches: bool = False, max_actions: int = 20_000,
                 render_mode: str | None = None, normalise: bool = True, shaping: float = 0.0) -> None:
        super().__init__()
        if episode != "round":
            raise ValueError(f"the C backend plays one-round episodes, not episode={episode!r}: "
                             "use backend='engine' for matches")
        if reward != "score":
            raise ValueError(f"the C backend pays reward='score', not {reward!r}: "
                             "use backend='engine' for 'win'")
        if false_catches:
            raise ValueError("the C backend offers only catches that can succeed: "
                             "use backend='engine' for false_catches=True")
        spec, agent_seat = _c_opponents(opponents, players)
        self.game, self.players = game, players
        self.config = make_config(game, players, rules)
        self.vec = VectorEnv(game, num_envs=1, players=players, rules=rules,
                             max_actions=max_actions, normalise=normalise, opponents=spec,
                             agent_seat=max(agent_seat, 0), shaping=shaping, autoreset=False)
        self.codec = self.vec.codec
        declare_agents(self, game, players, [agent_seat] if spec else list(range(players)), render_mode,
                       normalise)
        layout = self.codec.LAYOUT
        start, _ = layout.offsets["totals"]
        self._totals = slice(start, start + players)
        self._set_totals(self.config.initial_totals())
        self._asked_path = layout.offsets["asked"][0] + 2
        self._said: list[int] = []
        self._last: tuple[int, list[int]] | None = None

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal episode 0 of ``seed`` in the mirror; without a seed, the next episode of the
        last seed (0 at first). The same seed and tokens give the same episode."""
        self.vec.reset(episode_seed(*self._next_episode(seed)))
        self._start()

    def load(self, snapshot: dict[str, Any]) -> None:
        """Start an episode at an engine position (``State.snapshot()`` of round 0, same rules)."""
        self.vec.load(0, snapshot)
        self._start()

    def snapshot(self) -> dict[str, Any]:
        """The position as engine ``State.snapshot()`` data (SOLO's ``known`` included: ``load``
        gives every seat back what it knew)."""
        return self.vec.snapshot(0)

    def _start(self) -> None:
        self._set_totals(self.config.initial_totals())
        self.agents = list(self.possible_agents)
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._said, self._last = [], None
        self.agent_selection = self.agents[0]
        self._after_move()  # C opponents may have moved (shaped rewards; even ended a round)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        if int(self.vec.seats[0]) == seat:
            vector = np.array(self.vec.observations[0])
            mask = np.array(self.vec.action_masks[0])
        else:
            vector = self.vec.view(0, seat)
            mask = np.zeros(self.codec.NUM_TOKENS, np.int8)
        return {"observation": self._with_totals(vector, seat), "action_mask": mask}

    def state(self) -> np.ndarray:
        """Every seat's observation vector (computer players' seats too), in seat order, end
        to end, as the engine-backed env's ``state()``."""
        asked = int(self.vec.seats[0])
        return np.concatenate([self._with_totals(np.array(self.vec.observations[0]) if s == asked
                                                 else self.vec.view(0, s), s)
                               for s in range(self.players)])

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        seat, token = self._seat[agent], int(action)
        mask = self.vec.action_masks[0]
        if not (0 <= token < mask.shape[0] and mask[token]):
            raise IllegalAction(f"token {token} is not legal now; legal: {np.flatnonzero(mask).tolist()}")
        self.vec.step([token])
        self._said.append(token)
        if int(self.vec.seats[0]) != seat or not self.vec.observations[0, self._asked_path]:
            self._last, self._said = (seat, self._said), []  # the action is complete
        self._after_move()

    def _after_move(self) -> None:
        done, truncated = bool(self.vec.dones[0]), bool(self.vec.truncations[0])
        if done:
            self._set_totals(self._final_totals())
        self.rewards = {a: float(self.vec.rewards[0, self._seat[a]]) for a in self.agents}
        asked = int(self.vec.seats[0])
        if done or truncated:
            for a in self.agents:
                self.terminations[a] = done
                self.truncations[a] = truncated and not done
        elif asked in self._agent:
            self.agent_selection = self._agent[asked]
        self._accumulate_rewards()

    def render(self) -> str:
        """The last agent action, as its tokens in words (``render_mode="ansi"``)."""
        if self._last is None:
            return ""
        seat, tokens = self._last
        return f"seat {seat}: " + ", ".join(self.codec.token_text(t) for t in tokens)

    def close(self) -> None:
        pass

    # --- the totals block: the mirror plays round 0 with zero totals -------------------------
    def _set_totals(self, totals: list[int]) -> None:
        """The running match totals every observation shows (the engine env's ``totals``):
        each seat's block, by offset from it, scaled as the layout says, kept ready."""
        raw = np.array(totals, np.float32)
        self._blocks: list[np.ndarray] | None = None
        if raw.any():
            layout, span = self.codec.LAYOUT, self._totals
            self._blocks = [np.roll(raw, -seat) for seat in range(self.players)]
            if self.normalise:
                self._blocks = [np.clip(b * layout.inverse_scale[span], layout.low[span], layout.high[span])
                                for b in self._blocks]

    def _with_totals(self, vector: np.ndarray, seat: int) -> np.ndarray:
        if self._blocks is not None:
            vector[self._totals] = self._blocks[seat]
        return vector

    def _final_totals(self) -> list[int]:
        state_class = SoloState if self.game == "solo" else ScoutState
        scores = state_class.from_snapshot(self.vec.snapshot(0)).round_scores()
        return [t + d for t, d in zip(self.config.initial_totals(), scores, strict=True)]


def _c_opponents(opponents: Mapping[int, str] | None, players: int) -> tuple[str | None, int]:
    """(the C opponents' spec or None, the agent's seat or -1): C opponents fill every seat but
    one, all with the same spec."""
    if not opponents:
        return None, -1
    specs = set(opponents.values())
    free = [s for s in range(players) if s not in opponents]
    if len(specs) != 1 or not specs <= set(C_OPPONENTS) or len(free) != 1 or len(opponents) != players - 1:
        raise ValueError(f"the C backend's opponents are one of {', '.join(C_OPPONENTS)} in every "
                         f"seat but one, not {dict(opponents)!r}: use backend='engine' for the bots")
    return specs.pop(), free[0]
