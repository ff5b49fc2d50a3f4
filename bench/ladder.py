"""The level ladder: each ``ismcts`` level against three of the level below it.

Run: ``python bench/ladder.py [--deals D] [--workers W] [--games solo-anniversary,scout]
[--steps strong/normal,normal/fast,fast/heuristic] [--match]``.

Every deal is played once per rotation of the bots through the 4 seats (duplicate deals,
rotated seats), so the luck of the cards cancels out. By default a game is one round (the
round's best score wins; ties share the win), which is where the search's decisions show and
what a ladder on a quiet afternoon can afford; ``--match`` plays whole matches. Each line
prints the upper level's win rate with its 95% interval, clustered by deal (parity is 25%), and the CPU
time per decision of both levels (``time.thread_time``, so it does not depend on the load).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardtable.ai.bots import make_bot  # noqa: E402
from cardtable.ai.stats import rate_interval  # noqa: E402
from cardtable.ai.tournament import Game, schedule  # noqa: E402
from cardtable.engine.games import config_from_dict  # noqa: E402
from cardtable.engine.match import Match, match_seed  # noqa: E402
from cardtable.engine.scout import Config as ScoutConfig  # noqa: E402
from cardtable.engine.solo import Config as SoloConfig  # noqa: E402

GAMES = {
    "solo-anniversary": SoloConfig.preset("anniversary", 4),
    "solo-classic": SoloConfig.preset("classic", 4),
    "scout": ScoutConfig(players=4),
}
STEPS = ["strong/normal", "normal/fast", "fast/heuristic"]


def spec(level: str) -> str:
    return level if level == "heuristic" else f"ismcts:{level}"


def play(config_data: dict[str, Any], master: int, game: Game, whole_match: bool) -> dict[str, Any]:
    """One game (one round unless ``whole_match``): winners and CPU seconds / decisions per seat."""
    config = config_from_dict(config_data)
    seed = match_seed(master, game.deal)
    bots = [make_bot(game.spec(seat), seed, seat) for seat in range(len(game.bots))]
    match = Match(config, seed)
    n = config.players
    cpu = [0.0] * n
    decisions = [0] * n
    while not match.is_over() and (whole_match or not match.round_scores):
        waiting = match.to_move()
        assert waiting is not None
        actors = set(match.actors())
        for k in range(1, n + 1):
            seat = (waiting + k) % n
            if seat not in actors:
                continue
            legal = match.legal_actions(seat)
            started = time.thread_time()
            obs = match.observation(seat)
            action = bots[seat].choose(obs, legal) if seat == waiting else bots[seat].react(obs, legal)
            cpu[seat] += time.thread_time() - started
            decisions[seat] += 1
            if action is not None:
                match.apply(seat, action)
                break
        else:
            raise RuntimeError(f"seat {waiting} has no legal action")
    return {"deal": game.deal, "bots": list(game.bots), "winners": config.winners(match.totals), "cpu": cpu,
            "decisions": decisions}


def run_step(config: Any, upper: str, lower: str, deals: int, workers: int, master: int,
             whole_match: bool) -> dict[str, Any]:
    """``upper`` in one seat against three ``lower``: its win rate, interval and CPU per decision."""
    specs = [spec(upper)] + [spec(lower)] * (config.players - 1)
    games = schedule(deals, specs, duplicate=True, rotate=True)
    data = config.to_dict()
    if workers <= 1:
        results = [play(data, master, g, whole_match) for g in games]
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
            results = list(pool.map(play, [data] * len(games), [master] * len(games), games,
                                    [whole_match] * len(games)))
    by_deal: dict[int, list[float]] = {}
    cpu = {specs[0]: 0.0, specs[1]: 0.0}
    decisions = {specs[0]: 0, specs[1]: 0}
    for r in results:
        for seat, bot in enumerate(r["bots"]):
            cpu[bot] += r["cpu"][seat]
            decisions[bot] += r["decisions"][seat]
            if bot == specs[0]:
                won = 1 / len(r["winners"]) if seat in r["winners"] else 0.0
                cell = by_deal.setdefault(r["deal"], [0.0, 0.0])
                cell[0] += won
                cell[1] += 1
    # the deal is the unit: its four rotations are not independent games (ai/stats.py)
    rate, low, high = rate_interval([(w, m) for w, m in by_deal.values()])
    return {"upper": upper, "lower": lower, "games": len(results), "win_rate": rate, "ci": (low, high),
            "ms_upper": 1000 * cpu[specs[0]] / max(decisions[specs[0]], 1),
            "ms_lower": 1000 * cpu[specs[1]] / max(decisions[specs[1]], 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100, help="duplicate deals per step (4 games each)")
    parser.add_argument("--workers", type=int, default=1, help="processes")
    parser.add_argument("--games", default="solo-anniversary,solo-classic,scout",
                        help=f"comma-separated, from {', '.join(GAMES)}")
    parser.add_argument("--steps", default=",".join(STEPS), help="comma-separated upper/lower pairs")
    parser.add_argument("--seed", type=int, default=2026, help="master seed of the deals")
    parser.add_argument("--match", action="store_true", help="play whole matches, not single rounds")
    args = parser.parse_args(argv)
    games = args.games.split(",")
    steps = [tuple(s.split("/")) for s in args.steps.split(",")]
    bad = [g for g in games if g not in GAMES] + [s for s in args.steps.split(",") if s.count("/") != 1]
    if bad:
        print(f"ladder: unknown game or step {bad[0]!r}", file=sys.stderr)
        return 2
    unit = "matches" if args.match else "single rounds"
    print(f"ladder: 4 players, {args.deals} duplicate deals x 4 rotations per line, {unit}; parity 25%")
    print(f"{'game':<18} {'step':<18} {'games':>5} {'win %':>6} {'95% interval':>13} "
          f"{'CPU ms/decision (upper / lower)':>32}")
    for name in games:
        for upper, lower in steps:
            started = time.perf_counter()
            r = run_step(GAMES[name], upper, lower, args.deals, args.workers, args.seed, args.match)
            low, high = r["ci"]
            interval = f"{100 * low:.1f}-{100 * high:.1f}%"
            verdict = "climbs" if low > 0.25 else "does not climb"
            print(f"{name:<18} {upper + ' vs ' + lower:<18} {r['games']:>5} {100 * r['win_rate']:>5.1f}% "
                  f"{interval:>13} {r['ms_upper']:>15.2f} / {r['ms_lower']:<12.2f}"
                  f"{verdict}  ({time.perf_counter() - started:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
