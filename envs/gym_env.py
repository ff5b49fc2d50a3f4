"""SOLO and SCOUT as single-agent Gymnasium environments: one seat learns, the project's bots
play the others (docs/envs.md, "Gymnasium").

Importing this module registers the versioned ids ``cardtable/Solo-v0`` and
``cardtable/Scout-v0``; ``gymnasium.make("cardtable.envs.gym_env:cardtable/Solo-v0")`` imports
and makes in one call. Keyword arguments of ``make`` reach ``CardtableGymEnv``, or with
``backend="c"`` the C-backed ``envs.gym_c.CardtableGymCEnv``;
``gymnasium.make_vec(id, num_envs, vectorization_mode="vector_entry_point")`` gives the
batched form in C (``envs.gym_vector``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from cardtable.engine.errors import ParseError
from cardtable.engine.match import match_seed
from cardtable.envs.agent_spaces import observation_box
from cardtable.envs.table import Table

ILLEGAL = ("random", "raise")
BACKENDS = ("engine", "c")


class CardtableGymEnv(gymnasium.Env):
    """One seat (``seat``) of a SOLO or SCOUT table against bots in every other seat.

    Observations are the PettingZoo environment's (``{"observation", "action_mask"}``, scaled
    and bounded unless ``normalise=False``); an
    action is one token. ``action_masks()`` gives the mask (for maskable learners). A token
    outside the mask is replaced by a random legal one from the env's seeded generator
    (``illegal="random"``, reported as ``info["illegal_action"]``) or raises (``"raise"``).
    The reward is the seat's PettingZoo reward (``score``: its signed round score when a round
    ends; ``win``: its share of the result at the episode's end)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, game: str = "solo", players: int = 2, seat: int = 0,
                 opponents: str | Mapping[int, str] = "heuristic",
                 rules: Mapping[str, Any] | None = None, episode: str = "round",
                 reward: str = "score", illegal: str = "random", max_actions: int = 20_000,
                 render_mode: str | None = None, normalise: bool = True, shaping: float = 0.0) -> None:
        if illegal not in ILLEGAL:
            raise ParseError(f"illegal must be one of {', '.join(ILLEGAL)}, not {illegal!r}")
        if render_mode not in (None, "ansi"):
            raise ParseError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise ParseError(f"seat {seat!r} is not a seat at a {players}-player table")
        specs = ({s: opponents for s in range(players) if s != seat} if isinstance(opponents, str)
                 else dict(opponents))
        if seat in specs or sorted(specs) != [s for s in range(players) if s != seat]:
            raise ParseError(f"opponents must name every seat but {seat}")
        self.table = Table(game, players, rules if game == "solo" else None, specs, episode,
                           reward, max_actions=max_actions, shaping=shaping)
        self.seat, self.illegal, self.render_mode, self.normalise = seat, illegal, render_mode, normalise
        codec = self.table.codec
        self.observation_space = spaces.Dict({
            "observation": observation_box(codec.LAYOUT, normalise),
            "action_mask": spaces.Box(0, 1, (codec.NUM_TOKENS,), np.int8),
        })
        self.action_space = spaces.Discrete(codec.NUM_TOKENS)
        self._episode_seed = 0
        self._episode = 0
        self._mask = np.zeros(codec.NUM_TOKENS, bool)  # the mask of the last observation built

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal the next episode: with ``seed``, episode 0 of that seed (the deal of
        ``cardtable match --seed S``'s first game); without, the next episode."""
        super().reset(seed=seed)
        if seed is not None:
            self._episode_seed, self._episode = int(seed), 0
        self.table.reset(match_seed(self._episode_seed, self._episode))
        self._episode += 1
        self.table.take_rewards()
        return self._observe(), {}

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        table = self.table
        if table.decision() is None:
            raise ParseError("the episode is over: call reset()")
        legal = table.legal_tokens()
        token = int(action)
        illegal = token not in legal
        if illegal:
            if self.illegal == "raise":
                raise ParseError(f"token {token} is not legal now; legal: {legal}")
            token = int(legal[int(self.np_random.integers(len(legal)))])
        table.say(token)
        reward = float(table.take_rewards()[self.seat])
        return self._observe(), reward, table.done, table.truncated and not table.done, \
            {"illegal_action": illegal}

    def action_masks(self) -> np.ndarray:
        """The tokens the seat may say now (bool), as maskable learners ask for them: the mask
        of the observation ``reset``/``step`` returned (the position has not changed since),
        so no observation is built again."""
        return self._mask.copy()

    def _observe(self) -> dict[str, np.ndarray]:
        vector, mask = self.table.features(self.seat)
        if self.normalise:
            vector = self.table.codec.LAYOUT.normalise(vector)
        self._mask = mask.astype(bool)
        return {"observation": vector, "action_mask": mask}

    def render(self) -> str | None:
        """The events of the last action, in words (``render_mode="ansi"``)."""
        if self.render_mode is None:
            return None
        return "\n".join(str(e) for e in self.table.events)


def make(game: str, backend: str = "engine", **kwargs: Any) -> gymnasium.Env:
    """The env of ``game``: ``backend="engine"`` (``CardtableGymEnv``: the engine, the project's
    bots) or ``"c"`` (``envs.gym_c.CardtableGymCEnv``: the C mirror and its opponents)."""
    if backend == "engine":
        return CardtableGymEnv(game, **kwargs)
    if backend == "c":
        from cardtable.envs.gym_c import CardtableGymCEnv

        return CardtableGymCEnv(game, **kwargs)
    raise ParseError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")


def solo(backend: str = "engine", **kwargs: Any) -> gymnasium.Env:
    """``cardtable/Solo-v0``: SOLO (2-10 players, ``rules`` as for the PettingZoo env)."""
    return make("solo", backend, **kwargs)


def scout(backend: str = "engine", **kwargs: Any) -> gymnasium.Env:
    """``cardtable/Scout-v0``: SCOUT (2-5 players)."""
    return make("scout", backend, **kwargs)


IDS = {"cardtable/Solo-v0": "solo", "cardtable/Scout-v0": "scout"}


def register() -> None:
    """Register the ids with Gymnasium (once)."""
    for env_id, maker in IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=f"{__name__}:{maker}",
                               vector_entry_point=f"cardtable.envs.gym_vector:{maker}_vector")


register()
