"""Train a leaf value network by self-play of the heuristic bots in the C mirror.

    python -m cardtable.ai.value_train --game scout --players 4 --rounds 40000 --seed 1

deals ``rounds`` rounds with the engine's own deal (seeded), lets the heuristic bots play each
to its end in C (``value_data``; in chunks of ``CHUNK`` rounds, each with its own seeded
stream, here or as Ray tasks with ``--ray [ADDRESS]``: the same rows either way), keeps
``per_round`` positions of each from every seat's side
with that seat's reward at the end (the search's, tanh(margin / scale)), and fits a network with
one hidden layer (numpy, full precision, Adam on minibatches drawn from a seeded stream) to
them, holding a tenth of the rounds out to measure it. The file it writes
(``ai/weights/<table>.json`` unless ``--out``) holds the weights and how they were made. Same
arguments, same data; the fit is the same up to the last bits of the machine's floating point.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from cardtable.ai.runner_ray import add_ray_argument
from cardtable.ai.value_net import FORMAT, WEIGHTS, table_name
from cardtable.engine.match import Match
from cardtable.engine.scout import Config as ScoutConfig
from cardtable.engine.solo import Config as SoloConfig


def make_config(game: str, players: int, edition: str) -> Any:
    return ScoutConfig(players=players) if game == "scout" else SoloConfig.preset(edition, players)


CHUNK = 1000
"""Rounds played by one task (one seeded stream); the rows do not depend on where it runs."""


def chunk_rows(config: Any, seed: int, start: int, stop: int, per_round: int) -> tuple[Any, Any]:
    """Features and rewards of the rounds ``start`` to ``stop`` - 1, played with a stream of their own."""
    import numpy as np

    from cardtable.ai._search import SEARCH_DEFAULTS, VALUE_INPUTS, value_data

    game = config.to_dict()["game"]
    snapshots = [Match(config, f"value/{seed}/{k}".encode()).state.snapshot() for k in range(start, stop)]
    features = np.zeros(((stop - start) * per_round * config.players, VALUE_INPUTS[game]), np.float32)
    rewards = np.zeros(len(features), np.float32)
    stream = (seed << 32) + start
    done = value_data(snapshots, stream, per_round, SEARCH_DEFAULTS[game]["scale"], features, rewards)
    return features[:done], rewards[:done]


def dataset(config: Any, rounds: int, seed: int, per_round: int, ray: str | None = None,
            cpus: int | None = None) -> tuple[Any, Any, Any]:
    """Features, rewards and each row's round number for ``rounds`` seeded deals; with ``ray``
    (an address, "" for a local cluster of ``cpus`` CPUs) each chunk is a Ray task."""
    import numpy as np

    calls = [(config, seed, start, min(start + CHUNK, rounds), per_round)
             for start in range(0, rounds, CHUNK)]
    if ray is None:
        parts = [chunk_rows(*call) for call in calls]
    else:
        from cardtable.ai.runner_ray import map_on_ray

        parts = map_on_ray(chunk_rows, calls, ray, cpus)
    features = np.concatenate([f for f, _ in parts]).astype(np.float64)
    rewards = np.concatenate([r for _, r in parts]).astype(np.float64)
    round_of = np.repeat(np.arange(rounds), per_round * config.players)[:len(rewards)]
    return features, rewards, round_of


def fit(x: Any, y: Any, hidden: int, epochs: int, seed: int, batch: int = 2048,
        rate: float = 3e-3) -> dict[str, Any]:
    """A network reward = tanh(w2 . tanh(W1 z + b1) + b2), z = (x - shift) * gain, fitted to
    ``y`` by squared error with Adam."""
    import numpy as np

    rng = np.random.default_rng(seed)
    shift = x.mean(axis=0)
    spread = x.std(axis=0)
    gain = np.where(spread > 1e-9, 1.0 / np.maximum(spread, 1e-9), 0.0)
    z = (x - shift) * gain
    params = {"w1": rng.normal(0, 1 / np.sqrt(x.shape[1]), (hidden, x.shape[1])), "b1": np.zeros(hidden),
              "w2": rng.normal(0, 1 / np.sqrt(hidden), hidden), "b2": np.zeros(())}
    moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in params.items()}
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(y))
        for start in range(0, len(y), batch):
            rows = order[start:start + batch]
            zb, yb = z[rows], y[rows]
            a = np.tanh(zb @ params["w1"].T + params["b1"])
            out = np.tanh(a @ params["w2"] + params["b2"])
            d_out = 2 * (out - yb) * (1 - out**2) / len(rows)
            d_a = np.outer(d_out, params["w2"]) * (1 - a**2)
            grads = {"w1": d_a.T @ zb, "b1": d_a.sum(axis=0), "w2": a.T @ d_out, "b2": d_out.sum()}
            step += 1
            adam_step(params, grads, moments, step, rate)
    return {"shift": shift.tolist(), "gain": gain.tolist(), "w1": params["w1"].tolist(),
            "b1": params["b1"].tolist(), "w2": params["w2"].tolist(), "b2": float(params["b2"])}


def adam_step(params: dict[str, Any], grads: dict[str, Any], moments: dict[str, Any], step: int,
              rate: float) -> None:
    """One Adam update of ``params`` (arrays) in place; ``moments``: each one's (m, v), kept."""
    import numpy as np

    for k, g in grads.items():
        m, v = moments[k]
        m *= 0.9
        m += 0.1 * g
        v *= 0.999
        v += 0.001 * g * g
        params[k] = params[k] - rate * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)


