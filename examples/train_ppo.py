"""Train a SOLO (or SCOUT) agent with MaskablePPO against the C heuristic, on the batched env.

Run: ``python examples/train_ppo.py --minutes 3`` (needs the envs extra and
``pip install sb3-contrib``, which brings stable-baselines3 and torch). One seat is the agent;
the C mirror's heuristic plays the others inside cardtable's vector env, and
sb3-contrib's MaskablePPO (stable-baselines3's PPO with invalid tokens masked out) learns
from the token masks. Before training and after, the agent plays ``--eval`` rounds against
the heuristic and the script prints its mean round score with a 95% interval, beside a
uniformly random agent's. ``--save PATH`` keeps the policy's weights (PATH.pt) and the
learning curve (PATH.csv: agent steps, the mean shaped return of the rounds finished in
that update); ``--load PATH.pt --minutes 0`` evaluates saved weights
(``examples/ppo_solo_2p.pt`` is one, trained by this script's defaults).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from gymnasium import spaces  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.vec_env import VecEnv  # noqa: E402

from cardtable.envs.vector import VectorEnv  # noqa: E402

REWARD_SCALE = 0.01  # SOLO round scores are tens of points: PPO likes rewards near 1


class CardtableVecEnv(VecEnv):  # type: ignore[misc]
    """stable-baselines3's VecEnv over cardtable's VectorEnv with computer opponents."""

    def __init__(self, game: str, players: int, num_envs: int, seed: int, shaping: float) -> None:
        self.env = VectorEnv(game, num_envs=num_envs, players=players, opponents="heuristic",
                             agent_seat=0, seed=seed, shaping=shaping)
        size, tokens = self.env.observations.shape[1], self.env.action_masks.shape[1]
        layout = self.env.codec.LAYOUT
        super().__init__(num_envs, spaces.Box(layout.low, layout.high, (size,), np.float32),
                         spaces.Discrete(tokens))
        self._actions = np.zeros(num_envs, np.int32)
        self._returns = np.zeros(num_envs)
        self._lengths = np.zeros(num_envs, np.int64)
        self.finished: list[float] = []  # the round scores (unshaped) of finished episodes

    def reset(self) -> np.ndarray:
        return np.array(self.env.observations)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int32)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        obs, rewards, dones, truncations = self.env.step(self._actions)
        reward = rewards[:, 0].astype(np.float64)
        self._returns += reward
        self._lengths += 1
        ended = dones | truncations
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(ended):
            infos[i] = {"episode": {"r": self._returns[i], "l": int(self._lengths[i])},
                        "terminal_observation": np.array(obs[i]),
                        "TimeLimit.truncated": bool(truncations[i] and not dones[i])}
            self._returns[i], self._lengths[i] = 0.0, 0
        return np.array(obs), reward * REWARD_SCALE, ended.copy(), infos

    def action_masks(self) -> np.ndarray:
        return np.array(self.env.action_masks, dtype=bool)

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        if method_name == "action_masks":
            return list(self.action_masks()[self._get_indices(indices)])
        raise AttributeError(f"no method {method_name}")

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks"

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "render_mode":
            return [None] * len(self._get_indices(indices))
        raise AttributeError(f"no attribute {attr_name}")

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"no attribute {attr_name}")

    def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
        return [False] * len(self._get_indices(indices))

    def close(self) -> None:
        pass


def evaluate(choose: Any, game: str, players: int, rounds: int, seed: int) -> tuple[float, float]:
    """The agent's mean round score against the heuristic over ``rounds`` rounds, and the
    half-width of its 95% interval. ``choose(obs, masks)`` gives a token per game."""
    env = VectorEnv(game, num_envs=64, players=players, opponents="heuristic", seed=seed)
    scores: list[float] = []
    while len(scores) < rounds:
        _, rewards, dones, truncations = env.step(choose(np.array(env.observations),
                                                         np.array(env.action_masks, dtype=bool)))
        scores += rewards[dones | truncations, 0].tolist()
    got = np.array(scores[:rounds])
    return float(got.mean()), float(1.96 * got.std(ddof=1) / np.sqrt(len(got)))


class Curve(BaseCallback):  # type: ignore[misc]
    """Stop after the time budget; note the mean score of the rounds finished per update."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.deadline = time.monotonic() + seconds
        self.rows: list[tuple[int, float, int]] = []
        self._scores: list[float] = []

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "episode" in info:
                self._scores.append(info["episode"]["r"])
        return time.monotonic() < self.deadline

    def _on_rollout_end(self) -> None:
        if self._scores:
            self.rows.append((self.num_timesteps, float(np.mean(self._scores)), len(self._scores)))
            self._scores = []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=["solo", "scout"], default="solo")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--minutes", type=float, default=3.0, help="training time")
    parser.add_argument("--envs", type=int, default=64, help="games stepped together")
    parser.add_argument("--shaping", type=float, default=1.0, help="shaped reward weight")
    parser.add_argument("--eval", type=int, default=2000, help="rounds per evaluation")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", type=Path, help="keep the weights (PATH.pt) and the curve (PATH.csv)")
    parser.add_argument("--load", type=Path, help="start from saved weights (--minutes 0: only evaluate)")
    args = parser.parse_args()
    torch.set_num_threads(1)  # one core: the env is not the bottleneck, the network is
    rng = np.random.default_rng(args.seed)

    def random_agent(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return (rng.random(masks.shape) * masks).argmax(axis=1)

    mean, half = evaluate(random_agent, args.game, args.players, args.eval, seed=10_000)
    print(f"random agent vs heuristic: {mean:.1f} +- {half:.1f} points a round")
    env = CardtableVecEnv(args.game, args.players, args.envs, args.seed, args.shaping)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=1024, n_epochs=4, learning_rate=3e-4,
                        gamma=0.995, ent_coef=0.01, policy_kwargs={"net_arch": [64, 64]},
                        seed=args.seed, verbose=0, device="cpu")
    if args.load:
        model.policy.load_state_dict(torch.load(args.load, weights_only=True))
    curve = Curve(args.minutes * 60)
    if args.minutes > 0:
        start = time.monotonic()
        model.learn(total_timesteps=10**10, callback=curve)
        print(f"trained {model.num_timesteps} agent steps in {time.monotonic() - start:.0f} s")
    for steps, score, rounds in curve.rows[:: max(1, len(curve.rows) // 10)]:
        print(f"  after {steps:>9} steps: mean shaped return {score:7.1f} ({rounds} rounds)")

    def ppo_agent(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        return np.asarray(actions)

    mean, half = evaluate(ppo_agent, args.game, args.players, args.eval, seed=10_000)
    print(f"PPO agent vs heuristic:    {mean:.1f} +- {half:.1f} points a round")
    if args.save:
        torch.save(model.policy.state_dict(), args.save.with_suffix(".pt"))
        with args.save.with_suffix(".csv").open("w", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(["agent_steps", "mean_shaped_return", "rounds"])
            writer.writerows((s, round(r, 2), n) for s, r, n in curve.rows)


if __name__ == "__main__":
    main()
