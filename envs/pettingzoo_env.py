"""SOLO and SCOUT as PettingZoo AEC environments (docs/envs.md).

``solo_env(players=4, rules={"edition": "anniversary"}, opponents={1: "ismcts:fast"})``;
agents are ``player_<seat>`` for the seats without an opponent bot. Observations are
``{"observation": float32 vector, "action_mask": int8 vector}`` over a fixed token space.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from cardtable.engine.match import match_seed
from cardtable.envs.table import Table


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


class CardtableEnv(AgentSpaces):
    """One table of SOLO or SCOUT; see ``solo_env`` and ``scout_env`` for the options."""

    def __init__(self, game: str, players: int, rules: Mapping[str, Any] | None = None,
                 opponents: Mapping[int, str] | None = None, episode: str = "round",
                 reward: str = "score", false_catches: bool = False, max_actions: int = 20_000,
                 render_mode: str | None = None, normalise: bool = True, shaping: float = 0.0) -> None:
        super().__init__()
        self.table = Table(game, players, rules, opponents, episode, reward, false_catches, max_actions,
                           shaping)
        self.codec = self.table.codec
        declare_agents(self, game, players, self.table.agent_seats, render_mode, normalise)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal episode 0 of ``seed`` (the deal of ``cardtable match --seed S``'s first game);
        without a seed, the next episode of the last seed (0 at first)."""
        self.table.reset(match_seed(*self._next_episode(seed)))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._after_move()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        vector, mask = self.table.features(self._seat[agent])
        return {"observation": self._scaled(vector), "action_mask": mask}

    def _scaled(self, vector: np.ndarray) -> np.ndarray:
        return self.table.codec.LAYOUT.normalise(vector) if self.normalise else vector

    def state(self) -> np.ndarray:
        """The whole table for a centralised critic: every seat's observation vector (bots'
        seats too), in seat order, end to end; together they hold every hand."""
        return np.concatenate([self._scaled(self.table.features(s)[0])
                               for s in range(self.table.players)])

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.table.say(int(action))
        self._after_move()

    def _after_move(self) -> None:
        table = self.table
        earned = table.take_rewards()
        self.rewards = {a: float(earned[self._seat[a]]) for a in self.agents}
        if table.done or table.truncated:
            for a in self.agents:
                self.terminations[a] = table.done
                self.truncations[a] = table.truncated and not table.done
        decision = table.decision()
        if decision is not None:
            self.agent_selection = self._agent[decision.seat]
        elif self.agents:
            self.agent_selection = getattr(self, "agent_selection", None) or self.agents[0]
            if self.agent_selection not in self.agents:
                self.agent_selection = self.agents[0]
        self._accumulate_rewards()

    def render(self) -> str:
        """The events of the last action, in words (``render_mode="ansi"``)."""
        return "\n".join(str(e) for e in self.table.events)

    def close(self) -> None:
        pass


def observation_box(layout: Any, normalise: bool, copies: int = 1) -> spaces.Box:
    """The observation space: the layout's scaled ranges (``normalise``), else unbounded raw
    counts; ``copies`` layouts end to end (``state()``)."""
    if not normalise:
        return spaces.Box(-np.inf, np.inf, (copies * layout.size,), np.float32)
    return spaces.Box(np.tile(layout.low, copies), np.tile(layout.high, copies), dtype=np.float32)


BACKENDS = ("engine", "c")


def _build(game: str, players: int, rules: Mapping[str, Any] | None,
           opponents: Mapping[int, str] | None, backend: str, options: dict[str, Any]) -> Any:
    if backend == "engine":
        return CardtableEnv(game, players, rules, opponents, **options)
    if backend == "c":
        from cardtable.envs.pettingzoo_c import CardtableCEnv

        return CardtableCEnv(game, players, rules, opponents, **options)
    raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")


def solo_env(players: int = 4, rules: Mapping[str, Any] | None = None,
             opponents: Mapping[int, str] | None = None, backend: str = "engine",
             **options: Any) -> Any:
    """SOLO for 2-10 players. ``rules``: ``edition`` (``classic``/``anniversary``) and any
    option of ``engine.solo.Config`` (``gifts``, ``protection``, ``multiples``, ``call``,
    ``scoring``, ``pool``, ``threshold``, ``self_jump_in``, ``false_catch_penalty``,
    ``mixed_stacking``). ``opponents``: seat -> bot spec. Other options: ``episode``
    (``round``/``match``), ``reward`` (``score``/``win``), ``false_catches``,
    ``max_actions``, ``render_mode``, ``normalise`` (scaled, bounded observations; default on),
    ``shaping`` (the weight of the potential-based shaped reward, ``envs.shaping``; 0: off).
    ``backend``: ``engine`` (``CardtableEnv``, the engine's game to the card) or ``c``
    (``envs.pettingzoo_c.CardtableCEnv``: the same API stepped in the C mirror, one-round
    episodes, the mirror's deals and C opponents)."""
    return _build("solo", players, rules, opponents, backend, options)


def scout_env(players: int = 4, opponents: Mapping[int, str] | None = None, backend: str = "engine",
              **options: Any) -> Any:
    """SCOUT for 2-5 players (no other rule options); the rest as for ``solo_env``."""
    return _build("scout", players, None, opponents, backend, options)
