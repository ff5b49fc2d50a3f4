"""Expert iteration: a learned policy from the search's own self-play.

    python -m cardtable.ai.expert --game scout --seed 1
    python -m cardtable.ai.expert --game solo --seed 1 --ray            # self-play on a local Ray cluster
    python -m cardtable.ai.expert --game scout --seed 1 --ray HOST:6379 # ... on a running one
    python -m cardtable.ai.expert --game scout --seed 1 --init ai/weights/policy-scout.json # more

Each generation deals ``rounds`` rounds (the engine's deal, seeded; the table sizes of ``--players``
in turn and, SOLO, both editions in turn) and lets the search play every seat (``--iterations`` a
move, PUCT at the root so that its visits are a distribution; from the second generation on its
prior is the network of the generation before, ``prior=net``, for every seat; ``--search`` adds
settings, e.g. ``reward_mode=1``). Every searched decision gives a training example: each candidate
move's inputs (ai/_policy.pxi: the position from the mover's side and the move, the heuristic's
value of it among them) and the share of the root's visits it got. A network with one hidden layer
is then fitted (numpy, Adam, softmax cross-entropy over each decision's moves, minibatches drawn
from a seeded stream) to the examples of the last ``--window`` generations, starting from the
generation before's weights. The rounds are played in chunks of ``CHUNK``, each with its own seeds,
here or as Ray tasks with ``--ray [ADDRESS]``: the same examples either way. The file written
(``ai/weights/policy-<game>.json`` unless ``--out``) holds the weights and how they were made (with
``--init FILE``, which continues from FILE's weights and numbers its generations on, the chain of
commands that makes it from scratch); the ``learned`` level plays it and ``prior=net`` searches with
it (docs/ai.md, "Expert iteration").
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from cardtable.ai.ismcts import IsmctsBot, parse_level
from cardtable.ai.policy_net import FORMAT, make_policy, policy_path
from cardtable.ai.runner_ray import add_ray_argument
from cardtable.ai.value_train import adam_step
from cardtable.engine.errors import ParseError

CHUNK = 8
"""Rounds played by one task; the examples do not depend on where it runs."""

Examples = tuple[Any, Any, Any]
"""(rows: float32 [moves, inputs], sizes: each decision's number of moves, targets: visit shares)."""


class SelfPlayBot(IsmctsBot):
    """A search bot that keeps, for each decision it searched, its root moves' inputs and visit shares."""

    def __init__(self, seed: bytes, seat: int, level: str, policy: Any) -> None:
        super().__init__(seed, seat, level)
        self.policy = policy
        self.rows: list[Any] = []
        self.sizes: list[int] = []
        self.targets: list[float] = []

    def _run(self, obs: dict[str, Any], wait: bool, started: float | None = None) -> str | None:
        from cardtable.ai._search import policy_inputs

        text = super()._run(obs, wait, started)
        visits = {move: count for move, count, _ in self.last_stats.get("children", [])}
        total = sum(visits.values())
        rows, texts = policy_inputs(obs["game"], obs, obs["config"], self.seat, wait, 0)
        if total > 0 and len(texts) > 1:
            self.rows.append(rows)
            self.sizes.append(len(texts))
            self.targets.extend(visits.get(t, 0) / total for t in texts)
        return text


def table(game: str, index: int, players: list[int]) -> Any:
    """The config of self-play round ``index``: the table sizes in turn and, SOLO, the editions."""
    from cardtable.engine.scout import Config as ScoutConfig
    from cardtable.engine.solo import Config as SoloConfig

    n = players[index % len(players)]
    if game == "scout":
        return ScoutConfig(players=n)
    edition = ("anniversary", "classic")[(index // len(players)) % 2]
    return SoloConfig.preset(edition, n)


def level_of(game: str, iterations: int, guided: bool, search: str = "") -> str:
    """The self-play search: PUCT at the root, the other seats searched too; SCOUT's moves keyed by
    cards; ``search``'s settings (e.g. ``reward_mode=1``) after them."""
    level = f"{iterations}" + ("+keys=cards" if game == "scout" else "")
    return level + ("+prior=net+policy_all=1" if guided else "") + (f"+{search}" if search else "")


def play_chunk(game: str, players: list[int], seed: int, generation: int, start: int, stop: int,
               iterations: int, weights: dict[str, Any] | None, search: str = "") -> Examples:
    """Self-play rounds ``start`` to ``stop`` - 1 of ``generation`` (the previous generation's
    ``weights`` as the prior; None: the heuristic's): their examples."""
    import numpy as np

    from cardtable.ai.driver import play_match
    from cardtable.engine.match import Match

    policy = make_policy(weights) if weights else None
    level = level_of(game, iterations, policy is not None, search)
    rows: list[Any] = []
    sizes: list[int] = []
    targets: list[float] = []
    for k in range(start, stop):
        config = table(game, k, players)
        tag = f"expert/{seed}/{generation}/{k}"
        bots = [SelfPlayBot(f"{tag}/{s}".encode(), s, level, policy) for s in range(config.players)]
        play_match(Match(config, tag.encode()), bots, rounds=1)
        for bot in bots:
            rows.extend(bot.rows)
            sizes.extend(bot.sizes)
            targets.extend(bot.targets)
    if not rows:
        return np.zeros((0, 40), np.float32), np.zeros(0, np.int64), np.zeros(0, np.float64)
    return np.concatenate(rows), np.array(sizes, np.int64), np.array(targets, np.float64)


def self_play(game: str, players: list[int], seed: int, generation: int, rounds: int, iterations: int,
              weights: dict[str, Any] | None, ray: str | None = None, search: str = "") -> Examples:
    """A generation's examples, its rounds in chunks (Ray tasks with ``ray``: an address, "" local)."""
    import numpy as np

    calls = [(game, players, seed, generation, start, min(start + CHUNK, rounds), iterations, weights, search)
             for start in range(0, rounds, CHUNK)]
    if ray is None:
        parts = [play_chunk(*call) for call in calls]
    else:
        from cardtable.ai.runner_ray import map_on_ray

        parts = map_on_ray(play_chunk, calls, ray)
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]))


