"""Random-play speed of the pure-Python engine: rounds/s and actions/s.

Run: ``python bench/engine.py [--seconds S]``. Each line plays whole rounds with the
waiting seat choosing uniformly among its legal moves (no catches, no late calls), one
process, and prints the rates.

``python bench/engine.py --against DIR [--pairs K]`` sets this engine beside the one in DIR, a
checkout of this repository at another commit (``git worktree add /tmp/before REV``): two
worker processes play the same rounds in turn, K runs each, and each line prints both rates
and the median of the paired ratios of CPU time (this / DIR's: above 1, this one is faster),
which a busy machine moves far less than the rates. ``--case NAME`` keeps one line (repeatable).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardtable.engine.scout import Config as ScoutConfig  # noqa: E402
from cardtable.engine.scout import new_round as scout_round  # noqa: E402
from cardtable.engine.shuffle import Stream  # noqa: E402
from cardtable.engine.solo import Config as SoloConfig  # noqa: E402
from cardtable.engine.solo import new_round as solo_round  # noqa: E402


def play_round(state: Any, rng: Stream) -> int:
    """Play one round at random; return the number of actions."""
    actions = 0
    while not state.is_over():
        seat = state.to_move()
        legal = [a for a in state.legal_actions(seat) if not _meta(str(a))]
        state.apply(seat, legal[rng.below(len(legal))])
        actions += 1
    return actions


def _meta(text: str) -> bool:
    return text.startswith("catch:") or text == "solo"


def measure(name: str, new_round: Any, config: Any, seconds: float) -> dict[str, Any]:
    rng = Stream(b"bench", name)
    rounds = actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions += play_round(new_round(config, f"bench/{rounds}".encode(), 0), rng)
        rounds += 1
    elapsed = time.perf_counter() - start
    return {"name": name, "rounds_per_s": rounds / elapsed, "actions_per_s": actions / elapsed,
            "actions_per_round": actions / rounds}


CASES = {
    "SOLO classic 4p": (solo_round, lambda: SoloConfig.preset("classic", 4)),
    "SOLO classic 10p": (solo_round, lambda: SoloConfig.preset("classic", 10)),
    "SOLO anniversary 4p": (solo_round, lambda: SoloConfig.preset("anniversary", 4)),
    "SOLO anniversary 10p": (solo_round, lambda: SoloConfig.preset("anniversary", 10)),
    "SCOUT 3p": (scout_round, lambda: ScoutConfig(players=3)),
    "SCOUT 5p": (scout_round, lambda: ScoutConfig(players=5)),
}
RUN_ROUNDS = 8  # rounds a paired run plays


def work() -> None:
    """A worker of ``--against``: each line of stdin names a case and its first round; play
    RUN_ROUNDS rounds from there and answer with the actions and the CPU seconds."""
    for line in sys.stdin:
        name, first = line.rsplit(" ", 1)
        new_round, config = CASES[name][0], CASES[name][1]()
        rng = Stream(b"bench", f"{name}/{first}")
        actions, start = 0, time.process_time()
        for r in range(int(first), int(first) + RUN_ROUNDS):
            actions += play_round(new_round(config, f"bench/{r}".encode(), 0), rng)
        print(json.dumps([actions, time.process_time() - start]), flush=True)


def against(other: Path, pairs: int, names: list[str]) -> None:
    """This engine beside ``other``'s (see the module docstring)."""
    if not (other / "engine" / "solo" / "state.py").is_file():
        sys.exit(f"error: {other} is not a checkout of this repository (no engine/solo/state.py)")
    layout = Path(tempfile.mkdtemp(prefix="cardtable-against-"))
    (layout / "cardtable").mkdir()
    (layout / "cardtable" / "engine").symlink_to((other / "engine").resolve())
    me = [sys.executable, str(Path(__file__).resolve()), "--worker"]
    workers = {"this": subprocess.Popen(me, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True),
               "other": subprocess.Popen(me, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                         env={**os.environ, "PYTHONPATH": str(layout)})}

    def run(label: str, request: str) -> tuple[int, float]:
        worker = workers[label]
        assert worker.stdin is not None and worker.stdout is not None
        worker.stdin.write(request + "\n")
        worker.stdin.flush()
        answer = worker.stdout.readline()
        if not answer:
            sys.exit(f"error: the {label} engine's worker stopped ({other}: a checkout of this repository?)")
        actions, seconds = json.loads(answer)
        return actions, seconds

    print(f"{'case':<22} {'this actions/s':>15} {'other actions/s':>16} {'this/other (median [IQR])':>27}")
    for name in names:
        ratios, best = [], {"this": 0.0, "other": 0.0}
        same = True
        for k in range(pairs):
            request = f"{name} {k * RUN_ROUNDS}"
            order = ("this", "other") if k % 2 == 0 else ("other", "this")
            got = {label: run(label, request) for label in order}
            same = same and got["this"][0] == got["other"][0]
            for label, (actions, seconds) in got.items():
                best[label] = max(best[label], actions / seconds)
            ratios.append(got["other"][1] / got["this"][1] * got["this"][0] / got["other"][0])
        low, _, high = statistics.quantiles(ratios, n=4)
        note = "" if same else "  (not the same games: the rules differ)"
        print(f"{name:<22} {best['this']:>15.0f} {best['other']:>16.0f} "
              f"{statistics.median(ratios):>10.3f} [{low:.3f}, {high:.3f}]{note}", flush=True)
    for worker in workers.values():
        worker.terminate()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per line")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="a checkout at another commit: this engine's speed beside its")
    parser.add_argument("--pairs", type=int, default=20, help="paired runs a line (with --against)")
    parser.add_argument("--case", action="append", choices=list(CASES), help="only this line (repeatable)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    names = args.case or list(CASES)
    if args.worker:
        work()
        return
    if args.against is not None:
        against(args.against, args.pairs, names)
        return
    print(f"{'case':<22} {'rounds/s':>10} {'actions/s':>11} {'actions/round':>14}")
    for name in names:
        new_round, config = CASES[name]
        r = measure(name, new_round, config(), args.seconds)
        print(f"{name:<22} {r['rounds_per_s']:>10.1f} {r['actions_per_s']:>11.0f} "
              f"{r['actions_per_round']:>14.1f}")


if __name__ == "__main__":
    main()
