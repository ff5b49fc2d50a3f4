"""Random-play speed of the pure-Python engine: rounds/s and actions/s.

Run: ``python bench/engine.py [--seconds S]``. Each line plays whole rounds with the
waiting seat choosing uniformly among its legal moves (no catches, no late calls), one
process, and prints the rates.
"""

from __future__ import annotations

import argparse
import sys
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per line")
    args = parser.parse_args()
    cases = [
        ("SOLO classic 4p", solo_round, SoloConfig.preset("classic", 4)),
        ("SOLO classic 10p", solo_round, SoloConfig.preset("classic", 10)),
        ("SOLO anniversary 4p", solo_round, SoloConfig.preset("anniversary", 4)),
        ("SOLO anniversary 10p", solo_round, SoloConfig.preset("anniversary", 10)),
        ("SCOUT 3p", scout_round, ScoutConfig(players=3)),
        ("SCOUT 5p", scout_round, ScoutConfig(players=5)),
    ]
    print(f"{'case':<22} {'rounds/s':>10} {'actions/s':>11} {'actions/round':>14}")
    for name, new_round, config in cases:
        r = measure(name, new_round, config, args.seconds)
        print(f"{name:<22} {r['rounds_per_s']:>10.1f} {r['actions_per_s']:>11.0f} "
              f"{r['actions_per_round']:>14.1f}")


if __name__ == "__main__":
    main()
