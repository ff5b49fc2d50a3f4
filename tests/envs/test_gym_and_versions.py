"""Gymnasium's ids (with Gymnasium's own checker), PettingZoo's versioned modules (with
PettingZoo's own tests), bounded observation spaces, and ``state()``."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("pettingzoo", reason="needs the envs extra (pip install -e '.[envs]')")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

import cardtable.envs.gym_env  # noqa: E402,F401  (registers the ids)
from cardtable.engine.errors import ParseError  # noqa: E402
from cardtable.envs import scout_codec, scout_v0, solo_codec, solo_v0  # noqa: E402
from cardtable.envs.vector import VectorEnv  # noqa: E402
from tests.envs.helpers import run_random  # noqa: E402

ANNIVERSARY = {"edition": "anniversary"}


@pytest.mark.parametrize("env_id,kwargs", [
    ("cardtable/Solo-v0", {}),
    ("cardtable/Solo-v0", {"players": 4, "rules": ANNIVERSARY, "opponents": "random"}),
    ("cardtable/Scout-v0", {"players": 3}),
])
def test_gymnasium_check_env_passes_with_bounded_spaces(env_id: str, kwargs: dict) -> None:
    env = gym.make(env_id, **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    said = " ".join(str(w.message) for w in caught)
    assert "infinity" not in said and "infinite" not in said


def test_a_gym_episode_pays_the_seat_its_score_and_ends() -> None:
    env = gym.make("cardtable.envs.gym_env:cardtable/Solo-v0", players=3, opponents="heuristic")
    obs, _ = env.reset(seed=4)
    rng, total, steps, done = np.random.default_rng(0), 0.0, 0, False
    while not done:
        assert env.observation_space.contains(obs)
        assert np.array_equal(env.unwrapped.action_masks(), obs["action_mask"].astype(bool))
        token = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(token)
        assert not info["illegal_action"]
        total, steps, done = total + reward, steps + 1, terminated or truncated
    table = env.unwrapped.table
    assert terminated and table.done
    assert total == -table.state.round_scores()[0] * (1 if table.config.scoring == "penalty" else -1)
    with pytest.raises(ParseError, match="episode is over"):
        env.step(0)


def test_illegal_tokens_are_replaced_or_refused() -> None:
    env = gym.make("cardtable/Scout-v0", players=3)
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, _, _, _, info = env.step(illegal)
    assert info["illegal_action"]
    strict = gym.make("cardtable/Scout-v0", players=3, illegal="raise")
    obs, _ = strict.reset(seed=0)
    with pytest.raises(ParseError, match="not legal"):
        strict.step(illegal)
    with pytest.raises(ParseError, match="illegal must be"):
        gym.make("cardtable/Scout-v0", illegal="ignore")
    with pytest.raises(ParseError, match="opponents must name every seat"):
        gym.make("cardtable/Scout-v0", players=3, opponents={1: "random"})


@pytest.mark.parametrize("module,kwargs", [(solo_v0, {"players": 3}), (scout_v0, {"players": 4})])
def test_versioned_modules_pass_pettingzoo_s_tests(module: object, kwargs: dict) -> None:
    api_test(module.env(**kwargs), num_cycles=150)  # type: ignore[attr-defined]
    seed_test(lambda: module.env(**kwargs), num_cycles=50)  # type: ignore[attr-defined]
    render_test(lambda render_mode: module.env(render_mode=render_mode, **kwargs))  # type: ignore[attr-defined]
    vector = module.vector_env(num_envs=2, **kwargs)  # type: ignore[attr-defined]
    assert isinstance(vector, VectorEnv)


@pytest.mark.parametrize("make,codec", [(lambda: solo_v0.raw_env(4, rules=ANNIVERSARY), solo_codec),
                                        (lambda: scout_v0.raw_env(3), scout_codec)])
def test_observations_and_state_stay_in_their_bounded_spaces(make: object, codec: object) -> None:
    env = make()  # type: ignore[operator]
    layout = codec.LAYOUT  # type: ignore[attr-defined]
    space = env.observation_space(env.possible_agents[0])["observation"]
    assert np.all(np.isfinite(space.low)) and np.all(np.isfinite(space.high))
    assert env.state_space.shape == (len(env.possible_agents) * layout.size,)
    env.reset(seed=2)
    rng = np.random.default_rng(1)
    for steps, _ in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        assert space.contains(obs["observation"])
        if steps % 25 == 0:
            state = env.state()
            assert env.state_space.contains(state)
            seat = env.unwrapped.table.state.to_move()
            if seat is not None:  # the state holds the seat's own observation, hand and all
                view = env.unwrapped.table.features(seat)[0]
                block = state[seat * layout.size:(seat + 1) * layout.size]
                assert np.array_equal(block, layout.normalise(view))
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_raw_observations_are_the_codec_counts() -> None:
    env = solo_v0.raw_env(3, normalise=False)
    out = run_random(env, seed=1)
    assert out["steps"] > 0
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)["observation"]
    start = solo_codec.LAYOUT.offsets["hand_sizes"][0]
    assert obs[start:start + 3].tolist() == [8.0, 8.0, 8.0]
    scaled = solo_v0.raw_env(3)
    scaled.reset(seed=1)
    assert scaled.observe(scaled.agent_selection)["observation"][start] == np.float32(8 / 120)


@pytest.mark.parametrize("game,players", [("solo", 3), ("scout", 4)])
def test_the_shaped_reward_adds_up_to_minus_the_first_potential(game: str, players: int) -> None:
    """Same seed, same tokens: with shaping every seat's episode total moves by exactly
    ``-w`` times its potential at the deal (potential-based shaping), and rewards come early."""
    from cardtable.engine.match import match_seed
    from cardtable.envs.shaping import potentials
    from cardtable.envs.table import Table

    totals, early = [], []
    for weight in (0.0, 0.5):
        table = Table(game, players, shaping=weight)
        table.reset(match_seed(3, 0))
        first = potentials(table.state)
        rng = np.random.default_rng(0)
        total, paid = np.zeros(players), 0
        while table.decision() is not None:
            table.say(int(rng.choice(table.legal_tokens())))
            got = np.array(table.take_rewards())
            paid += int(got.any() and table.decision() is not None)
            total += got
        totals.append(total)
        early.append(paid)
    assert np.allclose(totals[1] - totals[0], [-0.5 * p for p in first])
    assert early[0] == 0 and early[1] > 10
    gym_env = gym.make("cardtable/Solo-v0", shaping=1.0)
    gym_env.reset(seed=0)
    assert gym_env.unwrapped.table.shaping == 1.0
    assert solo_v0.raw_env(3, shaping=0.25).table.shaping == 0.25


@pytest.mark.parametrize("env_id,kwargs", [("cardtable/Solo-v0", {"players": 3}),
                                           ("cardtable/Scout-v0", {"players": 4, "opponents": "random"})])
def test_make_vec_gives_the_c_vector_form_with_same_step_autoreset(env_id: str, kwargs: dict) -> None:
    runs = []
    for _ in range(2):
        env = gym.make_vec(env_id, num_envs=8, vectorization_mode="vector_entry_point", **kwargs)
        obs, _ = env.reset(seed=5)
        rng, ended = np.random.default_rng(0), 0
        for _ in range(300):
            assert env.observation_space.contains(obs)
            assert np.array_equal(env.action_masks(), obs["action_mask"].astype(bool))
            tokens = (rng.random(obs["action_mask"].shape) * obs["action_mask"]).argmax(axis=1)
            obs, rewards, terminated, truncated, info = env.step(tokens)
            assert not rewards[~terminated].any() and not truncated.any()
            for i in np.flatnonzero(terminated):
                final = info["final_obs"][i]
                assert info["_final_obs"][i] and env.single_observation_space.contains(final)
                assert not np.array_equal(final["observation"], obs["observation"][i])
                ended += 1
        assert ended >= 8
        runs.append(obs["observation"])
    assert np.array_equal(runs[0], runs[1])  # same seed, same tokens, same games
    with pytest.raises(ParseError, match="not legal"):
        env.step(np.full(8, -1))
