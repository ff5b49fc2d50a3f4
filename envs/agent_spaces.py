"""What both PettingZoo backends declare alike (``envs/pettingzoo_env.py``, the engine's, and
``envs/pettingzoo_c.py``, the C mirror's): the agents, their spaces and the episode seeds; and
the observation space the Gymnasium forms share (``observation_box``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv


class AgentSpaces(AECEnv):  # type: ignore[misc]
    """What both backends declare alike: the agents and their spaces (``declare_agents``)."""

    metadata = {"name": "cardtable_v0", "render_modes": ["ansi"], "is_parallelizable": False}
    codec: Any
    normalise: bool
    _seat: dict[str, int]
    _agent: dict[int, str]
    _observation_spaces: dict[str, spaces.Space[Any]]
    _action_spaces: dict[str, spaces.Space[Any]]
    _seed: int | None = None   # the seed of the episodes dealt, and the next episode's number
    _episode = 0

    def _next_episode(self, seed: int | None) -> tuple[int, int]:
        """The seed and episode to deal: episode 0 of a new ``seed``; without one, the next
        episode of the last seed (0 at first)."""
        if seed is not None:
            self._seed, self._episode = int(seed), 0
        elif self._seed is None:
            self._seed = 0
        self._episode += 1
        return self._seed, self._episode - 1

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_spaces[agent]


def declare_agents(env: AgentSpaces, game: str, players: int, seats: list[int], render_mode: str | None,
                   normalise: bool) -> None:
    """``player_<seat>`` for each of ``seats``, their observation and action spaces over
    ``env.codec``'s layout and tokens, and the ``state()`` space of all ``players`` seats."""
    env.metadata = {**env.metadata, "name": f"cardtable_{game}_v0"}
    env.render_mode = render_mode
    env.normalise = normalise
    env.possible_agents = [f"player_{s}" for s in seats]
    env._seat = {a: s for a, s in zip(env.possible_agents, seats, strict=True)}
    env._agent = {s: a for a, s in env._seat.items()}
    layout, tokens = env.codec.LAYOUT, env.codec.NUM_TOKENS
    space = spaces.Dict({
        "observation": observation_box(layout, normalise),
        "action_mask": spaces.Box(0, 1, (tokens,), np.int8),
    })
    env._observation_spaces = {a: space for a in env.possible_agents}
    env._action_spaces = {a: spaces.Discrete(tokens) for a in env.possible_agents}
    env.state_space = observation_box(layout, normalise, players)


def observation_box(layout: Any, normalise: bool, copies: int = 1) -> spaces.Box:
    """The observation space: the layout's scaled ranges (``normalise``), else unbounded raw
    counts; ``copies`` layouts end to end (``state()``)."""
    if not normalise:
        return spaces.Box(-np.inf, np.inf, (copies * layout.size,), np.float32)
    return spaces.Box(np.tile(layout.low, copies), np.tile(layout.high, copies), dtype=np.float32)
