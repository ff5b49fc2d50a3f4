"""The cost of the bot protocol (docs/bot-protocol.md): milliseconds a decision spent on
talking to a program, against the same decision made in process.

Decisions are recorded from seeded games (SOLO anniversary and SCOUT, 4 players, heuristic
bots); each is then asked of (a) an in-process bot that answers the first legal action and
(b) a program that does the same (``python3`` reading the JSON and answering), so the
difference is the protocol's overhead: JSON encoding, the pipe both ways, decoding.
Then, with ``--games N``, games/s of a batch (SOLO anniversary 4p, ``ismcts:strong`` against
three ``heuristic``) in one process, with ``--workers 2``, and as Ray tasks on a local
cluster of 2 CPUs (the cluster's start-up is timed apart; needs the 'ray' extra).
Run: ``python bench/bots.py [--decisions N] [--games N]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cardtable.ai.bots import make_bot  # noqa: E402
from cardtable.ai.process_bot import ProcessBot  # noqa: E402
from cardtable.engine.match import Match  # noqa: E402
from cardtable.engine.scout import Config as ScoutConfig  # noqa: E402
from cardtable.engine.solo import Config as SoloConfig  # noqa: E402

FIRST_LEGAL = """
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "first", "games": ["solo", "scout"]}), flush=True)
    elif m["type"] in ("choose", "react"):
        action = m["legal"][0] if m["type"] == "choose" else None
        print(json.dumps({"id": m["id"], "action": action}), flush=True)
    elif m["type"] == "quit":
        break
"""


def record(config: Any, count: int) -> list[tuple[dict[str, Any], list[Any]]]:
    """``count`` (observation, legal) pairs of the seats the games waited for."""
    decisions: list[tuple[dict[str, Any], list[Any]]] = []
    deal = 0
    while len(decisions) < count:
        seed = f"bench-bots/{deal}".encode()
        match = Match(config, seed)
        bots = [make_bot("heuristic", seed, s) for s in range(config.players)]
        while not match.is_over() and len(decisions) < count:
            seat = match.to_move()
            assert seat is not None
            obs, legal = match.observation(seat), match.legal_actions(seat)
            decisions.append((obs, legal))
            match.apply(seat, bots[seat].choose(obs, legal))
        deal += 1
    return decisions


def per_decision(bot: Any, decisions: list[tuple[dict[str, Any], list[Any]]]) -> list[float]:
    times = []
    for obs, legal in decisions:
        start = time.perf_counter()
        bot.choose(obs, legal)
        times.append(time.perf_counter() - start)
    return times


class FirstLegal:
    def choose(self, obs: dict[str, Any], legal: list[Any]) -> Any:
        return legal[0]


def throughput(games: int) -> None:
    from cardtable.ai.tournament import Task, play_all, schedule

    config = SoloConfig.preset("anniversary", 4).to_dict()
    plan = schedule(games, ["ismcts:strong"] + ["heuristic"] * 3, False, True)
    tasks = [Task(config, 2027, g) for g in plan]
    print(f"\ngames/s, {games} games of SOLO anniversary 4p, ismcts:strong against 3 heuristic")

    def timed(label: str, workers: int, ray: str | None = None) -> None:
        start = time.perf_counter()
        done = sum(1 for _ in play_all(tasks, workers, ray))
        seconds = time.perf_counter() - start
        print(f"{label:<34} {done / seconds:>7.2f} games/s ({seconds:.1f} s)", flush=True)

    timed("one process", 1)
    timed("--workers 2", 2)
    try:
        from cardtable.ai.runner_ray import connect

        start = time.perf_counter()
        ray = connect("", 2)
        print(f"{'(a local Ray cluster starts in':<34} {time.perf_counter() - start:>7.1f} s)")
        timed("--ray, local cluster of 2 CPUs", 2, "")
        ray.shutdown()
    except ImportError:
        print("--ray: not installed (pip install 'cardtable[ray]')")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=3000, help="decisions per game")
    parser.add_argument("--games", type=int, default=0, help="also measure games/s over this many games")
    args = parser.parse_args()
    print(f"{'game':<22} {'in process':>11} {'program':>9} {'overhead':>9} {'p99':>8}  (ms a decision)")
    for name, config in (("SOLO anniversary 4p", SoloConfig.preset("anniversary", 4)),
                         ("SCOUT 4p", ScoutConfig(players=4))):
        decisions = record(config, args.decisions)
        program = ProcessBot([sys.executable, "-c", FIRST_LEGAL], b"bench", 0, 5.0)
        per_decision(program, decisions[:50])  # warm up
        local = per_decision(FirstLegal(), decisions)
        remote = per_decision(program, decisions)
        program.close()
        overhead = [r - lo for r, lo in zip(remote, local, strict=True)]
        q99 = statistics.quantiles(overhead, n=100)[98]
        print(f"{name:<22} {1e3 * statistics.fmean(local):>11.3f} {1e3 * statistics.fmean(remote):>9.3f} "
              f"{1e3 * statistics.fmean(overhead):>9.3f} {1e3 * q99:>8.3f}")
        legal = statistics.fmean(len(lg) for _, lg in decisions)
        print(f"{'':<22} ({len(decisions)} decisions, {legal:.1f} legal actions on average)")
    if args.games:
        throughput(args.games)


if __name__ == "__main__":
    main()