def forward(net: dict[str, Any], z: Any) -> tuple[Any, Any]:
    """Hidden activations and logits of normalised rows ``z``."""
    import numpy as np

    a = np.tanh(z @ net["w1"].T + net["b1"])
    return a, a @ net["w2"] + net["b2"]


def group_softmax(logits: Any, starts: Any) -> Any:
    """Softmax of ``logits`` within each group of consecutive rows beginning at ``starts``."""
    import numpy as np

    top = np.maximum.reduceat(logits, starts)
    sizes = np.diff(np.append(starts, len(logits)))
    e = np.exp(logits - np.repeat(top, sizes))
    return e / np.repeat(np.add.reduceat(e, starts), sizes)


def fit(examples: Examples, hidden: int, epochs: int, seed: int, start: dict[str, Any] | None = None,
        batch: int = 256, rate: float = 3e-3) -> tuple[dict[str, Any], float]:
    """A policy fitted to ``examples`` by softmax cross-entropy with Adam (from ``start``'s
    weights if given: its normalisation is kept), and its mean cross-entropy on them."""
    import numpy as np

    rows, sizes, targets = examples
    rng = np.random.default_rng(seed)
    if start is None:
        shift = rows.mean(axis=0)
        spread = rows.std(axis=0)
        gain = np.where(spread > 1e-6, 1.0 / np.maximum(spread, 1e-6), 0.0)
        width = rows.shape[1]
        net = {"w1": rng.normal(0, 1 / np.sqrt(width), (hidden, width)), "b1": np.zeros(hidden),
               "w2": rng.normal(0, 1 / np.sqrt(hidden), hidden), "b2": np.zeros(())}
    else:
        shift, gain = np.array(start["shift"]), np.array(start["gain"])
        net = {k: np.array(start[k], np.float64) for k in ("w1", "b1", "w2", "b2")}
    z = (rows.astype(np.float64) - shift) * gain
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in net.items()}
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(sizes))
        for b in range(0, len(order), batch):
            picked = order[b:b + batch]
            index = np.concatenate([np.arange(starts[g], starts[g] + sizes[g]) for g in picked])
            local = np.concatenate([[0], np.cumsum(sizes[picked])[:-1]])
            zb, tb = z[index], targets[index]
            a, logits = forward(net, zb)
            d_logit = (group_softmax(logits, local) - tb) / len(picked)
            d_a = np.outer(d_logit, net["w2"]) * (1 - a**2)
            grads = {"w1": d_a.T @ zb, "b1": d_a.sum(axis=0), "w2": a.T @ d_logit, "b2": d_logit.sum()}
            step += 1
            adam_step(net, grads, moments, step, rate)
    _, logits = forward(net, z)
    p = group_softmax(logits, starts)
    loss = float(-np.sum(targets * np.log(np.maximum(p, 1e-12))) / len(sizes))
    return {"shift": np.asarray(shift).tolist(), "gain": np.asarray(gain).tolist(),
            "w1": net["w1"].tolist(), "b1": net["b1"].tolist(), "w2": net["w2"].tolist(),
            "b2": float(net["b2"])}, loss


