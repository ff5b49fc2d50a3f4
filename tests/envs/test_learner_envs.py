"""The environments a learner reaches for (issue 39 item 4): ``gymnasium.make(id, backend="c")``,
Stable-Baselines3's VecEnv on the C vector env (its contract, without SB3), ``action_masks()``
without building the observation again, Gymnasium's seeding of vector envs (int and list
seeds) and its same-step autoreset infos, and snapshots that keep what each seat knows."""

from __future__ import annotations

import abc
import sys
import types
import warnings
from typing import Any

import pytest

pytest.importorskip("gymnasium", reason="needs the envs extra (pip install -e '.[envs]')")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

import cardtable.envs.gym_env  # noqa: E402,F401  (registers the ids)
from cardtable.engine.errors import ParseError  # noqa: E402
from cardtable.engine.match import match_seed  # noqa: E402
from cardtable.engine.scout import State as ScoutState  # noqa: E402
from cardtable.engine.solo import State as SoloState  # noqa: E402
from cardtable.envs import sb3_vec as sb3_module  # noqa: E402
from cardtable.envs import scout_codec, solo_codec  # noqa: E402
from cardtable.envs.gym_c import CardtableGymCEnv  # noqa: E402
from cardtable.envs.gym_env import CardtableGymEnv  # noqa: E402
from cardtable.envs.sb3_vec import CardtableVecEnv, sb3_vec_env  # noqa: E402
from cardtable.envs.table import CODECS, Table  # noqa: E402
from cardtable.envs.vector import VectorEnv  # noqa: E402

ANNIVERSARY = {"edition": "anniversary"}


def random_tokens(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(masks.shape) * masks).argmax(axis=1)


# --- (a) gymnasium.make(..., backend="c") ------------------------------------------------------
@pytest.mark.parametrize("env_id,kwargs", [
    ("cardtable/Solo-v0", {}),
    ("cardtable/Solo-v0", {"players": 4, "rules": ANNIVERSARY, "opponents": "random", "seat": 2}),
    ("cardtable/Scout-v0", {"players": 3, "opponents": {0: "heuristic", 2: "heuristic"}, "seat": 1}),
])
def test_make_with_backend_c_gives_the_c_env_and_gymnasium_s_checker_passes(env_id: str,
                                                                             kwargs: dict) -> None:
    env = gym.make(env_id, backend="c", **kwargs)
    assert isinstance(env.unwrapped, CardtableGymCEnv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert not caught, [str(w.message) for w in caught]
    obs, _ = env.reset(seed=3)
    rng, total, steps, done = np.random.default_rng(0), 0.0, 0, False
    while not done:
        assert env.observation_space.contains(obs)
        assert np.array_equal(env.unwrapped.action_masks(), obs["action_mask"].astype(bool))
        token = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(token)
        assert not info["illegal_action"]
        total, steps, done = total + reward, steps + 1, terminated or truncated
    assert terminated and steps > 3
    assert not obs["action_mask"].any() and not env.unwrapped.action_masks().any()
    with pytest.raises(ParseError, match="episode is over"):
        env.step(0)
    assert isinstance(gym.make(env_id, backend="engine").unwrapped, CardtableGymEnv)
    assert isinstance(gym.make(env_id).unwrapped, CardtableGymEnv)


def test_backend_c_refuses_what_only_the_engine_offers() -> None:
    with pytest.raises(ParseError, match="backend must be one of engine, c"):
        gym.make("cardtable/Solo-v0", backend="gpu")
    with pytest.raises(ParseError, match="one-round episodes"):
        gym.make("cardtable/Solo-v0", backend="c", episode="match")
    with pytest.raises(ParseError, match="reward='score'"):
        gym.make("cardtable/Solo-v0", backend="c", reward="win")
    with pytest.raises(ParseError, match="C mirror's opponents"):
        gym.make("cardtable/Solo-v0", backend="c", opponents="ismcts:fast")
    with pytest.raises(ParseError, match="C mirror's opponents"):
        gym.make("cardtable/Solo-v0", backend="c", players=3, opponents={1: "random", 2: "heuristic"})
    with pytest.raises(ParseError, match="vector entry point is the C vector env"):
        gym.make_vec("cardtable/Solo-v0", num_envs=2, vectorization_mode="vector_entry_point",
                     backend="engine")
    strict = gym.make("cardtable/Solo-v0", backend="c", illegal="raise")
    obs, _ = strict.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ParseError, match="not legal"):
        strict.step(illegal)
    lenient = gym.make("cardtable/Solo-v0", backend="c")
    lenient.reset(seed=0)
    assert lenient.step(illegal)[4]["illegal_action"]


