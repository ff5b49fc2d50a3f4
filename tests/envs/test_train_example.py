"""examples/train_ppo.py: sb3-contrib's MaskablePPO on the vector env, and its checkpoint.

Needs sb3-contrib (stable-baselines3 and torch), which the project's extras do not install:
without it these tests skip."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="needs sb3-contrib (pip install sb3-contrib)")

ROOT = Path(__file__).resolve().parents[2]


def example() -> Any:
    spec = importlib.util.spec_from_file_location("train_ppo", ROOT / "examples" / "train_ppo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_checkpoint_beats_a_random_agent_against_the_heuristic() -> None:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    train = example()
    env = train.CardtableVecEnv("solo", 2, num_envs=8, seed=0, shaping=1.0)
    model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [64, 64]}, device="cpu")
    model.policy.load_state_dict(torch.load(ROOT / "examples" / "ppo_solo_2p.pt", weights_only=True))
    rng = np.random.default_rng(0)

    def random_agent(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return (rng.random(masks.shape) * masks).argmax(axis=1)

    def ppo_agent(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.asarray(model.predict(obs, action_masks=masks, deterministic=True)[0])

    base, base_half = train.evaluate(random_agent, "solo", 2, 300, seed=1)
    learnt, learnt_half = train.evaluate(ppo_agent, "solo", 2, 300, seed=1)
    assert learnt - learnt_half > base + base_half + 20


def test_a_short_training_run_goes_through(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    train = example()
    monkeypatch.setattr(sys, "argv", ["train_ppo.py", "--minutes", "0.02", "--eval", "64", "--envs", "8"])
    train.main()
    out = capsys.readouterr().out
    assert "random agent vs heuristic" in out and "PPO agent vs heuristic" in out
    assert "trained" in out