def agreement(net: dict[str, Any], examples: Examples) -> float:
    """The share of decisions where the network's best move is the search's most visited."""
    import numpy as np

    rows, sizes, targets = examples
    if not len(sizes):
        return 0.0
    z = (rows.astype(np.float64) - np.array(net["shift"])) * np.array(net["gain"])
    _, logits = forward({k: np.array(net[k]) for k in ("w1", "b1", "w2", "b2")}, z)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    hits = [int(np.argmax(logits[s:s + n]) == np.argmax(targets[s:s + n]))
            for s, n in zip(starts, sizes, strict=True)]
    return float(np.mean(hits))


def command_line(args: argparse.Namespace, generations: int) -> str:
    """The command that makes the file after ``generations`` generations: with ``--init``, the
    chain of commands, the one that made the starting file first."""
    own = (f"python -m cardtable.ai.expert --game {args.game} --players {args.players}"
           f" --generations {generations} --rounds {args.rounds} --iterations {args.iterations}"
           f" --hidden {args.hidden} --epochs {args.epochs} --window {args.window} --seed {args.seed}"
           + (f" --search {args.search}" if args.search else ""))
    if args.init is None:
        return own
    return f"{args.start['made']['command']} && {own} --init {args.init}"


def read_start(path: Path, game: str, hidden: int) -> dict[str, Any]:
    """The policy file ``--init`` continues from; ValueError saying what is wrong otherwise."""
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise ValueError(f"cannot read --init {path}: {err}") from None
    try:
        make_policy(data)
        made = data["made"]
        width = len(data["w1"])
        if not isinstance(made["command"], str) or not isinstance(made["generations"], list):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"--init {path} is not a policy file written by this command") from None
    if data["game"] != game or width != hidden:
        raise ValueError(f"--init {path} is a {data['game']} policy of {width} hidden units, "
                         f"not {game} with --hidden {hidden}")
    return data


