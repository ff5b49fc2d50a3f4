"""The PettingZoo AEC environment on the C path (envs/pettingzoo_c.py) against the engine-backed one.

Side by side: the engine-backed env deals a round, the C-backed env loads that position, and
both are played with the same random tokens; at every step they must agree on the agent
asked, every agent's observation vector and action mask, the rewards, terminations and
``state()``. The engine's and the mirror's reshuffles draw different orders, so after a step
that reshuffles, the engine's position is loaded into the C env again (and that step's
rewards are not compared).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="needs the envs extra (pip install -e '.[envs]')")

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

from cardtable.engine.errors import IllegalAction  # noqa: E402
from cardtable.engine.solo import State as SoloState  # noqa: E402
from cardtable.envs import scout_v0, solo_codec, solo_v0  # noqa: E402
from cardtable.envs.pettingzoo_c import CardtableCEnv, episode_seed  # noqa: E402
from cardtable.envs.pettingzoo_env import CardtableEnv, scout_env, solo_env  # noqa: E402
from cardtable.envs.shaping import potentials  # noqa: E402
from cardtable.envs.vector import VectorEnv  # noqa: E402
from tests.envs.helpers import run_random  # noqa: E402
from tests.envs.test_vector import CASES  # noqa: E402


def _pair(game: str, players: int, rules: dict[str, Any] | None, **options: Any) -> tuple[Any, Any]:
    if game == "solo":
        return (solo_env(players, rules=rules, **options),
                solo_env(players, rules=rules, backend="c", **options))
    return scout_env(players, **options), scout_env(players, backend="c", **options)


def _same_view(engine: CardtableEnv, c: CardtableCEnv, where: str) -> None:
    assert c.agent_selection == engine.agent_selection, where
    for agent in engine.possible_agents:  # the asked agent and every other one
        want, got = engine.observe(agent), c.observe(agent)
        assert np.array_equal(got["action_mask"], want["action_mask"]), f"{where} {agent} mask"
        assert np.array_equal(got["observation"], want["observation"]), f"{where} {agent} observation"
    assert np.array_equal(c.state(), engine.state()), f"{where} state"


def play_side_by_side(engine: CardtableEnv, c: CardtableCEnv, seed: int, cap: int = 20_000) -> int:
    """Play ``engine`` (just reset) and ``c`` (holding its position) together to the end."""
    rng = random.Random(seed)
    for step in range(cap):
        where = f"seed {seed} step {step}"
        _same_view(engine, c, where)
        _, _, term, trunc, _ = engine.last()
        assert c.last()[2:4] == (term, trunc), where
        if term or trunc:
            assert c.terminations == engine.terminations and c.truncations == engine.truncations, where
            assert c._cumulative_rewards == pytest.approx(engine._cumulative_rewards), where
            return step
        mask = engine.observe(engine.agent_selection)["action_mask"]
        token = rng.choice(np.flatnonzero(mask).tolist())
        before = getattr(engine.table.state, "reshuffles", 0)
        engine.step(token)
        c.step(token)
        if getattr(engine.table.state, "reshuffles", 0) != before:
            assert not engine.table.done, where
            c.load(engine.table.state.snapshot())
            continue
        assert c.rewards == pytest.approx(engine.rewards), where
    raise AssertionError(f"seed {seed}: no end in {cap} steps")


@pytest.mark.parametrize(("game", "players", "rules"), CASES)
def test_engine_deals_play_the_same_in_the_c_backed_env(game: str, players: int,
                                                        rules: dict[str, Any] | None) -> None:
    engine, c = _pair(game, players, rules)
    steps = 0
    for seed in range(3):
        engine.reset(seed=seed)
        c.reset(seed=seed)
        c.load(engine.table.state.snapshot())
        steps += play_side_by_side(engine, c, seed)
    assert steps > 60


def test_raw_observations_agree_too() -> None:
    engine, c = _pair("solo", 3, {"edition": "classic"}, normalise=False)
    engine.reset(seed=5)
    c.load(engine.table.state.snapshot())
    assert play_side_by_side(engine, c, seed=5) > 20


@pytest.mark.parametrize("module,kwargs", [
    (solo_v0, {"players": 3}),
    (solo_v0, {"players": 5, "rules": {"edition": "anniversary"}}),
    (solo_v0, {"players": 2, "opponents": {1: "heuristic"}, "shaping": 1.0}),
    (scout_v0, {"players": 4}),
    (scout_v0, {"players": 3, "opponents": {0: "random", 2: "random"}}),
])
def test_the_c_backend_passes_pettingzoo_s_tests(module: Any, kwargs: dict[str, Any]) -> None:
    api_test(module.env(backend="c", **kwargs), num_cycles=300)
    seed_test(lambda: module.env(backend="c", **kwargs), num_cycles=100)
    render_test(lambda render_mode: module.env(backend="c", render_mode=render_mode, **kwargs))


def test_seeds_deal_the_mirror_s_episodes_reproducibly() -> None:
    env = solo_v0.raw_env(3, backend="c")
    runs = [run_random(env, seed=4) for _ in range(2)]
    assert runs[0] == runs[1] and runs[0]["steps"] > 0
    env.reset(seed=4)
    first = env.vec.snapshot(0)
    env.reset()  # the next episode of the same seed
    second = env.vec.snapshot(0)
    assert first != second
    for k, snap in enumerate((first, second)):  # episode k: the mirror's deal of its seed
        assert VectorEnv("solo", num_envs=1, players=3, seed=episode_seed(4, k)).snapshot(0) == snap
    env.reset(seed=5)
    assert env.vec.snapshot(0) != first


def test_c_opponents_fill_every_other_seat_and_are_never_asked() -> None:
    env = scout_v0.raw_env(3, opponents={0: "heuristic", 1: "heuristic"}, backend="c")
    assert env.possible_agents == ["player_2"]
    out = run_random(env, seed=1)
    assert out["steps"] > 0 and out["returns"]["player_2"] != 0
    env.reset(seed=1)
    for agent in env.agent_iter():
        assert agent == "player_2"
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
        else:
            env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))


def test_a_round_s_rewards_add_up_to_its_score_and_the_shaping_telescopes() -> None:
    """Paid over an episode: the round's score (the final total less the pool) plus
    w x (0 - the seat's potential at the deal)."""
    env = solo_v0.raw_env(2, opponents={1: "random"}, shaping=0.5, normalise=False, backend="c")
    for seed in range(3):
        env.reset(seed=seed)
        start = potentials(SoloState.from_snapshot(env.vec.snapshot(0)))[0]
        returns = run_random(env, seed=seed)["returns"]["player_0"]
        assert env.vec.dones[0]  # the round ended (held as it ended)
        total = env.observe("player_0")["observation"][solo_codec.LAYOUT.offsets["totals"][0]]
        assert returns == pytest.approx(total - 500 + 0.5 * (0 - start), abs=1e-3)


def test_the_c_backend_refuses_what_it_does_not_offer_in_one_line() -> None:
    with pytest.raises(ValueError, match="backend must be one of"):
        solo_env(2, backend="gpu")
    with pytest.raises(ValueError, match="one-round episodes"):
        scout_env(2, episode="match", backend="c")
    with pytest.raises(ValueError, match="reward='score'"):
        solo_env(2, reward="win", backend="c")
    with pytest.raises(ValueError, match="false_catches"):
        solo_env(3, false_catches=True, backend="c")
    with pytest.raises(ValueError, match="every seat but one"):
        solo_env(4, opponents={1: "heuristic"}, backend="c")
    with pytest.raises(ValueError, match="every seat but one"):
        solo_env(3, opponents={1: "heuristic", 2: "ismcts:fast"}, backend="c")
    with pytest.raises(ValueError, match="voluntary_pass"):
        CardtableCEnv("scout", 2, {"voluntary_pass": True})
    env = solo_v0.env(players=2, backend="c")
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalAction, match=f"token {illegal} is not legal now"):
        env.step(illegal)
    with pytest.raises(IllegalAction, match="token 360 is not legal now"):
        env.step(360)


