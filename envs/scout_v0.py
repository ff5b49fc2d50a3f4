"""SCOUT, PettingZoo's versioned module (``from cardtable.envs import scout_v0``).

``scout_v0.env(players=4, opponents=...)``: the AEC environment behind PettingZoo's
order-enforcing wrapper (``backend="c"``: the same API stepped in the C mirror,
``envs.pettingzoo_c``); ``raw_env(...)``: unwrapped; ``vector_env(num_envs, players, ...)``:
N games at once in C (``envs.vector.VectorEnv``). The options are ``scout_env``'s
(docs/envs.md). The version goes up when observations, tokens or rewards change.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers

from cardtable.envs.pettingzoo_env import CardtableEnv, scout_env
from cardtable.envs.vector import VectorEnv

raw_env = scout_env


def env(**kwargs: Any) -> Any:
    """The AEC environment, wrapped as PettingZoo's own environments are (``backend="engine"``
    or ``"c"``)."""
    return wrappers.OrderEnforcingWrapper(scout_env(**kwargs))


def vector_env(num_envs: int = 64, players: int = 4, **kwargs: Any) -> VectorEnv:
    """``num_envs`` one-round SCOUT games stepped together in C."""
    return VectorEnv("scout", num_envs=num_envs, players=players, **kwargs)


__all__ = ["CardtableEnv", "env", "raw_env", "vector_env"]