def train(args: argparse.Namespace, echo: Any = print) -> dict[str, Any]:
    """Every generation in turn; the last network and how it was made (the file's content)."""
    import numpy as np

    players = [int(p) for p in args.players.split(",")]
    start = getattr(args, "start", None)
    weights: dict[str, Any] | None = None
    history: list[dict[str, Any]] = []
    before = 0.0
    if start is not None:
        weights = {k: v for k, v in start.items() if k != "made"}
        history = list(start["made"]["generations"])
        before = float(start["made"].get("seconds", 0.0))
    kept: list[Examples] = []
    first = len(history)
    started = time.perf_counter()
    for generation in range(first, first + args.generations):
        t0 = time.perf_counter()
        examples = self_play(args.game, players, args.seed, generation, args.rounds, args.iterations, weights,
                             args.ray, args.search)
        fresh = agreement(weights, examples) if weights else None
        kept = [*kept[1 - args.window:], examples] if args.window > 1 else [examples]
        data = (np.concatenate([e[0] for e in kept]), np.concatenate([e[1] for e in kept]),
                np.concatenate([e[2] for e in kept]))
        net, loss = fit(data, args.hidden, args.epochs, args.seed + generation, weights)
        weights = {"format": FORMAT, "kind": "policy", "game": args.game, **net}
        row: dict[str, Any] = {"generation": generation, "iterations": args.iterations,
                               "decisions": int(len(examples[1])),
                               "loss": round(loss, 4),
                               "agreement": round(agreement(net, examples), 3),
                               "prior_agreement": None if fresh is None else round(fresh, 3),
                               "seconds": round(time.perf_counter() - t0, 1)}
        history.append(row)
        echo(f"expert: generation {generation}: {row['decisions']} decisions, loss {row['loss']}, the net's "
             f"best = the search's {100 * row['agreement']:.1f}%"
             + (f" (the previous net on these: {100 * fresh:.1f}%)" if fresh is not None else "")
             + f", {row['seconds']} s")
        made = {"command": command_line(args, generation + 1 - first), "generations": history,
                "seconds": round(before + time.perf_counter() - started, 1)}
        if args.out:
            write(args.out, {**weights, "made": made})
    assert weights is not None
    return {**weights, "made": made}


def write(path: Path, content: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content, separators=(",", ":")) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--game", choices=["solo", "scout"], required=True)
    parser.add_argument("--players", default="2,4", help="table sizes, in turn (e.g. 2,4)")
    parser.add_argument("--generations", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=160, help="self-play rounds a generation")
    parser.add_argument("--iterations", type=int, default=200, help="search iterations a move")
    parser.add_argument("--hidden", type=int, default=32, help="hidden units (at most 64)")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--window", type=int, default=2, help="generations of examples fitted")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="the file to write (default ai/weights/policy-<game>.json)")
    parser.add_argument("--search", default="", help="more settings of the self-play search, '+'-separated "
                        "(e.g. reward_mode=1: a seat's reward is its margin over the best other)")
    parser.add_argument("--init", type=Path, help="a policy file to continue from: its weights, its "
                        "generations' numbering and rows; the command that made it heads the new file's")
    add_ray_argument(parser, "the self-play rounds")
    args = parser.parse_args(argv)
    try:
        players = [int(p) for p in args.players.split(",")]
    except ValueError:
        players = []
    low = 2 if args.game == "scout" else 2
    high = 5 if args.game == "scout" else 10
    if not players or not all(low <= p <= high for p in players):
        print(f"expert: --players is a list of table sizes {low}-{high} (e.g. 2,4)", file=sys.stderr)
        return 2
    if min(args.generations, args.rounds, args.iterations, args.epochs, args.window) < 1 \
            or not 1 <= args.hidden <= 64:
        print("expert: --generations, --rounds, --iterations, --epochs and --window must be at least 1, "
              "--hidden 1-64", file=sys.stderr)
        return 2
    args.out = args.out or policy_path(args.game)
    try:
        if args.search:
            parse_level(level_of(args.game, args.iterations, True, args.search))
        args.start = read_start(args.init, args.game, args.hidden) if args.init is not None else None
        if args.ray is not None:
            from cardtable.ai.runner_ray import check_ray

            check_ray(args.ray)
        train(args, echo=lambda line: print(line, file=sys.stderr, flush=True))
    except (ParseError, ValueError, OSError) as err:
        print(f"expert: {err}", file=sys.stderr)
        return 2
    print(f"expert: wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
