"""Stable-Baselines3's ``VecEnv`` on the C vector env: ``sb3_vec_env("solo", num_envs=64, players=2)``.

``num_envs`` games in the C mirror, the agent in ``seat``, the mirror's opponents
(``heuristic`` or ``random``) in the other seats, as ``gymnasium.make_vec`` gives them, behind
SB3's VecEnv interface: ``reset()`` returns the observations only, ``step_async``/``step_wait``
give ``(obs, rewards, dones, infos)`` with a finished game's last observation in
``infos[i]["terminal_observation"]`` (the arrays already show its next deal) and
``infos[i]["TimeLimit.truncated"]``, ``seed(s)`` seeds game i with s + i at the next ``reset()``
(the game ``gymnasium.make(id, backend="c")`` plays with seed s + i), and ``action_masks()``
(also ``env_method("action_masks")``) gives the masks sb3-contrib's ``MaskablePPO`` asks for.
Observations are the flat vector (a ``Box``: ``MlpPolicy``); the mask is not in them.

SB3 is optional (``pip install -e '.[train]'``) and imported only by ``sb3_vec_env``:
``CardtableVecEnv`` implements the whole interface without it (tests/envs/ check the contract
without SB3), and ``sb3_vec_env`` returns it as a subclass of
``stable_baselines3.common.vec_env.VecEnv``, so SB3's ``isinstance`` checks pass.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from cardtable.engine.errors import ParseError
from cardtable.envs.agent_spaces import observation_box
from cardtable.envs.gym_vector import ILLEGAL, legal_tokens, sub_env_streams
from cardtable.envs.vector import VectorEnv

Indices = None | int | Iterable[int]

SUB_ENV_METHODS = ("action_masks", "snapshot", "load", "render")
"""What ``env_method`` calls on game i: its mask, its position as engine snapshot data, putting
an engine position into it, and ``render`` (nothing to draw: None)."""


class CardtableVecEnv:
    """SB3's VecEnv interface over ``envs.vector.VectorEnv`` with C opponents (SB3 not needed).

    ``illegal="random"`` (the default) replaces a token outside its game's mask by a random
    legal one (``infos[i]["illegal_action"]``), so learners without masks run; ``"raise"``
    refuses it (``ParseError``). ``seed`` seeds the first ``reset()`` as ``seed(seed)`` does.
    Per-game attributes: ``get_attr`` knows ``render_mode``, the single ``observation_space``
    and ``action_space``, ``game``, ``players``, ``seat``, ``opponents`` and the methods of
    ``SUB_ENV_METHODS`` (bound to the game), and whatever ``set_attr`` stored for a game
    (the table-wide options above cannot be set per game)."""

    metadata: dict[str, Any] = {"render_modes": []}
    render_mode: str | None = None

    def __init__(self, game: str = "solo", num_envs: int = 64, players: int = 2, seat: int = 0,
                 opponents: str = "heuristic", rules: Mapping[str, Any] | None = None,
                 normalise: bool = True, shaping: float = 0.0, max_actions: int = 20_000,
                 illegal: str = "random", seed: int | None = None) -> None:
        if opponents not in ("heuristic", "random"):
            raise ParseError(f"opponents must be heuristic or random, not {opponents!r}")
        if illegal not in ILLEGAL:
            raise ParseError(f"illegal must be one of {', '.join(ILLEGAL)}, not {illegal!r}")
        try:
            self.venv = VectorEnv(game, num_envs, players, rules, max_actions=max_actions,
                                  normalise=normalise, opponents=opponents, agent_seat=seat,
                                  shaping=shaping)
        except ValueError as err:
            raise ParseError(str(err)) from None
        self.game, self.players, self.seat, self.opponents = game, players, seat, opponents
        self.illegal = illegal
        self.num_envs = num_envs
        codec = self.venv.codec
        self.observation_space: spaces.Space[Any] = observation_box(codec.LAYOUT, normalise)
        self.action_space: spaces.Space[Any] = spaces.Discrete(codec.NUM_TOKENS)
        self.reset_infos: list[dict[str, Any]] = [{} for _ in range(num_envs)]
        self._seeds: list[int | None] = [None] * num_envs
        self._options: list[dict[str, Any]] = [{} for _ in range(num_envs)]
        self._attrs: list[dict[str, Any]] = [{} for _ in range(num_envs)]
        self._rng = np.random.default_rng()
        self._actions: np.ndarray | None = None
        self.closed = False
        if seed is not None:
            self.seed(seed)

    # --- stepping -----------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        """Deal every game again, with the seeds ``seed()`` set (then forgotten, as SB3 does),
        else on streams drawn from the env's generator; the observations (N, size)."""
        seeds = self._seeds if any(s is not None for s in self._seeds) else None
        if seeds is not None:
            self._rng = np.random.default_rng([s for s in seeds if s is not None])
        self.venv.reset_streams(sub_env_streams(seeds, self.num_envs, self._rng))
        self._seeds = [None] * self.num_envs
        self._options = [{} for _ in range(self.num_envs)]
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self._actions = None
        return np.array(self.venv.observations)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """The step ``step_async`` asked for: observations (a finished game's next deal),
        the agent's rewards (float32), dones (ended or truncated) and one info per game."""
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        venv = self.venv
        tokens, illegal = legal_tokens(self._actions, venv.action_masks, self.illegal, self._rng)
        self._actions = None
        obs, rewards, dones, truncations = venv.step(tokens)
        ended = dones | truncations
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(illegal):
            infos[i]["illegal_action"] = True
        if ended.any():
            final = venv.final_observations
            assert final is not None
            for i in np.flatnonzero(ended):
                infos[i]["terminal_observation"] = np.array(final[i])
                infos[i]["TimeLimit.truncated"] = bool(truncations[i] and not dones[i])
        return np.array(obs), rewards[:, self.seat].astype(np.float32), ended.copy(), infos

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        self.step_async(actions)
        return self.step_wait()

    def action_masks(self) -> np.ndarray:
        """(num_envs, tokens) bool: the tokens each game's agent may say now (the C loop's
        masks, nothing built)."""
        return np.array(self.venv.action_masks, dtype=bool)

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Game i gets seed + i at the next ``reset()`` (SB3's rule; None: a random seed)."""
        if seed is None:
            seed = int(np.random.randint(0, np.iinfo(np.uint32).max, dtype=np.uint32))
        self._seeds = [int(seed) + i for i in range(self.num_envs)]
        return self._seeds

    def set_options(self, options: list[dict[str, Any]] | dict[str, Any] | None = None) -> None:
        """Kept for the next ``reset()`` as SB3 does; the games take no reset options."""
        options = options or {}
        self._options = ([dict(options) for _ in range(self.num_envs)] if isinstance(options, dict)
                         else [dict(o) for o in options])

    def close(self) -> None:
        self.closed = True

    # --- the sub-environments --------------------------------------------------------------
    def _sub_env(self, i: int) -> dict[str, Any]:
        methods: dict[str, Callable[..., Any]] = {
            "action_masks": lambda: np.array(self.venv.action_masks[i], dtype=bool),
            "snapshot": lambda: self.venv.snapshot(i),
            "load": lambda snapshot: self.venv.load(i, snapshot),
            "render": lambda: None,
        }
        shared = {"render_mode": None, "observation_space": self.observation_space,
                  "action_space": self.action_space, "game": self.game, "players": self.players,
                  "seat": self.seat, "opponents": self.opponents}
        return {**shared, **methods}

    def has_attr(self, attr_name: str) -> bool:
        return attr_name in self._sub_env(0) or all(attr_name in a for a in self._attrs)

    def get_attr(self, attr_name: str, indices: Indices = None) -> list[Any]:
        out = []
        for i in self._get_indices(indices):
            if attr_name in self._attrs[i]:
                out.append(self._attrs[i][attr_name])
                continue
            own = self._sub_env(i)
            if attr_name not in own:
                raise AttributeError(f"the games of CardtableVecEnv have no attribute {attr_name!r}")
            out.append(own[attr_name])
        return out

    def set_attr(self, attr_name: str, value: Any, indices: Indices = None) -> None:
        if attr_name in self._sub_env(0):
            raise AttributeError(f"{attr_name!r} is the same for every game (make a new env to change it)")
        for i in self._get_indices(indices):
            self._attrs[i][attr_name] = value

    def env_method(self, method_name: str, *method_args: Any, indices: Indices = None,
                   **method_kwargs: Any) -> list[Any]:
        if method_name not in SUB_ENV_METHODS:
            raise AttributeError(f"the games of CardtableVecEnv have no method {method_name!r}: "
                                 f"{', '.join(SUB_ENV_METHODS)}")
        return [self._sub_env(i)[method_name](*method_args, **method_kwargs)
                for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: Indices = None) -> list[bool]:
        """No game is wrapped in a Gymnasium wrapper (wrap the VecEnv: ``VecMonitor``...)."""
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]

    def render(self, mode: str | None = None) -> np.ndarray | None:
        """Nothing to draw (``render_mode`` None)."""
        return None

    @property
    def unwrapped(self) -> CardtableVecEnv:
        return self

    def getattr_depth_check(self, name: str, already_found: bool) -> str | None:
        if hasattr(self, name) and already_found:
            return f"{type(self).__module__}.{type(self).__name__}"
        return None

    def _get_indices(self, indices: Indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return [int(i) for i in indices]


@functools.cache
def _sb3_class() -> type:
    try:
        from stable_baselines3.common.vec_env import VecEnv
    except ImportError as err:
        raise ImportError("sb3_vec_env needs stable-baselines3: pip install -e '.[train]' "
                          "(CardtableVecEnv has the same interface without it)") from err
    return type("CardtableSB3VecEnv", (CardtableVecEnv, VecEnv), {"__module__": __name__})


def sb3_vec_env(game: str = "solo", num_envs: int = 64, **kwargs: Any) -> Any:
    """A ``stable_baselines3.common.vec_env.VecEnv`` of ``num_envs`` C games (SB3 imported here);
    the options are ``CardtableVecEnv``'s."""
    return _sb3_class()(game, num_envs, **kwargs)
