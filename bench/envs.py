"""Environment speed with random agents, beside RLCard's UNO, and the overhead over the engine.

Run: ``python bench/envs.py [--seconds S]`` (needs the ``envs`` extra; RLCard's line needs
the ``bench`` extra). Every line plays whole episodes (one round) in this one process with
uniformly random legal choices and prints agent steps per second. For cardtable an agent
step is one token (most actions are one token; a Wild, a Swap, a show are two); the engine
line plays the same rounds with no environment (the seat to move picks among its legal
actions), and "overhead" is the time per engine action through the environment divided by
the time per engine action of the bare engine.

The batched C environment (``envs.vector.VectorEnv``) is timed two ways, each beside RLCard's
UNO in the same run (the ratio is per core: one process, one thread): random tokens chosen
inside the C loop (``step_random``), and tokens chosen in numpy and given to ``step`` for the
whole batch (what a learner's loop does). ``--vector-only`` skips the Python environments.
The PettingZoo env on the C path (``backend="c"``) is timed beside the engine-backed one and
an UNO run just before it, with the same random agent loop (one token at a time through
``agent_iter``/``last``/``step``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from cardtable.engine.match import Match, match_seed  # noqa: E402
from cardtable.envs.pettingzoo_env import scout_env, solo_env  # noqa: E402
from cardtable.envs.table import make_config  # noqa: E402


def timed(seconds: float, episode: Callable[[int], tuple[int, int]]) -> tuple[float, float]:
    """Run ``episode(i)`` -> (steps, engine actions) until ``seconds`` pass; the two rates."""
    steps = actions = i = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        s, a = episode(i)
        steps, actions, i = steps + s, actions + a, i + 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, actions / elapsed


def pettingzoo_episode(env: Any, rng: np.random.Generator) -> Callable[[int], tuple[int, int]]:
    def run(i: int) -> tuple[int, int]:
        env.reset(seed=i)
        steps = 0
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        table = getattr(env.unwrapped, "table", None)  # the C backend keeps no engine log
        return steps, len(table.entries) if table is not None else 0
    return run


def engine_episode(game: str, players: int, rules: dict[str, Any] | None,
                   rng: np.random.Generator) -> Callable[[int], tuple[int, int]]:
    config = make_config(game, players, rules)

    def run(i: int) -> tuple[int, int]:
        match = Match(config, match_seed(i, 0))
        actions = 0
        while not match.round_scores:
            seat = match.to_move()
            assert seat is not None
            legal = [a for a in match.legal_actions(seat) if not str(a).startswith("catch:")]
            match.apply(seat, legal[int(rng.integers(len(legal)))])
            actions += 1
        return actions, actions
    return run


def openspiel_episode(name: str, params: dict[str, Any],
                      rng: np.random.Generator) -> Callable[[int], tuple[int, int]]:
    import pyspiel

    import cardtable.envs.openspiel_games  # noqa: F401  (registers the games)

    game = pyspiel.load_game(name, params)

    def run(i: int) -> tuple[int, int]:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
                steps += 1
        return steps, state.p.actions
    return run


def rlcard_episode(rng: np.random.Generator) -> Callable[[int], tuple[int, int]] | None:
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("uno", config={"seed": 0})

    def run(i: int) -> tuple[int, int]:
        state, _ = env.reset()
        steps = 0
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[int(rng.integers(len(legal)))])
            steps += 1
        return steps, steps
    return run


def vector_rates(game: str, players: int, seconds: float, num_envs: int = 256) -> tuple[float, float]:
    """Steps per second of the C vector env: random tokens in C; tokens from numpy via ``step``."""
    from cardtable.envs.vector import VectorEnv

    env = VectorEnv(game, num_envs=num_envs, players=players)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.step_random(50)
        steps += 50 * num_envs
    in_c = steps / (time.perf_counter() - start)
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.step((rng.random(env.action_masks.shape) * env.action_masks).argmax(axis=1))
        steps += num_envs
    return in_c, steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per line")
    parser.add_argument("--vector-only", action="store_true", help="only the C vector env and UNO")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    uno = rlcard_episode(rng)
    if uno is None:
        print("RLCard UNO 2p: not installed (pip install -e '.[bench]')")
    for label, game, players in (("SOLO classic 2p", "solo", 2), ("SOLO classic 4p", "solo", 4),
                                 ("SCOUT 4p", "scout", 4)):
        # UNO is timed right before each line: the ratio compares runs seconds apart
        uno_rate = timed(args.seconds, uno)[0] if uno is not None else None
        if uno_rate is not None:
            print(f"{'RLCard UNO 2p (for comparison)':<42} {uno_rate:>9.0f}")
        in_c, given = vector_rates(game, players, args.seconds)
        for how, rate in (("random in C", in_c), ("step(numpy)", given)):
            ratio = f"{rate / uno_rate:>8.1f}x UNO" if uno_rate else ""
            print(f"{f'vector {label}, {how}':<42} {rate:>9.0f} {ratio}")
    if args.vector_only:
        return
    print(f"{'case':<42} {'steps/s':>9} {'engine actions/s':>17} {'overhead':>9}")
    cases: list[tuple[str, str, int, dict[str, Any] | None]] = [
        ("SOLO classic 2p", "solo", 2, {}), ("SOLO classic 4p", "solo", 4, {}),
        ("SOLO anniversary 4p", "solo", 4, {"edition": "anniversary"}), ("SCOUT 4p", "scout", 4, None),
    ]
    for label, game, players, rules in cases:
        env = solo_env(players, rules=rules) if game == "solo" else scout_env(players)
        c_env = (solo_env(players, rules=rules, backend="c") if game == "solo"
                 else scout_env(players, backend="c"))
        _, bare = timed(args.seconds, engine_episode(game, players, rules, rng))
        steps, actions = timed(args.seconds, pettingzoo_episode(env, rng))
        uno_rate = timed(args.seconds, uno)[0] if uno is not None else None
        c_steps, _ = timed(args.seconds, pettingzoo_episode(c_env, rng))
        versus = f"{c_steps / steps:>5.1f}x engine-backed"
        if uno_rate is not None:
            versus += f", {c_steps / uno_rate:.1f}x UNO ({uno_rate:.0f})"
        print(f"{'engine only, ' + label:<42} {bare:>9.0f} {bare:>17.0f} {'1.00x':>9}")
        print(f"{'PettingZoo, ' + label:<42} {steps:>9.0f} {actions:>17.0f} {bare / actions:>8.2f}x")
        print(f"{'PettingZoo C backend, ' + label:<42} {c_steps:>9.0f} {'':>17} {'':>9} {versus}")
    for label, name in (("OpenSpiel, SOLO classic 4p", "cardtable_solo"),
                        ("OpenSpiel, SCOUT 4p", "cardtable_scout")):
        steps, actions = timed(args.seconds, openspiel_episode(name, {"players": 4}, rng))
        print(f"{label:<42} {steps:>9.0f} {actions:>17.0f}")


if __name__ == "__main__":
    main()
