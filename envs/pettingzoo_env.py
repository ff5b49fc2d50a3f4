"""SOLO and SCOUT as PettingZoo AEC environments (docs/envs.md).

``solo_env(players=4, rules={"edition": "anniversary"}, opponents={1: "ismcts:fast"})``;
agents are ``player_<seat>`` for the seats without an opponent bot. Observations are
``{"observation": float32 vector, "action_mask": int8 vector}`` over a fixed token space.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cardtable.engine.match import match_seed
from cardtable.envs.agent_spaces import AgentSpaces, declare_agents
from cardtable.envs.table import Table


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
