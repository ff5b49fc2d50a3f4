"""The level ladder: each ``ismcts`` level against three of the level below it.

Run: ``python bench/ladder.py [--deals D] [--workers W] [--games solo-anniversary,scout]
[--steps strong/normal,normal/fast,fast/heuristic] [--match]``. A level is ``heuristic``,
``random``, a level name or an experimental budget with settings (``1500``, ``3000+cpuct=1``,
``2000+trees=4``: ``parse_level`` in ai/ismcts.py).

Every deal is played once per rotation of the bots through the 4 seats (duplicate deals,
rotated seats), so the luck of the cards cancels out. By default a game is one round (the
round's best score wins; ties share the win), which is where the search's decisions show and
what a ladder on a quiet afternoon can afford; ``--match`` plays whole matches. Each line
prints the upper level's win rate with its 95% interval, clustered by deal (parity is 25%), and the CPU
time per move of both levels (``time.thread_time``, so it does not depend on the load; a bot's
CPU over every time it was asked, out-of-turn offers it declined included, divided by the moves
it made: the ``cpu_ms_per_move`` of ``cardtable match --json``). The games are played by the
tournament runner (``ai/tournament.py``) and summarised by ``ai/stats.py``, like ``cardtable match``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardtable.ai.bots import parse_bot_spec  # noqa: E402
from cardtable.ai.stats import summarize  # noqa: E402
from cardtable.ai.tournament import Task, play_all, schedule  # noqa: E402
from cardtable.engine.errors import ParseError  # noqa: E402
from cardtable.engine.scout import Config as ScoutConfig  # noqa: E402
from cardtable.engine.solo import Config as SoloConfig  # noqa: E402

GAMES = {
    "solo-anniversary": SoloConfig.preset("anniversary", 4),
    "solo-classic": SoloConfig.preset("classic", 4),
    "scout": ScoutConfig(players=4),
}
EXAMPLE = """example (the ladder of docs/ai.md, about an hour of one core per game at 100 deals):
  python bench/ladder.py --deals 100 --workers 2
  python bench/ladder.py --games scout --steps normal/fast --deals 50 --seed 7
  python bench/ladder.py --games solo-classic --steps 2000+trees=4/500,500/100"""
STEPS = ["strong/normal", "normal/fast", "fast/heuristic"]


def spec(level: str) -> str:
    """``heuristic`` and ``random`` are bots; anything else is an ismcts level (``fast``,
    ``1500``, ``3000+cpuct=1``: ai/ismcts.py, parse_level)."""
    return level if level in ("heuristic", "random") else f"ismcts:{level}"


def run_step(config: Any, upper: str, lower: str, deals: int, workers: int, master: int,
             rounds: int) -> dict[str, Any]:
    """``upper`` in one seat against three ``lower``, games of ``rounds`` rounds (0: whole
    matches): its win rate, interval and CPU per move."""
    specs = [spec(upper)] + [spec(lower)] * (config.players - 1)
    games = schedule(deals, specs, duplicate=True, rotate=True)
    tasks = [Task(config.to_dict(), master, g, rounds=rounds) for g in games]
    # the deal is the unit: its four rotations are not independent games (ai/stats.py)
    rows = {row["bot"]: row for row in summarize(list(play_all(tasks, workers)))}
    top, below = rows[specs[0]], rows[specs[1]]
    return {"upper": upper, "lower": lower, "games": len(games), "win_rate": top["win_rate"],
            "ci": tuple(top["win_rate_ci"]), "ms_upper": top["cpu_ms_per_move"],
            "ms_lower": below["cpu_ms_per_move"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=EXAMPLE,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=100, help="duplicate deals per step (4 games each)")
    parser.add_argument("--workers", type=int, default=1, help="processes")
    parser.add_argument("--games", default="solo-anniversary,solo-classic,scout",
                        help=f"comma-separated, from {', '.join(GAMES)}")
    parser.add_argument("--steps", default=",".join(STEPS), help="comma-separated upper/lower pairs")
    parser.add_argument("--seed", type=int, default=2026, help="master seed of the deals")
    parser.add_argument("--rounds", type=int, default=1,
                        help="rounds a game (the best totals after them win): shows a small edge more")
    parser.add_argument("--match", action="store_true", help="play whole matches, not single rounds")
    args = parser.parse_args(argv)
    games = args.games.split(",")
    steps = [tuple(s.split("/")) for s in args.steps.split(",")]
    bad = [g for g in games if g not in GAMES] + [s for s in args.steps.split(",") if s.count("/") != 1]
    if bad:
        print(f"ladder: unknown game or step {bad[0]!r}", file=sys.stderr)
        return 2
    try:
        for level in {level for step in steps for level in step}:
            parse_bot_spec(spec(level))
    except ParseError as err:
        print(f"ladder: {err}", file=sys.stderr)
        return 2
    if args.rounds < 1:
        print("ladder: --rounds must be at least 1", file=sys.stderr)
        return 2
    rounds = 0 if args.match else args.rounds
    unit = "matches" if args.match else "single rounds" if rounds == 1 else f"games of {rounds} rounds"
    print(f"ladder: 4 players, {args.deals} duplicate deals x 4 rotations per line, {unit}; parity 25%")
    print(f"{'game':<18} {'step':<18} {'games':>5} {'win %':>6} {'95% interval':>13} "
          f"{'CPU ms/move (upper / lower)':>28}")
    for name in games:
        for upper, lower in steps:
            started = time.perf_counter()
            r = run_step(GAMES[name], upper, lower, args.deals, args.workers, args.seed, rounds)
            low, high = r["ci"]
            interval = f"{100 * low:.1f}-{100 * high:.1f}%"
            verdict = "climbs" if low > 0.25 else "does not climb"
            print(f"{name:<18} {upper + ' vs ' + lower:<18} {r['games']:>5} {100 * r['win_rate']:>5.1f}% "
                  f"{interval:>13} {r['ms_upper']:>11.2f} / {r['ms_lower']:<12.2f}"
                  f"{verdict}  ({time.perf_counter() - started:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
