"""The batched C environment (envs/vector.py, ai/_vector.pxi) against the engine.

Side by side: a round is played in the engine (with the PettingZoo environments' asking order,
token paths and codec) and in one game of the vector env, token for token with random legal
tokens; at every step both must agree on the seat asked, the action mask and the observation
vector (SOLO's ``known`` block too: the vector env keeps the engine's bookkeeping), and at the
end on the rewards. The engine's and the mirror's reshuffles draw different orders, so after
a step that reshuffles, the engine's position is loaded into the vector env again.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from cardtable.engine.match import Match, match_seed
from cardtable.engine.scout import State as ScoutState
from cardtable.engine.solo import State as SoloState
from cardtable.envs.asking import Asking
from cardtable.envs.shaping import potentials
from cardtable.envs.table import CODECS, better_sign, make_config
from cardtable.envs.tokens import PASS
from cardtable.envs.vector import VectorEnv

CASES: list[tuple[str, int, dict[str, Any] | None]] = [
    ("solo", 2, {}),
    ("solo", 4, {"edition": "anniversary"}),
    ("solo", 5, {"edition": "classic", "gifts": True, "protection": True, "multiples": True,
                 "self_jump_in": True, "mixed_stacking": True}),
    ("solo", 2, {"hand_size": 3}),  # a short variant
    ("scout", 2, None),
    ("scout", 4, None),
    ("scout", 5, None),
]


def _reference(state: Any, asking: Asking, path: list[int], game: str, n: int,
               config: dict[str, Any], normalise: bool = True) -> tuple[int, np.ndarray, np.ndarray]:
    """The seat asked, its mask and its observation vector, as the PettingZoo env makes them."""
    codec = CODECS[game]
    decision = asking.current(state, state, n)
    assert decision is not None
    mask = np.zeros(codec.NUM_TOKENS, np.int8)
    mask[decision.trie.tokens(tuple(path))] = 1
    obs = state.observation(decision.seat)
    obs.update(round=0, totals=[0] * n, config=config)
    vector = codec.features(obs, path, "offer" if decision.may_pass else "move")
    return decision.seat, mask, codec.LAYOUT.normalise(vector) if normalise else vector


def play_side_by_side(env: VectorEnv, state: Any, seed: int, cap: int = 20000,
                      normalise: bool = True, shaping: float = 0.0) -> int:
    """Play game 0 of ``env`` (holding ``state``'s position) and ``state`` together to the end."""
    game, n = env.game, env.players
    codec = CODECS[game]
    config = state.config.to_dict()
    asking = Asking(codec)
    rng = random.Random(seed)
    path: list[int] = []
    potential = potentials(state)
    for step in range(cap):
        seat, mask, vector = _reference(state, asking, path, game, n, config, normalise)
        where = f"seed {seed} step {step}"
        assert env.seats[0] == seat, where
        assert np.array_equal(env.action_masks[0], mask), where
        assert np.array_equal(env.observations[0], vector), where
        token = rng.choice(np.flatnonzero(mask).tolist())
        env.step([token])
        path.append(token)
        action = asking.current(state, state, n).trie.action(tuple(path))
        if action is None:
            assert not env.dones[0], where
            continue
        path = []
        if action is PASS:
            asking.declined(seat)
            continue
        before = getattr(state, "reshuffles", 0)
        state.apply(seat, action)
        asking.applied()
        now = [0.0] * n if state.is_over() else potentials(state)
        shaped = [shaping * (b - a) for a, b in zip(potential, now, strict=True)]
        potential = now
        reshuffled = getattr(state, "reshuffles", 0) != before
        if state.is_over():
            sign = better_sign(state.config)
            expected = [sign * d + s for d, s in zip(state.round_scores(), shaped, strict=True)]
            assert env.dones[0], where
            assert np.allclose(env.rewards[0], expected, atol=1e-4) or reshuffled, where
            return step + 1
        assert not env.dones[0], where
        assert np.allclose(env.rewards[0], shaped, atol=1e-4) or reshuffled, where
        if reshuffled:
            env.load(0, state.snapshot())
    raise AssertionError(f"seed {seed}: no end in {cap} steps")


@pytest.mark.parametrize(("game", "players", "rules"), CASES)
def test_engine_deals_play_the_same_in_the_vector_env(game: str, players: int,
                                                      rules: dict[str, Any] | None) -> None:
    config = make_config(game, players, rules)
    env = VectorEnv(game, num_envs=1, players=players, rules=rules)
    steps = 0
    for seed in range(3):
        state = Match(config, match_seed(seed, 0)).state
        env.load(0, state.snapshot())
        steps += play_side_by_side(env, state, seed)
    assert steps > 60


@pytest.mark.parametrize(("game", "players", "rules"), CASES)
def test_the_vector_env_deals_rounds_the_engine_plays_the_same(game: str, players: int,
                                                               rules: dict[str, Any] | None) -> None:
    env = VectorEnv(game, num_envs=3, players=players, rules=rules, seed=7)
    engine_state = SoloState if game == "solo" else ScoutState
    fresh = Match(make_config(game, players, rules), b"x").state.snapshot()
    for i in range(3):
        snap = env.snapshot(i)
        deal = {k: v for k, v in snap.items() if k not in ("hands", "draw", "discard", "set_aside",
                                                           "colour", "jump", "seed", "known")}
        assert deal == {k: v for k, v in fresh.items() if k in deal}
        held = sorted(c for pile in [*snap["hands"], snap.get("draw", []), snap.get("discard", []),
                                     snap.get("set_aside", [])] for c in pile)
        dealt = sorted(c for pile in [*fresh["hands"], fresh.get("draw", []),
                                      fresh.get("discard", []), fresh.get("set_aside", [])]
                       for c in pile)
        if game == "scout":  # each card lands either way up
            held = sorted("/".join(sorted(c.split("/"), key=int)) for c in held)
            dealt = sorted("/".join(sorted(c.split("/"), key=int)) for c in dealt)
        assert held == dealt
        assert [len(h) for h in snap["hands"]] == [len(h) for h in fresh["hands"]]
    raw = VectorEnv(game, num_envs=1, players=players, rules=rules, seed=11, normalise=False, shaping=0.5)
    play_side_by_side(raw, engine_state.from_snapshot(raw.snapshot(0)), seed=5, normalise=False,
                      shaping=0.5)


def test_layout_offsets_match_the_codecs() -> None:
    """The C encoders write the codecs' blocks: a known value lands where LAYOUT says."""
    env = VectorEnv("solo", num_envs=1, players=3)
    snap = env.snapshot(0)
    layout = CODECS["solo"].LAYOUT
    seat = int(env.seats[0])
    size = layout.offsets["hand_sizes"][0]
    assert env.observations[0, size:size + 3].tolist() == [np.float32(8 / 120)] * 3
    assert env.observations[0, layout.offsets["draw_size"][0]] == np.float32(len(snap["draw"]) / 120)
    assert np.all(env.observations >= layout.low) and np.all(env.observations <= layout.high)
    assert layout.size == env.observations.shape[1] and seat in (0, 1, 2)
    scout = VectorEnv("scout", num_envs=1, players=4)
    assert CODECS["scout"].LAYOUT.size == scout.observations.shape[1]
    phase = CODECS["scout"].LAYOUT.offsets["phase"][0]
    assert scout.observations[0, phase:phase + 3].tolist() == [1.0, 0.0, 0.0]


def test_random_steps_finish_episodes_pay_rewards_and_are_reproducible() -> None:
    runs = []
    for _ in range(2):
        env = VectorEnv("solo", num_envs=8, players=2, seed=3)
        finished = env.step_random(3000)
        runs.append((finished, env.observations.copy(), env.action_masks.copy(), env.seats.copy()))
        assert finished >= 8
        assert env.action_masks.sum(axis=1).min() >= 1  # every game has a move after auto-reset
    assert runs[0][0] == runs[1][0]
    for a, b in zip(runs[0][1:], runs[1][1:], strict=True):
        assert np.array_equal(a, b)
    other = VectorEnv("solo", num_envs=8, players=2, seed=4)
    other.step_random(3000)
    assert not np.array_equal(other.observations, runs[0][1])


def test_given_tokens_step_and_auto_reset() -> None:
    env = VectorEnv("scout", num_envs=4, players=3, seed=1)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(2000):
        tokens = [int(rng.choice(np.flatnonzero(m))) for m in env.action_masks]
        _, rewards, dones, truncs = env.step(tokens)
        assert not truncs.any()
        ended += int(dones.sum())
        assert not rewards[~dones].any()
        for i in np.flatnonzero(dones):  # a fresh deal: the whole-hand choice, rewards paid
            assert env.action_masks[i].tolist()[:2] == [1, 1] and env.action_masks[i].sum() == 2
            assert rewards[i].any()
    assert ended >= 4


def test_bad_tokens_and_options_are_one_line_errors() -> None:
    env = VectorEnv("solo", num_envs=2, players=2)
    before = env.observations.copy()
    illegal = int(np.flatnonzero(env.action_masks[1] == 0)[0])
    legal = int(np.flatnonzero(env.action_masks[0])[0])
    with pytest.raises(ValueError, match="not legal in game 1"):
        env.step([legal, illegal])
    assert np.array_equal(env.observations, before)  # nothing applied
    with pytest.raises(ValueError, match="needs 2 tokens"):
        env.step([legal])
    with pytest.raises(ValueError, match="unknown game"):
        VectorEnv("uno")
    with pytest.raises(ValueError, match="num_envs"):
        VectorEnv("solo", num_envs=0)
    with pytest.raises(ValueError, match="voluntary_pass"):
        VectorEnv("scout", players=2, rules={"voluntary_pass": True})


def test_the_arrays_are_read_only_views_the_c_loop_writes() -> None:
    env = VectorEnv("scout", num_envs=2, players=4)
    with pytest.raises(ValueError, match="read-only"):
        env.observations[0, 0] = 1
    with pytest.raises(ValueError, match="read-only"):
        env.action_masks[:] = 1
    seen = env.observations.copy()
    env.step_random(3)
    assert not np.array_equal(seen, env.observations)


def _random_agent_mean(game: str, players: int, opponents: str, episodes: int = 120) -> float:
    env = VectorEnv(game, num_envs=32, players=players, opponents=opponents, agent_seat=1, seed=3)
    rng = np.random.default_rng(0)
    total, ended = 0.0, 0
    while ended < episodes:
        assert (env.seats == 1).all()  # only the agent is ever asked
        tokens = (rng.random(env.action_masks.shape) * env.action_masks).argmax(axis=1)
        _, rewards, dones, _ = env.step(tokens)
        total += float(rewards[dones, 1].sum())
        ended += int(dones.sum())
    return total / ended


@pytest.mark.parametrize(("game", "players"), [("solo", 2), ("scout", 3)])
def test_computer_opponents_play_the_other_seats_in_c(game: str, players: int) -> None:
    """The heuristic opponents (the C mirror's rollout policy) beat random ones clearly."""
    against_random = _random_agent_mean(game, players, "random")
    against_heuristic = _random_agent_mean(game, players, "heuristic")
    assert against_heuristic < against_random - 5


def test_bad_opponent_options_are_one_line_errors() -> None:
    with pytest.raises(ValueError, match="opponents must be one of"):
        VectorEnv("solo", opponents="ismcts")
    with pytest.raises(ValueError, match="agent seat 3"):
        VectorEnv("solo", players=2, opponents="random", agent_seat=3)


def test_the_c_loop_runs_without_the_gil() -> None:
    """Python keeps running in another thread while the C loop steps: the main thread's
    clock readings leave no long gap inside the loop's run (holding the GIL, the loop would
    leave one as long as the run)."""
    import threading
    import time

    env = VectorEnv("scout", num_envs=64, players=4)
    span: list[float] = []

    def work() -> None:
        span.append(time.perf_counter())
        env.step_random(4000)
        span.append(time.perf_counter())

    worker = threading.Thread(target=work)
    readings = []
    worker.start()
    while worker.is_alive():
        readings.append(time.perf_counter())
    worker.join()
    start, end = span
    inside = [start] + [r for r in readings if start < r < end] + [end]
    longest = max(b - a for a, b in zip(inside, inside[1:], strict=False))
    assert end - start > 0.05 and longest < 0.5 * (end - start)


def test_final_observations_show_each_finished_game_and_leave_the_live_rows_intact() -> None:
    layout = CODECS["scout"].LAYOUT
    phase = layout.offsets["phase"][0]
    env = VectorEnv("scout", num_envs=4, players=3, opponents="heuristic", seed=2)
    assert env.final_observations is not None
    rng = np.random.default_rng(0)
    ended = 0
    while ended < 6:
        _, _, dones, _ = env.step((rng.random(env.action_masks.shape) * env.action_masks).argmax(axis=1))
        for i in np.flatnonzero(dones):
            assert env.final_observations[i, phase:phase + 3].tolist() == [0, 0, 1]  # over
            assert env.observations[i, phase:phase + 3].tolist() != [0, 0, 1]  # a new deal
            ended += 1
    twin = VectorEnv("scout", num_envs=1, players=3, opponents="heuristic")
    for i in range(4):  # a fresh write of the same position: no stale values in the live rows
        twin.load(0, env.snapshot(i))
        assert np.array_equal(twin.observations[0], env.observations[i])
    assert VectorEnv("scout", num_envs=1, players=3).final_observations is None


def test_without_autoreset_a_finished_game_is_held_and_every_seat_can_view_it() -> None:
    env = VectorEnv("solo", num_envs=1, players=3, seed=5, autoreset=False, normalise=False)
    rng = np.random.default_rng(0)
    asked = int(env.seats[0])
    assert np.array_equal(env.view(0, asked), env.observations[0])  # the asked seat: its row
    other = env.view(0, (asked + 1) % 3)
    hand = CODECS["solo"].LAYOUT.offsets["hand"][0]
    assert other[hand:hand + 63].sum() == 8 and not np.array_equal(other, env.observations[0])
    while not env.dones[0]:
        env.step((rng.random(env.action_masks.shape) * env.action_masks).argmax(axis=1))
    snap = env.snapshot(0)
    assert min(len(h) for h in snap["hands"]) == 0  # held as it ended, not dealt again
    assert env.seats[0] == -1 and not env.action_masks.any()
    with pytest.raises(ValueError, match="not legal in game 0"):
        env.step([0])
    sizes = CODECS["solo"].LAYOUT.offsets["hand_sizes"][0]
    for seat in range(3):  # each seat sees the hands as they ended
        assert env.view(0, seat)[sizes:sizes + 3].tolist() == [len(snap["hands"][(seat + k) % 3])
                                                               for k in range(3)]
    with pytest.raises(ValueError, match="seat 3 is not a seat"):
        env.view(0, 3)
    env.reset(seed=5)
    assert env.seats[0] == asked and env.snapshot(0) != snap


def test_an_auto_reset_pays_the_ending_step_only_the_finished_game_s_rewards() -> None:
    """Shaping with C opponents, each agent step paid as the engine-backed envs pay it: w x (the
    agent's potential when it is next asked - when it was asked), and at a round's end its score
    and w x (0 - its potential when asked). The C opponents' opening moves in the deal dealt at
    once pay nothing: the engine env's reset drops what they earn, where the C loop used to add
    it to the ending step. SOLO anniversary 2p: its Swaps and Gifts in those opening moves change
    the agent's hand (the old loop paid 7 of these 150 rounds wrongly)."""
    from cardtable.engine.solo.cards import FACES

    w, games = 1.0, 8
    env = VectorEnv("solo", num_envs=games, players=2, rules={"edition": "anniversary"}, seed=4,
                    opponents="heuristic", agent_seat=0, shaping=w, normalise=False)
    assert env.final_observations is not None
    hand = CODECS["solo"].LAYOUT.offsets["hand"][0]
    points = np.zeros(len(FACES))
    for card in FACES:
        points[card.index] = card.points

    def potential(rows: np.ndarray) -> np.ndarray:  # minus the points in the agent's hand
        return -(rows[:, hand:hand + len(FACES)] @ points)

    def engine_potential(i: int) -> float:
        return float(potentials(SoloState.from_snapshot(env.snapshot(i)))[0])

    rng = np.random.default_rng(1)
    before = potential(env.observations)
    assert [engine_potential(i) for i in range(games)] == before.tolist()
    ended = 0
    while ended < 150:
        assert (env.seats == 0).all()
        _, rewards, dones, truncations = env.step((rng.random(env.action_masks.shape)
                                                   * env.action_masks).argmax(axis=1))
        assert not truncations.any()
        now = potential(env.observations)
        expected = np.where(dones, potential(env.final_observations) - w * before, w * (now - before))
        for i in np.flatnonzero(np.abs(rewards[:, 0] - expected) > 1e-3):
            pytest.fail(f"game {i} ({'ended' if dones[i] else 'live'}): paid {rewards[i, 0]}, "
                        f"the engine env pays {expected[i]}")
        for i in np.flatnonzero(dones):  # the new deal, after the opponents' opening moves
            assert engine_potential(int(i)) == now[i]
        ended += int(dones.sum())
        before = now