def predict(net: dict[str, Any], x: Any) -> Any:
    import numpy as np

    z = (x - np.array(net["shift"])) * np.array(net["gain"])
    return np.tanh(np.tanh(z @ np.array(net["w1"]).T + np.array(net["b1"])) @ np.array(net["w2"]) + net["b2"])


def train(game: str, players: int, edition: str, rounds: int, seed: int, per_round: int, hidden: int,
          epochs: int, ray: str | None = None) -> dict[str, Any]:
    """The network and how it was made (the file's content); ``ray`` as for dataset."""
    import numpy as np

    started = time.perf_counter()
    config = make_config(game, players, edition)
    x, y, round_of = dataset(config, rounds, seed, per_round, ray)
    held = round_of >= rounds - rounds // 10
    net = fit(x[~held], y[~held], hidden, epochs, seed)
    error = float(np.mean((predict(net, x[held]) - y[held]) ** 2))
    baseline = float(np.mean((y[held] - y[~held].mean()) ** 2))
    command = (f"python -m cardtable.ai.value_train --game {game} --players {players}"
               + (f" --edition {edition}" if game == "solo" else "")
               + f" --rounds {rounds} --seed {seed} --per-round {per_round}"
               + f" --hidden {hidden} --epochs {epochs}")
    return {"format": FORMAT, "game": game, "table": table_name(config.to_dict()), **net,
            "made": {"command": command, "rows": int(len(y)), "held_out_rounds": rounds // 10,
                     "held_out_mse": round(error, 5), "mean_predictor_mse": round(baseline, 5),
                     "r2": round(1 - error / baseline, 4),
                     "seconds": round(time.perf_counter() - started, 1)}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=["solo", "scout"], required=True)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--edition", choices=["anniversary", "classic"], default="anniversary")
    parser.add_argument("--rounds", type=int, default=40_000, help="deals to play (a tenth held out)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-round", type=int, default=8, help="positions kept of each round")
    parser.add_argument("--hidden", type=int, default=32, help="hidden units (at most 64)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--out", type=Path, help="the file to write (default ai/weights/<table>.json)")
    add_ray_argument(parser, "the rounds")
    args = parser.parse_args(argv)
    if args.rounds < 10 or not 1 <= args.hidden <= 64 or args.per_round < 1 or args.epochs < 1:
        print("value_train: --rounds must be at least 10, --hidden 1-64, --per-round and --epochs at least 1",
              file=sys.stderr)
        return 2
    try:
        result = train(args.game, args.players, args.edition, args.rounds, args.seed, args.per_round,
                       args.hidden, args.epochs, args.ray)
    except ValueError as err:
        print(f"value_train: {err}", file=sys.stderr)
        return 2
    out = args.out or WEIGHTS / f"{result['table']}.json"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, separators=(",", ":")) + "\n")
    except OSError as err:
        print(f"value_train: cannot write {out}: {err.strerror}", file=sys.stderr)
        return 2
    made = result["made"]
    print(f"{out}: {made['rows']:,} rows, held-out error {made['held_out_mse']} against "
          f"{made['mean_predictor_mse']} for the mean (R2 {made['r2']}), {made['seconds']} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
