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

import bisect
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from cardtable.engine.match import Match
from cardtable.engine.solo.cards import FACES
from cardtable.envs.table import CODECS, make_config

DEFAULT_SEED = 0
OPPONENTS = (None, "random", "heuristic")
"""Who plays the other seats: nobody (every seat is asked), or computer opponents in C."""
STREAMS = 2**64
"""A game's random stream is a number in [0, 2**64): the seed of the mirror's generator."""
STREAM_STEP = 0x100000001B3
"""``reset(seed)`` puts game i on stream ``seed * STREAM_STEP + i`` (mod 2**64)."""
_STEP_INVERSE = pow(STREAM_STEP, -1, STREAMS)


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
    instead (``seats`` -1, an empty mask, ``view`` shows it) until ``reset``.

    Every game draws its deals, reshuffles and random opponents' choices from its own stream
    (``reset``: game i on stream ``seed * STREAM_STEP + i``; ``reset_streams``: any stream per
    game). The games are stepped in C in blocks of consecutive streams: one block after
    ``reset(seed)``, one per run of consecutive streams after ``reset_streams``."""

    def __init__(self, game: str = "solo", num_envs: int = 64, players: int = 2,
                 rules: Mapping[str, Any] | None = None, seed: int = DEFAULT_SEED,
                 max_actions: int = 20_000, normalise: bool = True, opponents: str | None = None,
                 agent_seat: int = 0, shaping: float = 0.0, autoreset: bool = True) -> None:
        if game not in CODECS:
            raise ValueError(f"unknown game {game!r}: choose solo or scout")
        if opponents not in OPPONENTS:
            raise ValueError(f"opponents must be one of {', '.join(map(str, OPPONENTS))}, not {opponents!r}")
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, not {num_envs!r}")
        config = make_config(game, players, rules)
        self.game, self.num_envs, self.players, self.normalise = game, num_envs, players, normalise
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
        self._arrays = (obs, masks, rewards, dones, truncations, seats, final)
        self._options = (template, max_actions, norm, agent_seat if opponents else -1,
                         OPPONENTS.index(opponents) - 1, float(shaping), bool(autoreset))
        self._build([(0, num_envs, _seed(seed))])
        # The C loop writes these arrays (and clears only what it set): the caller reads them.
        self.observations = _read_only(obs)
        self.action_masks = _read_only(masks)
        self.rewards = _read_only(rewards)
        self.dones = _read_only(dones.view(bool))
        self.truncations = _read_only(truncations.view(bool))
        self.seats = _read_only(seats)
        self.final_observations = None if final is None else _read_only(final)

    # --- the C blocks ----------------------------------------------------------------------
    def _build(self, runs: list[tuple[int, int, int]]) -> None:
        """One C core per ``(start, stop, seed)``: games start..stop-1, written into those rows
        of the arrays, dealt from ``reset(seed)``'s streams of that core."""
        from cardtable.ai._search import VectorCore  # the compiled extension (optional)

        obs, masks, rewards, dones, truncations, seats, final = self._arrays
        template, max_actions, norm, agent, opponents, shaping, autoreset = self._options
        self._parts = [(a, b, VectorCore(template, b - a, seed, max_actions, obs[a:b], masks[a:b],
                                         rewards[a:b], dones[a:b], truncations[a:b], seats[a:b], *norm,
                                         agent, opponents, shaping, None if final is None else final[a:b],
                                         autoreset))
                       for a, b, seed in runs]
        self._starts = [a for a, _, _ in self._parts]

    def _reset_runs(self, runs: list[tuple[int, int, int]]) -> None:
        if [(a, b) for a, b, _ in runs] == [(a, b) for a, b, _ in self._parts]:
            for (_, _, seed), (_, _, core) in zip(runs, self._parts, strict=True):
                core.reset(seed)
        else:
            self._build(runs)

    def _game(self, index: int) -> tuple[Any, int]:
        """The C core holding game ``index`` and the game's number in it."""
        if not isinstance(index, (int, np.integer)) or not 0 <= index < self.num_envs:
            raise ValueError(f"no game {index}")
        part = self._parts[bisect.bisect_right(self._starts, int(index)) - 1]
        return part[2], int(index) - part[0]

    # --- the API ----------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> np.ndarray:
        """Deal every game again (game i on stream ``seed * STREAM_STEP + i``); the observations."""
        self._reset_runs([(0, self.num_envs, _seed(DEFAULT_SEED if seed is None else seed))])
        return self.observations

    def reset_streams(self, streams: Sequence[int]) -> np.ndarray:
        """Deal every game again, game i on stream ``streams[i]`` (ints in [0, 2**64)): a game
        on stream s plays as game 0 of any ``VectorEnv`` with the same options on stream s,
        whatever its index (the same tokens give the same episodes, auto-resets included).
        Runs of consecutive streams (s, s + 1, ...) are stepped as one C block; each break in
        the run costs one more C call per ``step``. The observations."""
        streams = [_seed(s) for s in streams]
        if len(streams) != self.num_envs:
            raise ValueError(f"reset_streams needs {self.num_envs} streams, got {len(streams)}")
        runs: list[tuple[int, int, int]] = []
        start = 0
        for i in range(1, self.num_envs + 1):
            if i == self.num_envs or streams[i] != (streams[i - 1] + 1) % STREAMS:
                runs.append((start, i, streams[start] * _STEP_INVERSE % STREAMS))
                start = i
        self._reset_runs(runs)
        return self.observations

    def step(self, tokens: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Game i's asked seat says ``tokens[i]`` (all must be in the masks, else ValueError and
        nothing changes). Returns observations, rewards, dones, truncations (the arrays)."""
        tokens = np.ascontiguousarray(tokens, dtype=np.int32)
        if len(self._parts) == 1:
            self._parts[0][2].step(tokens)
        else:  # check every game first: nothing is applied unless all tokens are legal
            if tokens.shape != (self.num_envs,):
                raise ValueError(f"step needs {self.num_envs} tokens, got {tokens.size}")
            ok = (tokens >= 0) & (tokens < self.action_masks.shape[1])
            ok[ok] = self.action_masks[np.flatnonzero(ok), tokens[ok]] != 0
            if not ok.all():
                bad = int(np.flatnonzero(~ok)[0])
                raise ValueError(f"token {tokens[bad]} is not legal in game {bad} now")
            for a, b, core in self._parts:
                core.step(tokens[a:b])
        return self.observations, self.rewards, self.dones, self.truncations

    def step_random(self, steps: int) -> int:
        """``steps`` uniformly random legal tokens in every game, all in C; the episodes
        finished since the last reset."""
        return sum(int(core.step_random(int(steps))) for _, _, core in self._parts)

    def view(self, index: int, seat: int) -> np.ndarray:
        """Seat's observation of game ``index`` now (a new array): the asked seat's is the one in
        ``observations``; any other seat's is its view with no mask (a finished game held by
        ``autoreset=False`` too)."""
        core, game = self._game(index)
        out = np.zeros(self.codec.LAYOUT.size, np.float32)
        core.view(game, seat, out)
        return out

    def load(self, index: int, snapshot: dict[str, Any]) -> None:
        """Put an engine position (``State.snapshot()``, same rules) into game ``index``; SOLO's
        ``known`` (the cards each seat has seen go into other hands) comes with it."""
        core, game = self._game(index)
        core.load(game, snapshot)

    def snapshot(self, index: int) -> dict[str, Any]:
        """Game ``index`` as engine ``State.snapshot()`` data, SOLO's ``known`` included (read
        back from every seat's view), so ``load`` and ``State.from_snapshot`` give each seat
        what it knew. The asking state is not part of it: a seat that let an out-of-turn
        chance go is offered it again, and a half-said token path starts again."""
        core, game = self._game(index)
        snap: dict[str, Any] = core.snapshot(game)
        if self.game == "solo":
            snap["known"] = [self._known(index, seat) for seat in range(self.players)]
        return snap

    def _known(self, index: int, seat: int) -> list[list[str]]:
        """The cards ``seat`` knows to be in each hand (by seat), from its view's ``known``."""
        layout = self.codec.LAYOUT
        start, shape = layout.offsets["known"]
        stop = start + shape[0] * shape[1]
        counts = self.view(index, seat)[start:stop]
        if self.normalise:
            counts = counts / layout.inverse_scale[start:stop]
        rows = np.rint(counts).astype(np.int64).reshape(shape)
        known: list[list[str]] = [[] for _ in range(self.players)]
        for offset in range(1, self.players):
            known[(seat + offset) % self.players] = [FACES[f].text for f in np.flatnonzero(rows[offset])
                                                     for _ in range(rows[offset, f])]
        return known

    def reshuffles(self, index: int) -> int:
        """SOLO: how many times game ``index`` has turned its discard pile into a draw pile."""
        core, game = self._game(index)
        return int(core.reshuffles(game))


def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


def _seed(seed: int) -> int:
    if isinstance(seed, np.integer):
        seed = int(seed)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < STREAMS:
        raise ValueError(f"seed must be an int in [0, 2**64), not {seed!r}")
    return seed
