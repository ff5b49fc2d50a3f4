"""Random agents for the environment tests (seeded numpy generators only)."""

from __future__ import annotations

from typing import Any

import numpy as np


def run_random(env: Any, seed: int, rng_seed: int = 0) -> dict[str, Any]:
    """Play one episode of ``env`` with uniformly random legal tokens; count what happened."""
    rng = np.random.default_rng(rng_seed)
    env.reset(seed=seed)
    steps = offers = 0
    returns = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        returns[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        layout = env.unwrapped.codec.LAYOUT
        start = layout.offsets["asked"][0]
        offers += int(obs["observation"][start + 1])
        env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    return {"steps": steps, "offers": offers, "returns": returns}
