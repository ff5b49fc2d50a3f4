"""The AI's figures, each comparison measured side by side in this one process.

Run: ``python bench/ai.py [--seconds S] [--deals D] [--workers W] [--skip-strength]``.

1. Random playouts/s: the C mirror against the pure-Python engine (4-player SOLO
   anniversary and classic, 4-player SCOUT), printed with their ratio.
2. ISMCTS iterations/s from fixed mid-game positions.
3. Bytes per tree node and the peak memory of a 1-second search.
4. Strength: ``ismcts:fast`` against three ``heuristic``, and ``heuristic`` against three
   ``random``, 4 players, duplicate deals (each deal played 4 times, the bots rotated).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai import _search  # noqa: E402
from ai.tournament import run, schedule, summarize  # noqa: E402
from bench.engine import play_round  # noqa: E402
from engine.match import Match  # noqa: E402
from engine.scout import Config as ScoutConfig  # noqa: E402
from engine.scout import new_round as scout_round  # noqa: E402
from engine.shuffle import Stream  # noqa: E402
from engine.solo import Config as SoloConfig  # noqa: E402
from engine.solo import new_round as solo_round  # noqa: E402

CASES = [
    ("SOLO anniversary 4p", solo_round, SoloConfig.preset("anniversary", 4), _search.SoloMirror),
    ("SOLO classic 4p", solo_round, SoloConfig.preset("classic", 4), _search.SoloMirror),
    ("SCOUT 4p", scout_round, ScoutConfig(players=4), _search.ScoutMirror),
]


def rate(fn: Any, seconds: float) -> float:
    """Calls of ``fn(i)`` per second over about ``seconds``."""
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        fn(count)
        count += 1
    return count / (time.perf_counter() - start)


def playouts(seconds: float) -> None:
    print("random playouts (whole rounds) per second")
    print(f"{'case':<22} {'engine':>10} {'mirror':>12} {'ratio':>8}")
    for name, new_round, config, mirror in CASES:
        rng = Stream(b"bench", name)
        starts = [new_round(config, f"bench/{i}".encode(), 0) for i in range(64)]
        snaps = [s.snapshot() for s in starts]
        mirrors = [mirror.from_snapshot(s) for s in snaps]

        def engine_round(i: int, starts: list[Any] = starts, rng: Stream = rng) -> None:
            play_round(type(starts[0]).from_snapshot(starts[i % 64].snapshot()), rng)

        def mirror_round(i: int, mirrors: list[Any] = mirrors) -> None:
            mirrors[i % 64].copy().random_playout(i)

        engine = rate(engine_round, seconds)
        fast = rate(mirror_round, seconds)
        print(f"{name:<22} {engine:>10.1f} {fast:>12.1f} {fast / engine:>7.0f}x")


def positions() -> list[tuple[str, dict[str, Any], int]]:
    """Mid-game observations: 4-player games played 12 actions in by random bots."""
    from ai import make_bot, play_match

    out = []
    for name, config in [("SOLO anniversary 4p", SoloConfig.preset("anniversary", 4)),
                         ("SOLO classic 4p", SoloConfig.preset("classic", 4)),
                         ("SCOUT 4p", ScoutConfig(players=4))]:
        for k in range(3):
            seed = f"bench/position/{k}".encode()
            match = Match(config, seed)
            try:
                play_match(match, [make_bot("random", seed, s) for s in range(4)], max_actions=12)
            except RuntimeError:
                pass
            seat = match.to_move()
            assert seat is not None
            out.append((name, match.observation(seat), seat))
    return out


def iterations(seconds: float) -> None:
    print("\nISMCTS iterations per second (3 mid-game positions each, one process)")
    by_case: dict[str, list[float]] = {}
    for name, obs, seat in positions():
        _, stats = _search.search(obs["game"], obs, obs["config"], seat, seconds=seconds / 3, seed=1)
        by_case.setdefault(name, []).append(stats["iterations"] / stats["seconds"])
    for name, rates in by_case.items():
        print(f"{name:<22} {sum(rates) / len(rates):>12,.0f} it/s  (min {min(rates):,.0f})")


def memory() -> None:
    name, obs, seat = positions()[0]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    _, stats = _search.search(obs["game"], obs, obs["config"], seat, seconds=1.0, seed=2)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"\nbytes per tree node: {_search.NODE_BYTES}")
    tree_mb = stats["nodes"] * _search.NODE_BYTES / 1e6
    print(f"1-second search ({name}): {stats['iterations']:,} iterations, {stats['nodes']:,} nodes, "
          f"tree {tree_mb:.1f} MB, peak RSS grew {(after - before) / 1e3:.1f} MB")


def strength(deals: int, workers: int) -> None:
    print(f"\nstrength, 4 players, {deals} duplicate deals ({4 * deals} games) per line")
    print(f"{'game':<22} {'bot':<14} {'win %':>7} {'95% interval':>15} {'mean score':>11} {'ms/move':>8}")
    for name, config in [("SOLO anniversary 4p", SoloConfig.preset("anniversary", 4)),
                         ("SCOUT 4p", ScoutConfig(players=4))]:
        for specs in (["ismcts:fast"] + ["heuristic"] * 3, ["heuristic"] + ["random"] * 3):
            started = time.perf_counter()
            results = run(config, 2026, schedule(deals, specs, duplicate=True, rotate=True), workers)
            row = next(r for r in summarize(results) if r["bot"] == specs[0])
            low, high = row["win_rate_ci"]
            print(f"{name:<22} {specs[0]:<14} {100 * row['win_rate']:>6.1f}% "
                  f"{f'{100 * low:.1f}-{100 * high:.1f}%':>15} {row['mean_score']:>11.1f} "
                  f"{row['ms_per_move']:>8.2f}   ({time.perf_counter() - started:.0f} s)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per speed measurement")
    parser.add_argument("--deals", type=int, default=500, help="duplicate deals per strength line")
    parser.add_argument("--workers", type=int, default=1, help="processes for the strength games")
    parser.add_argument("--skip-strength", action="store_true", help="only the speed and memory figures")
    args = parser.parse_args()
    memory()  # first: the peak RSS has not yet been raised by the other searches
    playouts(args.seconds)
    iterations(args.seconds)
    if not args.skip_strength:
        strength(args.deals, args.workers)


if __name__ == "__main__":
    main()
