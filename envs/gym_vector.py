"""Gymnasium's vector form of the single-agent ids, on the C vector env.

``gymnasium.make_vec("cardtable/Solo-v0", num_envs=256, vectorization_mode="vector_entry_point")``
(after ``import cardtable.envs.gym_env``) gives ``CardtableVectorEnv``: ``num_envs`` games in
the C mirror, the agent in ``seat``, the other seats played inside the C loop by the mirror's
heuristic (or at random), with Gymnasium's same-step autoreset (a finished game's last
observation is in ``info["final_obs"]``). Unlike ``gymnasium.make``, whose opponents are the
project's Python bots, these opponents are the C ones (docs/envs.md, "Vector env").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from cardtable.engine.errors import ParseError
from cardtable.envs.pettingzoo_env import observation_box
from cardtable.envs.vector import VectorEnv


class CardtableVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of ``game``; observations ``{"observation", "action_mask"}`` batched."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, game: str = "solo", num_envs: int = 64, players: int = 2, seat: int = 0,
                 opponents: str = "heuristic", rules: Mapping[str, Any] | None = None,
                 normalise: bool = True, shaping: float = 0.0, max_actions: int = 20_000) -> None:
        if opponents not in ("heuristic", "random"):
            raise ParseError(f"opponents must be heuristic or random, not {opponents!r}")
        try:
            self.env = VectorEnv(game, num_envs, players, rules, max_actions=max_actions,
                                 normalise=normalise, opponents=opponents, agent_seat=seat,
                                 shaping=shaping)
        except ValueError as err:
            raise ParseError(str(err)) from None
        self.num_envs, self.seat = num_envs, seat
        layout, tokens = self.env.codec.LAYOUT, self.env.codec.NUM_TOKENS
        self.single_observation_space = spaces.Dict({
            "observation": observation_box(layout, normalise),
            "action_mask": spaces.Box(0, 1, (tokens,), np.int8),
        })
        self.single_action_space = spaces.Discrete(tokens)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal every game again (from ``seed``, else from the env's seeded generator)."""
        super().reset(seed=seed)
        self.env.reset(seed if seed is not None else int(self.np_random.integers(2**63)))
        return self._observe(), {}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """Every game's agent says its token (all must be legal: ``action_masks()``)."""
        try:
            _, rewards, dones, truncations = self.env.step(actions)
        except ValueError as err:
            raise ParseError(str(err)) from None
        infos: dict[str, Any] = {}
        ended = dones | truncations
        if ended.any():
            final = np.full(self.num_envs, None, dtype=object)
            final_observations = self.env.final_observations
            assert final_observations is not None
            for i in np.flatnonzero(ended):
                final[i] = {"observation": np.array(final_observations[i]),
                            "action_mask": np.zeros(self.env.action_masks.shape[1], np.int8)}
            infos = {"final_obs": final, "_final_obs": ended.copy(),
                     "final_info": {}, "_final_info": ended.copy()}
        return (self._observe(), rewards[:, self.seat].astype(np.float64), dones.copy(),
                truncations.copy(), infos)

    def action_masks(self) -> np.ndarray:
        """(num_envs, tokens) bool: the tokens each game's agent may say now."""
        return np.array(self.env.action_masks, dtype=bool)

    def _observe(self) -> dict[str, np.ndarray]:
        return {"observation": np.array(self.env.observations),
                "action_mask": np.array(self.env.action_masks)}


def solo_vector(num_envs: int = 64, **kwargs: Any) -> CardtableVectorEnv:
    """``make_vec("cardtable/Solo-v0", ...)``."""
    return CardtableVectorEnv("solo", num_envs, **kwargs)


def scout_vector(num_envs: int = 64, **kwargs: Any) -> CardtableVectorEnv:
    """``make_vec("cardtable/Scout-v0", ...)``."""
    return CardtableVectorEnv("scout", num_envs, **kwargs)
