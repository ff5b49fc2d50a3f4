"""The single-agent Gymnasium ids on the C path: ``gymnasium.make("cardtable/Solo-v0", backend="c")``.

``CardtableGymCEnv`` is one game of the C vector env (``envs.vector.VectorEnv(num_envs=1)``)
with the agent in ``seat`` and the C mirror's opponents (``heuristic`` or ``random``) in every
other seat: the same observations, masks, rewards and spaces as one sub-environment of
``gymnasium.make_vec(id, vectorization_mode="vector_entry_point")``, and the same seeding: a
seed ``s`` puts the game on the mirror's stream ``s``, as sub-environment i of the vector form
is put on stream ``seed + i``. ``reset()`` without a seed after an episode ended goes on with
the same stream, as a sub-environment's auto-reset does, so a ``SyncVectorEnv`` of these (same
step autoreset) plays the same games as the vector form (docs/envs.md, "Gymnasium on the C path").

What differs from ``backend="engine"``: the deals come from the mirror's stream, not
``cardtable match --seed S``'s; episodes are one round (``episode="round"``,
``reward="score"``); the opponents are the C ones, not the project's Python bots; the
``totals`` block is zero (as in the vector env); ``render()`` says the agent's last action as
its tokens.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from cardtable.engine.errors import ParseError
from cardtable.envs.agent_spaces import observation_box
from cardtable.envs.vector import STREAMS, VectorEnv

ILLEGAL = ("random", "raise")
C_OPPONENTS = ("heuristic", "random")


def c_opponents(opponents: str | Mapping[int, str], players: int, seat: int) -> str:
    """The one C opponent spec every seat but ``seat`` plays (``heuristic`` or ``random``)."""
    if isinstance(opponents, str):
        specs = {opponents}
    else:
        if sorted(opponents) != [s for s in range(players) if s != seat]:
            raise ParseError(f"opponents must name every seat but {seat}")
        specs = set(opponents.values())
    if len(specs) != 1 or not specs <= set(C_OPPONENTS):
        raise ParseError(f"backend='c' seats the C mirror's opponents: one of {', '.join(C_OPPONENTS)} "
                         f"in every other seat, not {opponents!r} (backend='engine' seats the bots)")
    return specs.pop()


class CardtableGymCEnv(gymnasium.Env):
    """One seat of SOLO or SCOUT against the C mirror's opponents, stepped in C.

    The options are ``CardtableGymEnv``'s, with ``episode="round"``, ``reward="score"`` and C
    opponents only (others: ``ParseError``). ``action_masks()`` reads the mask the C loop
    wrote (nothing is built); ``snapshot()``/``load(snapshot)`` give and take the position as
    engine ``State.snapshot()`` data."""

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, game: str = "solo", players: int = 2, seat: int = 0,
                 opponents: str | Mapping[int, str] = "heuristic",
                 rules: Mapping[str, Any] | None = None, episode: str = "round",
                 reward: str = "score", illegal: str = "random", max_actions: int = 20_000,
                 render_mode: str | None = None, normalise: bool = True, shaping: float = 0.0) -> None:
        if illegal not in ILLEGAL:
            raise ParseError(f"illegal must be one of {', '.join(ILLEGAL)}, not {illegal!r}")
        if render_mode not in (None, "ansi"):
            raise ParseError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise ParseError(f"seat {seat!r} is not a seat at a {players}-player table")
        if episode != "round":
            raise ParseError(f"backend='c' plays one-round episodes, not episode={episode!r}: "
                             "use backend='engine' for matches")
        if reward != "score":
            raise ParseError(f"backend='c' pays reward='score', not {reward!r}: "
                             "use backend='engine' for 'win'")
        spec = c_opponents(opponents, players, seat)
        try:
            self.vec = VectorEnv(game, num_envs=1, players=players, rules=rules, max_actions=max_actions,
                                 normalise=normalise, opponents=spec, agent_seat=seat, shaping=shaping)
        except ValueError as err:
            raise ParseError(str(err)) from None
        self.game, self.players, self.seat, self.opponents = game, players, seat, spec
        self.illegal, self.render_mode, self.normalise = illegal, render_mode, normalise
        self.codec = self.vec.codec
        layout = self.codec.LAYOUT
        self.observation_space = spaces.Dict({
            "observation": observation_box(layout, normalise),
            "action_mask": spaces.Box(0, 1, (self.codec.NUM_TOKENS,), np.int8),
        })
        self.action_space = spaces.Discrete(self.codec.NUM_TOKENS)
        self._mid_path = layout.offsets["asked"][0] + 2  # "in the middle of a token path"
        self._live = False     # an episode is in play
        self._dealt = False    # the last episode ended and the C loop dealt the next one at once
        self._said: list[int] = []
        self._last: list[int] = []

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """With ``seed``: the game on stream ``seed`` (mod 2**64). Without: after an episode
        ended, the next deal of the same stream (what a vector sub-environment's auto-reset
        plays); else a stream drawn from the env's generator (``np_random``)."""
        super().reset(seed=seed)
        if seed is not None:
            self.vec.reset_streams([int(seed) % STREAMS])
        elif not self._dealt:
            self.vec.reset_streams([int(self.np_random.integers(0, STREAMS, dtype=np.uint64))])
        self._live, self._dealt = True, False
        self._said, self._last = [], []
        return self._observe(), {}

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if not self._live:
            raise ParseError("the episode is over: call reset()")
        vec = self.vec
        mask = vec.action_masks[0]
        token = int(action)
        illegal = not (0 <= token < mask.shape[0] and mask[token])
        if illegal:
            legal = np.flatnonzero(mask)
            if self.illegal == "raise":
                raise ParseError(f"token {token} is not legal now; legal: {legal.tolist()}")
            token = int(legal[int(self.np_random.integers(len(legal)))])
        vec.step([token])
        self._said.append(token)
        done, truncated = bool(vec.dones[0]), bool(vec.truncations[0])
        reward = float(vec.rewards[0, self.seat])
        if done or truncated:
            self._live, self._dealt = False, True
            self._last, self._said = self._said, []
            assert vec.final_observations is not None
            obs = {"observation": np.array(vec.final_observations[0]),
                   "action_mask": np.zeros(self.codec.NUM_TOKENS, np.int8)}
            return obs, reward, done, truncated and not done, {"illegal_action": illegal}
        if not vec.observations[0, self._mid_path]:
            self._last, self._said = self._said, []  # the action is complete
        return self._observe(), reward, False, False, {"illegal_action": illegal}

    def action_masks(self) -> np.ndarray:
        """The tokens the agent may say now (bool), read from the C loop's mask: no observation
        is built (none once the episode is over)."""
        if not self._live:
            return np.zeros(self.codec.NUM_TOKENS, bool)
        return np.array(self.vec.action_masks[0], dtype=bool)

    def snapshot(self) -> dict[str, Any]:
        """The position as engine ``State.snapshot()`` data (SOLO's ``known`` included)."""
        return self.vec.snapshot(0)

    def load(self, snapshot: dict[str, Any]) -> dict[str, np.ndarray]:
        """Start an episode at an engine position (round 0, same rules; the C opponents play
        up to the agent's turn); the agent's observation."""
        self.vec.load(0, snapshot)
        self._live, self._dealt, self._said, self._last = True, False, [], []
        return self._observe()

    def _observe(self) -> dict[str, np.ndarray]:
        return {"observation": np.array(self.vec.observations[0]),
                "action_mask": np.array(self.vec.action_masks[0])}

    def render(self) -> str | None:
        """The agent's last action, as its tokens in words (``render_mode="ansi"``)."""
        if self.render_mode is None:
            return None
        if not self._last:
            return ""
        return f"seat {self.seat}: " + ", ".join(self.codec.token_text(t) for t in self._last)