def test_render_says_the_last_agent_action_in_tokens() -> None:
    env = solo_v0.raw_env(2, backend="c", render_mode="ansi", rules={"edition": "anniversary"})
    env.reset(seed=2)
    assert env.render() == ""
    rng = np.random.default_rng(0)
    said: list[str] = []
    seen = 0
    for _ in range(300):
        if env.vec.seats[0] < 0:  # the round is over: the next one
            env.reset()
        seat = env._seat[env.agent_selection]
        token = int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
        before = env.render()
        env.step(token)
        said.append(solo_codec.token_text(token))
        if env.render() != before or env.vec.observations[0, env._asked_path] == 0:
            assert env.render() == f"seat {seat}: " + ", ".join(said)
            seen += len(said) > 1
            said = []
    assert seen  # some actions took two tokens


def test_a_round_the_c_opponents_end_before_the_agent_moves_ends_the_episode_at_reset() -> None:
    """One card each: seat 1 plays first and may go out at once; the agent is then done at
    reset with its (losing) score, and its next step (None) removes it, as PettingZoo wants."""
    env = solo_v0.raw_env(2, rules={"hand_size": 1}, opponents={1: "heuristic"}, backend="c")
    ended = 0
    for seed in range(40):
        env.reset(seed=seed)
        obs, reward, term, trunc, _ = env.last()
        if term:
            ended += 1
            assert not trunc and not obs["action_mask"].any() and reward < 0
            env.step(None)
            assert env.agents == []
        else:
            assert obs["action_mask"].any() and reward == 0
    assert 0 < ended < 40