def test_backend_c_renders_the_agent_s_last_action_and_round_trips_a_position() -> None:
    env = gym.make("cardtable/Solo-v0", backend="c", render_mode="ansi", players=3)
    obs, _ = env.reset(seed=1)
    assert env.render() == ""
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.render().startswith("seat 0: ")
    inner = env.unwrapped
    snap = inner.snapshot()
    twin = CardtableGymCEnv("solo", players=3)
    twin.reset(seed=99)
    again = twin.load(snap)
    assert np.array_equal(again["observation"], inner._observe()["observation"])


# --- (d) seeding and same-step autoreset: the C vector form against Gymnasium's SyncVectorEnv --
@pytest.mark.parametrize("env_id,kwargs", [
    ("cardtable/Solo-v0", {"players": 3, "shaping": 0.5}),
    ("cardtable/Scout-v0", {"players": 4, "opponents": "random", "seat": 1}),
])
@pytest.mark.parametrize("seed", [5, [11, 3, 40, 41]])
def test_the_vector_form_plays_as_gymnasium_s_sync_vector_env_of_backend_c_envs(
        env_id: str, kwargs: dict, seed: Any) -> None:
    """Gymnasium's own SyncVectorEnv (same-step autoreset) over ``gym.make(id, backend="c")``
    envs is the reference: seeds (int: s + i; list: each its own), observations, rewards,
    terminations, truncations and the infos (``final_obs``, ``final_info`` and their masks)
    must be the C vector form's, step for step, across auto-resets."""
    vec = gym.make_vec(env_id, num_envs=4, vectorization_mode="vector_entry_point", **kwargs)
    sync = gym.make_vec(env_id, num_envs=4, vectorization_mode="sync", backend="c",
                        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP}, **kwargs)
    assert vec.metadata["autoreset_mode"] == sync.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, info = vec.reset(seed=seed)
    ref, ref_info = sync.reset(seed=seed)
    assert info == ref_info == {}
    _same(obs, ref)
    rng, ended = np.random.default_rng(0), 0
    for _ in range(1200):
        tokens = random_tokens(obs["action_mask"], rng)
        obs, rewards, terminated, truncated, info = vec.step(tokens)
        ref, ref_rewards, ref_terminated, ref_truncated, ref_info = sync.step(tokens)
        _same(obs, ref)
        assert np.array_equal(rewards, ref_rewards) and rewards.dtype == ref_rewards.dtype
        assert np.array_equal(terminated, ref_terminated) and np.array_equal(truncated, ref_truncated)
        _same(info, ref_info)
        ended += int(terminated.sum())
    assert ended >= 20


