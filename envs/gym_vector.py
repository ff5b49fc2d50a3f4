"""Gymnasium's vector form of the single-agent ids, on the C vector env.

``gymnasium.make_vec("cardtable/Solo-v0", num_envs=256, vectorization_mode="vector_entry_point")``
(after ``import cardtable.envs.gym_env``) gives ``CardtableVectorEnv``: ``num_envs`` games in
the C mirror, the agent in ``seat``, the other seats played inside the C loop by the mirror's
heuristic (or at random), with Gymnasium's same-step autoreset (a finished game's last
observation is in ``info["final_obs"]``). Unlike ``gymnasium.make``, whose opponents are the
project's Python bots, these opponents are the C ones (docs/envs.md, "Vector env");
``gymnasium.make(id, backend="c")`` is one sub-environment of this, seeded alike.

Seeds are Gymnasium's: ``reset(seed=5)`` seeds sub-environment i with 5 + i,
``reset(seed=[1, 2, 3])`` each with its own; sub-environment i seeded with s plays on the
mirror's stream s (``VectorEnv.reset_streams``), the game ``gymnasium.make(id, backend="c")``
plays after ``reset(seed=s)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from cardtable.engine.errors import ParseError
from cardtable.envs.agent_spaces import observation_box
from cardtable.envs.vector import STREAMS, VectorEnv

Seeds: TypeAlias = int | Sequence[int | None] | None
"""What ``reset(seed=...)`` takes: one int (sub-environment i gets seed + i), one seed (or None)
per sub-environment, or None."""


def sub_env_streams(seed: Seeds, num_envs: int, np_random: np.random.Generator) -> list[int]:
    """The mirror's stream of each sub-environment for ``reset(seed=seed)``, as Gymnasium seeds
    sub-environments: an int s gives s, s + 1, ..., s + num_envs - 1; a list gives each its
    own; a None (or a None in the list) gives sub-environment i the stream base + i from one
    base drawn from ``np_random``. Streams are taken mod 2**64."""
    if seed is None or isinstance(seed, (int, np.integer)):
        base = int(np_random.integers(0, STREAMS, dtype=np.uint64)) if seed is None else int(seed)
        if base < 0:
            raise ValueError(f"a seed is a non-negative int, not {seed!r}")
        return [(base + i) % STREAMS for i in range(num_envs)]
    seeds = list(seed)
    if len(seeds) != num_envs:
        raise ValueError(f"a list of seeds needs one per sub-environment ({num_envs}), got {len(seeds)}")
    for s in seeds:
        if s is not None and (not isinstance(s, (int, np.integer)) or isinstance(s, bool) or s < 0):
            raise ValueError(f"a seed is a non-negative int or None, not {s!r}")
    base = int(np_random.integers(0, STREAMS, dtype=np.uint64)) if None in seeds else 0
    return [(base + i) % STREAMS if s is None else int(s) % STREAMS for i, s in enumerate(seeds)]


ILLEGAL = ("raise", "random")


def legal_tokens(actions: Any, masks: np.ndarray, illegal: str,
                 np_random: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The tokens to say (int32) and which were illegal: with ``illegal="random"`` a token
    outside its game's mask is replaced by a random legal one from ``np_random``; with
    ``"raise"`` it is refused (``ParseError``, nothing applied)."""
    tokens = np.array(actions, dtype=np.int64).reshape(-1)
    if tokens.shape[0] != masks.shape[0]:
        raise ParseError(f"step needs {masks.shape[0]} tokens, got {tokens.shape[0]}")
    inside = (tokens >= 0) & (tokens < masks.shape[1])
    bad = ~inside
    bad[inside] = masks[np.flatnonzero(inside), tokens[inside]] == 0
    if bad.any():
        games = np.flatnonzero(bad)
        if illegal == "raise":
            raise ParseError(f"token {tokens[games[0]]} is not legal in game {games[0]} now")
        tokens[games] = (np_random.random((len(games), masks.shape[1])) * masks[games]).argmax(axis=1)
    return tokens.astype(np.int32), bad


def seed_generator(env: Any, seed: Seeds) -> None:
    """Seed ``env``'s ``np_random`` as Gymnasium does for an int seed, and from every int of a
    list of seeds (its ``np_random_seed`` is then -1); None leaves it as it is."""
    if seed is None:
        return
    if isinstance(seed, (int, np.integer)):
        env._np_random, env._np_random_seed = seeding.np_random(int(seed))
        return
    ints = [int(s) for s in seed if s is not None]
    if ints:
        env._np_random = np.random.Generator(np.random.PCG64(np.random.SeedSequence(ints)))
        env._np_random_seed = -1


class CardtableVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of ``game``; observations ``{"observation", "action_mask"}`` batched.

    Same-step autoreset (``metadata["autoreset_mode"]``), as Gymnasium 1.x's ``SyncVectorEnv``
    does it: the step that ends a game returns the next deal's first observation, and in
    ``info`` ``final_obs`` (an object array: the ended game's last observation, else None),
    ``final_info`` (the ended games' step infos, batched: ``illegal_action``) and their masks
    ``_final_obs`` and ``_final_info``; the other keys are the step infos of the games that
    go on (``illegal_action``, masked by ``_illegal_action``; the new deals' reset infos are
    empty). A token outside its mask is refused (``illegal="raise"``, the default:
    ``ParseError``, nothing applied) or replaced by a random legal one (``"random"``)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, game: str = "solo", num_envs: int = 64, players: int = 2, seat: int = 0,
                 opponents: str = "heuristic", rules: Mapping[str, Any] | None = None,
                 normalise: bool = True, shaping: float = 0.0, max_actions: int = 20_000,
                 illegal: str = "raise") -> None:
        if opponents not in ("heuristic", "random"):
            raise ParseError(f"opponents must be heuristic or random, not {opponents!r}")
        if illegal not in ILLEGAL:
            raise ParseError(f"illegal must be one of {', '.join(ILLEGAL)}, not {illegal!r}")
        try:
            self.env = VectorEnv(game, num_envs, players, rules, max_actions=max_actions,
                                 normalise=normalise, opponents=opponents, agent_seat=seat,
                                 shaping=shaping)
        except ValueError as err:
            raise ParseError(str(err)) from None
        self.num_envs, self.seat, self.illegal = num_envs, seat, illegal
        layout, tokens = self.env.codec.LAYOUT, self.env.codec.NUM_TOKENS
        self.single_observation_space = spaces.Dict({
            "observation": observation_box(layout, normalise),
            "action_mask": spaces.Box(0, 1, (tokens,), np.int8),
        })
        self.single_action_space = spaces.Discrete(tokens)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None

    def reset(self, *, seed: Seeds = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal every game again. ``seed``: an int s seeds sub-environment i with s + i; a list
        gives each sub-environment its seed (None: drawn); None draws them all from the env's
        generator. Sub-environment i seeded with s is on the mirror's stream s."""
        seed_generator(self, seed)
        streams = sub_env_streams(seed, self.num_envs, self.np_random)
        self.env.reset_streams(streams)
        return self._observe(), {}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """Every game's agent says its token (``action_masks()``: the legal ones)."""
        tokens, illegal = legal_tokens(actions, self.env.action_masks, self.illegal, self.np_random)
        _, rewards, dones, truncations = self.env.step(tokens)
        ended = dones | truncations
        infos: dict[str, Any] = {"illegal_action": illegal & ~ended, "_illegal_action": ~ended}
        if ended.any():
            final = np.full(self.num_envs, None, dtype=object)
            final_observations = self.env.final_observations
            assert final_observations is not None
            for i in np.flatnonzero(ended):
                final[i] = {"observation": np.array(final_observations[i]),
                            "action_mask": np.zeros(self.env.action_masks.shape[1], np.int8)}
            infos.update(final_obs=final, _final_obs=ended.copy(),
                         final_info={"illegal_action": illegal & ended, "_illegal_action": ended.copy()},
                         _final_info=ended.copy())
        return (self._observe(), rewards[:, self.seat].astype(np.float64), dones.copy(),
                truncations.copy(), infos)

    def action_masks(self) -> np.ndarray:
        """(num_envs, tokens) bool: the tokens each game's agent may say now."""
        return np.array(self.env.action_masks, dtype=bool)

    def _observe(self) -> dict[str, np.ndarray]:
        return {"observation": np.array(self.env.observations),
                "action_mask": np.array(self.env.action_masks)}


def _c_only(backend: str) -> None:
    if backend != "c":
        raise ParseError(f"the vector entry point is the C vector env (backend='c'), not "
                         f"backend={backend!r}: make_vec(..., vectorization_mode='sync') batches "
                         "engine-backed envs")


def solo_vector(num_envs: int = 64, backend: str = "c", **kwargs: Any) -> CardtableVectorEnv:
    """``make_vec("cardtable/Solo-v0", ...)``."""
    _c_only(backend)
    return CardtableVectorEnv("solo", num_envs, **kwargs)


def scout_vector(num_envs: int = 64, backend: str = "c", **kwargs: Any) -> CardtableVectorEnv:
    """``make_vec("cardtable/Scout-v0", ...)``."""
    _c_only(backend)
    return CardtableVectorEnv("scout", num_envs, **kwargs)
