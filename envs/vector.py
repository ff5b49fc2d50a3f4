"""N games at once in the C mirror: the batched environment (docs/envs.md, "Vector env").

``VectorEnv("solo", num_envs=256, players=2)`` steps 256 one-round games together. Each step
every game's asked seat says one token (the tokens, asking order, observation vector and
action mask of the PettingZoo environments); the C loop writes each game's next observation,
mask, seat asked, rewards and done flags into numpy arrays with the GIL released, and deals a
finished game again at once (auto-reset: the arrays then show the new game's first position,
and ``rewards``/``dones`` that step are those of the game that ended).

Rewards are paid when a round ends, to every seat: SOLO minus the points left in each hand
(whatever the scoring), SCOUT the round's score, as the PettingZoo ``score`` reward.
What differs from the PettingZoo environment: deals and reshuffles come from the mirror's own
seeded stream, not the engine's SHA-256 shuffle (``load`` puts an engine position in a game),
the episode is one round with ``totals`` and ``round`` zero, the computer opponents (if any)
are the C mirror's, not the project's bots, and SCOUT's ``voluntary_pass`` option is not
offered. Everything else is the engine's game, SOLO's ``known`` cards included: the test plays
engine and vector env side by side, token for token (tests/envs/test_vector.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cardtable.engine.match import Match
from cardtable.envs.table import CODECS, make_config

DEFAULT_SEED = 0
OPPONENTS = (None, "random", "heuristic")
"""Who plays the other seats: nobody (every seat is asked), or computer opponents in C."""


class VectorEnv:
    """``num_envs`` games of ``game`` (``solo`` or ``scout``) for ``players`` seats, stepped in C.

    With ``opponents`` (``random``, or ``heuristic``: the C mirror's heuristic, the search's
    rollout policy) only ``agent_seat`` is asked and the others play inside the C loop;
    ``final_observations`` (N, size) then holds the agent's view of each game as it ended
    (valid in the rows where ``dones`` or ``truncations`` is set).
    ``shaping=w`` adds the potential-based shaped reward of ``envs.shaping`` to every step.
    Observations are scaled and clipped by the layout's blocks (``envs.layout``: every value
    in ``layout.low``..``layout.high``) unless ``normalise=False`` (the raw counts).
    Arrays (read-only views, overwritten in place by every call: copy what you keep):
    ``observations`` (N, size) float32; ``action_masks`` (N, tokens) int8; ``seats`` (N,)
    int32, the seat asked in each game (whose observation and mask those are); ``rewards``
    (N, players) float32; ``dones`` and ``truncations`` (N,) bool, the game ended at this
    step and was dealt again. With ``autoreset=False`` a finished game is held as it ended
    instead (``seats`` -1, an empty mask, ``view`` shows it) until ``reset``."""

    def __init__(self, game: str = "solo", num_envs: int = 64, players: int = 2,
                 rules: Mapping[str, Any] | None = None, seed: int = DEFAULT_SEED,
                 max_actions: int = 20_000, normalise: bool = True, opponents: str | None = None,
                 agent_seat: int = 0, shaping: float = 0.0, autoreset: bool = True) -> None:
        from cardtable.ai._search import VectorCore  # the compiled extension (optional)

        if game not in CODECS:
            raise ValueError(f"unknown game {game!r}: choose solo or scout")
        if opponents not in OPPONENTS:
            raise ValueError(f"opponents must be one of {', '.join(map(str, OPPONENTS))}, not {opponents!r}")
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, not {num_envs!r}")
        config = make_config(game, players, rules)
        self.game, self.num_envs, self.players = game, num_envs, players
        self.codec = CODECS[game]
        template = Match(config, b"template").state.snapshot()
        size, tokens = self.codec.LAYOUT.size, self.codec.NUM_TOKENS
        obs = np.zeros((num_envs, size), np.float32)
        masks = np.zeros((num_envs, tokens), np.int8)
        rewards = np.zeros((num_envs, players), np.float32)
        dones = np.zeros(num_envs, np.uint8)
        truncations = np.zeros(num_envs, np.uint8)
        seats = np.zeros(num_envs, np.int32)
        layout = self.codec.LAYOUT
        if normalise:
            norm = (layout.inverse_scale, layout.low, layout.high)
        else:
            norm = (np.ones(size, np.float32), np.full(size, -np.inf, np.float32),
                    np.full(size, np.inf, np.float32))
        final = np.zeros((num_envs, size), np.float32) if opponents else None
        self._core = VectorCore(template, num_envs, _seed(seed), max_actions, obs, masks, rewards,
                                dones, truncations, seats, *norm,
                                agent_seat if opponents else -1, OPPONENTS.index(opponents) - 1,
                                float(shaping), final, bool(autoreset))
        # The C loop writes these arrays (and clears only what it set): the caller reads them.
        self.observations = _read_only(obs)
        self.action_masks = _read_only(masks)
        self.rewards = _read_only(rewards)
        self.dones = _read_only(dones.view(bool))
        self.truncations = _read_only(truncations.view(bool))
        self.seats = _read_only(seats)
        self.final_observations = None if final is None else _read_only(final)

    def reset(self, seed: int | None = None) -> np.ndarray:
        """Deal every game again (game i from the stream of ``(seed, i)``); the observations."""
        self._core.reset(_seed(DEFAULT_SEED if seed is None else seed))
        return self.observations

    def step(self, tokens: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Game i's asked seat says ``tokens[i]`` (all must be in the masks, else ValueError and
        nothing changes). Returns observations, rewards, dones, truncations (the arrays)."""
        self._core.step(np.ascontiguousarray(tokens, dtype=np.int32))
        return self.observations, self.rewards, self.dones, self.truncations

    def step_random(self, steps: int) -> int:
        """``steps`` uniformly random legal tokens in every game, all in C; the episodes
        finished since the last reset."""
        return int(self._core.step_random(int(steps)))

    def view(self, index: int, seat: int) -> np.ndarray:
        """Seat's observation of game ``index`` now (a new array): the asked seat's is the one in
        ``observations``; any other seat's is its view with no mask (a finished game held by
        ``autoreset=False`` too)."""
        out = np.zeros(self.codec.LAYOUT.size, np.float32)
        self._core.view(index, seat, out)
        return out

    def load(self, index: int, snapshot: dict[str, Any]) -> None:
        """Put an engine position (``State.snapshot()``, same rules) into game ``index``."""
        self._core.load(index, snapshot)

    def snapshot(self, index: int) -> dict[str, Any]:
        """Game ``index`` as engine ``State.snapshot()`` data (``known`` left out)."""
        snap: dict[str, Any] = self._core.snapshot(index)
        return snap

    def reshuffles(self, index: int) -> int:
        """SOLO: how many times game ``index`` has turned its discard pile into a draw pile."""
        return int(self._core.reshuffles(index))


def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


def _seed(seed: int) -> int:
    if not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an int in [0, 2**64), not {seed!r}")
    return seed