def _same(a: Any, b: Any) -> None:
    """Equal as Gymnasium's data: dicts key for key, arrays value for value (object arrays too)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), (sorted(a), sorted(b))
        for key in a:
            _same(a[key], b[key])
    elif isinstance(a, np.ndarray) and a.dtype == object:
        assert isinstance(b, np.ndarray) and b.dtype == object and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    elif isinstance(a, np.ndarray):
        assert np.array_equal(a, b) and a.dtype == np.asarray(b).dtype, (a, b)
    else:
        assert a == b, (a, b)


def test_seed_lists_give_each_sub_env_its_seed_and_an_int_seeds_env_i_with_seed_plus_i() -> None:
    env = gym.make_vec("cardtable/Solo-v0", num_envs=3, vectorization_mode="vector_entry_point", players=2)
    single = gym.make("cardtable/Solo-v0", backend="c", players=2)

    def first(seed: int) -> np.ndarray:
        return np.asarray(single.reset(seed=seed)[0]["observation"])

    obs, _ = env.reset(seed=[1, 2, 3])
    assert all(np.array_equal(obs["observation"][i], first(s)) for i, s in enumerate([1, 2, 3]))
    obs, _ = env.reset(seed=[8, 1, 9])
    assert all(np.array_equal(obs["observation"][i], first(s)) for i, s in enumerate([8, 1, 9]))
    by_int, _ = env.reset(seed=5)
    by_list, _ = env.reset(seed=[5, 6, 7])
    assert np.array_equal(by_int["observation"], by_list["observation"])
    assert not np.array_equal(by_int["observation"][0], by_int["observation"][1])
    same, _ = env.reset(seed=[4, 4, 4])  # one seed, one game: the same tokens keep them equal
    rng = np.random.default_rng(1)
    for _ in range(300):
        assert np.array_equal(same["observation"][0], same["observation"][1])
        assert np.array_equal(same["observation"][0], same["observation"][2])
        token = random_tokens(same["action_mask"][:1], rng)[0]
        same = env.step(np.full(3, token))[0]
    drawn = [env.reset(seed=[7, None, None])[0]["observation"] for _ in range(2)]
    assert np.array_equal(drawn[0], drawn[1])  # None: drawn from the generator the list seeded
    assert not np.array_equal(env.reset()[0]["observation"], env.reset()[0]["observation"])
    with pytest.raises(ValueError, match="one per sub-environment"):
        env.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="non-negative"):
        env.reset(seed=[1, -2, 3])


def test_raw_vector_env_streams_play_the_same_whatever_the_index() -> None:
    """``VectorEnv.reset_streams``: a game on stream s plays as game 0 of a one-game env on s
    (auto-resets included); runs of consecutive streams share one C block."""
    streams = [5, 77, 78, 79, 3, 2**64 - 1, 0, 12]
    env = VectorEnv("scout", num_envs=8, players=3, opponents="heuristic")
    env.reset_streams(streams)
    assert len(env._parts) == 5
    singles = [VectorEnv("scout", num_envs=1, players=3, opponents="heuristic") for _ in streams]
    for single, stream in zip(singles, streams, strict=True):
        single.reset_streams([stream])
    rng, ended = np.random.default_rng(0), 0
    for _ in range(400):
        tokens = random_tokens(env.action_masks, rng)
        env.step(tokens)
        for i, single in enumerate(singles):
            single.step(tokens[i:i + 1])
            assert np.array_equal(single.observations[0], env.observations[i])
            assert np.array_equal(single.rewards[0], env.rewards[i])
        ended += int(env.dones.sum())
    assert ended >= 8
    bad = random_tokens(env.action_masks, rng)
    bad[6] = int(np.flatnonzero(env.action_masks[6] == 0)[0])
    before = np.array(env.observations)
    with pytest.raises(ValueError, match="not legal in game 6"):
        env.step(bad)
    assert np.array_equal(before, env.observations)  # nothing applied, in any block
    one = VectorEnv("scout", num_envs=8, players=3, opponents="heuristic", seed=9)
    env.reset(9)
    assert len(env._parts) == 1 and np.array_equal(env.observations, one.observations)


# --- (c) action_masks() without building the observation again --------------------------------
@pytest.mark.parametrize("game,codec", [("solo", solo_codec), ("scout", scout_codec)])
def test_action_masks_build_no_observation(game: str, codec: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    builds = []
    real = codec.features

    def counting(*args: Any, **kwargs: Any) -> np.ndarray:
        builds.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(codec, "features", counting)
    env = gym.make(f"cardtable/{game.capitalize()}-v0", players=3)
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(0)
    done, steps = False, 0
    while not done:
        built = len(builds)
        for _ in range(5):
            assert np.array_equal(env.unwrapped.action_masks(), obs["action_mask"].astype(bool))
        assert len(builds) == built  # asking for the mask built nothing
        obs, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert len(builds) == built + 1  # one observation a step
        done, steps = terminated or truncated, steps + 1
    assert not env.unwrapped.action_masks().any() and steps > 3
    masks = env.unwrapped.action_masks()
    masks[:] = True  # the caller's copy: the env's own mask is untouched
    assert not env.unwrapped.action_masks().any()


# --- (b) Stable-Baselines3's VecEnv: the contract without SB3 --------------------------------
SB3_ABSTRACT = ("reset", "step_async", "step_wait", "close", "get_attr", "set_attr", "env_method",
                "env_is_wrapped")
SB3_CALLS = (*SB3_ABSTRACT, "step", "seed", "set_options", "has_attr", "get_images", "render",
             "getattr_depth_check", "_get_indices")


def check_sb3_contract(env: Any, single: str) -> None:
    """What SB3 (and sb3-contrib's MaskablePPO) call on a VecEnv, checked on ``env`` (8 games of
    SOLO 2p against the heuristic); ``single`` is the id of the same game for ``gym.make``."""
    n = env.num_envs
    for name in SB3_CALLS:
        assert callable(getattr(env, name)), name
    assert env.unwrapped is env and env.render_mode is None and env.reset_infos == [{}] * n
    assert isinstance(env.observation_space, gym.spaces.Box)
    assert isinstance(env.action_space, gym.spaces.Discrete)
    assert env.seed(5) == [5 + i for i in range(n)]
    obs = env.reset()
    assert isinstance(obs, np.ndarray) and obs.shape == (n, *env.observation_space.shape)
    assert all(env.observation_space.contains(row) for row in obs)
    maker = gym.make(single, backend="c")
    for i in range(n):  # seed(5) seeded game i with 5 + i, as gym.make(backend="c") plays it
        assert np.array_equal(obs[i], maker.reset(seed=5 + i)[0]["observation"])
    env.seed(5)
    assert np.array_equal(env.reset(), obs)
    masks = env.action_masks()
    assert masks.shape == (n, env.action_space.n) and masks.dtype == bool and masks.any(axis=1).all()
    assert np.array_equal(np.stack(env.env_method("action_masks")), masks)  # MaskablePPO's call
    assert env.has_attr("action_masks") and not env.has_attr("no_such_thing")
    assert [f() for f in env.get_attr("action_masks", indices=[1, 2])][1].tolist() == masks[2].tolist()
    assert env.get_attr("render_mode") == [None] * n and env.get_attr("seat", indices=3) == [0]
    env.set_attr("difficulty", 2, indices=[0, 1])
    assert env.get_attr("difficulty", indices=[0, 1]) == [2, 2]
    with pytest.raises(AttributeError):
        env.get_attr("difficulty", indices=2)
    with pytest.raises(AttributeError, match="same for every game"):
        env.set_attr("seat", 1)
    with pytest.raises(AttributeError, match="no method"):
        env.env_method("no_such_method")
    assert env.env_is_wrapped(gym.Wrapper) == [False] * n and env.env_is_wrapped(gym.Wrapper, 0) == [False]
    twin = VectorEnv("solo", num_envs=8, players=2, opponents="heuristic", seed=5)
    twin.reset_streams([5 + i for i in range(n)])
    rng, ended, rows = np.random.default_rng(0), 0, 0
    for _ in range(400):
        tokens = random_tokens(env.action_masks(), rng)
        env.step_async(tokens)
        obs, rewards, dones, infos = env.step_wait()
        twin.step(tokens)
        assert obs.shape == (n, *env.observation_space.shape) and np.array_equal(obs, twin.observations)
        assert rewards.shape == (n,) and rewards.dtype == np.float32 and dones.dtype == bool
        assert np.array_equal(rewards, twin.rewards[:, 0]) and isinstance(infos, list) and len(infos) == n
        for i, info in enumerate(infos):
            assert isinstance(info, dict)
            if dones[i]:  # auto-reset: the finished game's last observation, the next deal shown
                terminal = info["terminal_observation"]
                assert terminal.shape == env.observation_space.shape
                assert env.observation_space.contains(terminal)
                assert np.array_equal(terminal, twin.final_observations[i])
                assert not np.array_equal(terminal, obs[i]) and info["TimeLimit.truncated"] is False
                ended += 1
            else:
                assert "terminal_observation" not in info
            rows += 1
    assert ended >= 8 and rows == 400 * n
    bad = np.array([int(np.flatnonzero(m == 0)[0]) for m in env.action_masks()])
    _, _, _, infos = env.step(bad)  # illegal tokens: replaced by legal ones, and said
    assert all(info.get("illegal_action") for info in infos)
    assert env.env_method("snapshot", indices=1)[0]["game"] == "solo"
    env.close()


def test_the_sb3_vec_env_keeps_sb3_s_contract_without_sb3() -> None:
    env = CardtableVecEnv("solo", num_envs=8, players=2)
    check_sb3_contract(env, "cardtable/Solo-v0")
    strict = CardtableVecEnv("solo", num_envs=2, players=2, illegal="raise", seed=1)
    strict.reset()
    with pytest.raises(ParseError, match="not legal"):
        strict.step(np.array([int(np.flatnonzero(m == 0)[0]) for m in strict.action_masks()]))
    with pytest.raises(ParseError, match="opponents"):
        CardtableVecEnv("solo", opponents="ismcts:fast")


def test_sb3_vec_env_imports_sb3_lazily_and_subclasses_its_vec_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a stand-in for ``stable_baselines3.common.vec_env`` whose ``VecEnv`` declares SB3's
    abstract methods, ``sb3_vec_env`` returns an instance of a subclass of it (an abstract
    method left out would make that a TypeError); without SB3 it is a clear ImportError."""
    sb3_module._sb3_class.cache_clear()
    monkeypatch.setitem(sys.modules, "stable_baselines3", None)  # not installed
    with pytest.raises(ImportError, match=r"pip install -e '\.\[train\]'"):
        sb3_vec_env("solo", num_envs=2)
    sb3_module._sb3_class.cache_clear()

    def abstract(self: Any, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError

    VecEnv = abc.ABCMeta("VecEnv", (abc.ABC,), {name: abc.abstractmethod(abstract) for name in SB3_ABSTRACT})
    partial = type("Partial", (VecEnv,), {name: abstract for name in SB3_ABSTRACT[1:]})
    with pytest.raises(TypeError, match="abstract"):
        partial()  # the stand-in is strict: one abstract method left out and no instance

    vec_env_module = types.ModuleType("stable_baselines3.common.vec_env")
    vec_env_module.VecEnv = VecEnv  # type: ignore[attr-defined]
    for name, module in [("stable_baselines3", types.ModuleType("stable_baselines3")),
                         ("stable_baselines3.common", types.ModuleType("stable_baselines3.common")),
                         ("stable_baselines3.common.vec_env", vec_env_module)]:
        monkeypatch.setitem(sys.modules, name, module)
    try:
        env = sb3_vec_env("solo", num_envs=8, players=2)
        assert isinstance(env, VecEnv) and isinstance(env, CardtableVecEnv)
        check_sb3_contract(env, "cardtable/Solo-v0")
    finally:
        sb3_module._sb3_class.cache_clear()


def test_the_real_sb3_vec_env() -> None:
    pytest.importorskip("stable_baselines3",
                        reason="stable-baselines3 is the train extra (pip install -e '.[train]')")
    from stable_baselines3.common.vec_env import VecEnv, VecMonitor

    sb3_module._sb3_class.cache_clear()
    env = sb3_vec_env("solo", num_envs=8, players=2)
    assert isinstance(env, VecEnv)
    check_sb3_contract(env, "cardtable/Solo-v0")
    monitored = VecMonitor(sb3_vec_env("solo", num_envs=4, players=2, seed=0))
    monitored.reset()
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(300):
        masks = np.stack(monitored.env_method("action_masks"))
        _, _, dones, infos = monitored.step(random_tokens(masks, rng))
        episodes += sum("episode" in info for info in infos)
    assert episodes >= 2
    sb3_contrib = pytest.importorskip("sb3_contrib", reason="sb3-contrib is the train extra")
    model = sb3_contrib.MaskablePPO("MlpPolicy", sb3_vec_env("solo", num_envs=4, players=2, seed=0),
                                    n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=128)
    assert model.num_timesteps >= 128


# --- (e) snapshots keep what each seat knows -----------------------------------------------------
def _knowledge(vector: np.ndarray, layout: Any) -> np.ndarray:
    """The view less how its seat is asked (``asked``, ``path``: the asking state, not knowledge)."""
    keep = np.ones(layout.size, bool)
    for block in ("asked", "path"):
        start, shape = layout.offsets[block]
        keep[start:start + int(np.prod(shape))] = False
    return vector[keep]


@pytest.mark.parametrize("game,players,rules", [
    ("solo", 4, ANNIVERSARY),
    ("solo", 5, {"edition": "classic", "gifts": True, "protection": True, "multiples": True}),
    ("scout", 4, None),
])
def test_vector_snapshots_and_loads_keep_what_each_seat_knows(game: str, players: int,
                                                               rules: dict | None) -> None:
    """At many random positions of the vector env, every seat's view survives ``snapshot`` ->
    ``load`` (into another env, another game) and ``snapshot`` -> ``State.from_snapshot``: the
    engine's observation of the snapshot, encoded, is the view; SOLO's ``known`` cards too."""
    layout = CODECS[game].LAYOUT
    env = VectorEnv(game, num_envs=16, players=players, rules=rules, seed=4, normalise=False)
    twin = VectorEnv(game, num_envs=3, players=players, rules=rules, seed=8, normalise=False)
    state_class = SoloState if game == "solo" else ScoutState
    known_start, known_shape = layout.offsets["known"] if game == "solo" else layout.offsets["hands"]
    known = slice(known_start, known_start + int(np.prod(known_shape)))
    rng = np.random.default_rng(3)
    positions = seen = 0
    for step in range(240):
        env.step(random_tokens(env.action_masks, rng))
        if step % 6:
            continue
        for i in range(16):
            snap = env.snapshot(i)
            twin.load(i % 3, snap)
            state = state_class.from_snapshot(snap)
            for seat in range(players):
                view = env.view(i, seat)
                assert np.array_equal(_knowledge(twin.view(i % 3, seat), layout), _knowledge(view, layout))
                obs = state.observation(seat)
                obs.update(round=0, totals=[0] * players, config=state.config.to_dict())
                encoded = CODECS[game].features(obs, [], "")
                assert np.array_equal(_knowledge(encoded, layout), _knowledge(view, layout)), (step, i, seat)
                if game == "solo":
                    seen += int(view[known].any())
                else:  # another hand's card made public by a scout
                    hands = view[known].reshape(known_shape)
                    seen += int(hands[1:].any())
            positions += 1
    assert positions == 40 * 16 and seen >= 100  # many positions where a seat knew another's cards


@pytest.mark.parametrize("game,players,rules", [("solo", 4, ANNIVERSARY), ("scout", 3, None)])
def test_engine_snapshots_keep_what_each_seat_knows(game: str, players: int, rules: dict | None) -> None:
    """The engine-backed envs' positions: ``State.from_snapshot(state.snapshot())`` observes as
    ``state`` does, seat by seat, at every position of random episodes."""
    table = Table(game, players, rules)
    state_class = SoloState if game == "solo" else ScoutState
    rng = np.random.default_rng(0)
    positions = seen = 0
    for episode in range(6):
        table.reset(match_seed(episode, 0))
        while table.decision() is not None:
            state = table.match.state
            copy = state_class.from_snapshot(state.snapshot())
            for seat in range(players):
                obs = state.observation(seat)
                assert _face_down(copy.observation(seat)) == _face_down(obs)
                match = {"round": 0, "totals": [0] * players, "config": table.config_dict}
                assert np.array_equal(table.codec.features({**obs, **match}, [], ""),
                                      table.codec.features({**copy.observation(seat), **match}, [], ""))
                seen += int(bool(obs["known"]) if game == "solo"
                            else any(k for s, row in enumerate(obs["known"]) if s != seat for k in row))
            positions += 1
            table.say(int(rng.choice(table.legal_tokens())))
    assert positions > 200 and seen > 50


def _face_down(obs: dict[str, Any]) -> dict[str, Any]:
    """SCOUT's captured piles as a snapshot keeps them: face down (either value first), sorted;
    which way up a captured card lies is not part of the position (engine ``snapshot``)."""
    if "captured_cards" in obs:
        obs = {**obs, "captured_cards": [sorted("/".join(sorted(c.split("/"), key=int)) for c in pile)
                                         for pile in obs["captured_cards"]]}
    return obs
