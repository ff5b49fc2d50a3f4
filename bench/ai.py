"""The AI's figures, each comparison measured side by side in this one process.

Run: ``python bench/ai.py [--seconds S] [--deals D] [--workers W] [--skip-strength]``
(``--only threads|evaluation|deadlines|prior``: that section alone).

1. Random playouts/s: the C mirror against the pure-Python engine (4-player SOLO
   anniversary and classic, 4-player SCOUT), interleaved in short slices so that a change of
   load hits both alike; CPU time (``time.thread_time``) beside wall time, and their ratio.
2. ISMCTS iterations per CPU-second from 4-player positions early, in the middle and late in
   a round (the round played by the heuristic bots): the bot's search (PUCT, heuristic
   rollouts), and plain ISMCTS (UCB1, random rollouts) to compare like with like; with
   ``open_spiel`` installed (``pip install cardtable[bench]``), OpenSpiel's ``ISMCTSBot`` on
   4-player hearts with random rollouts at the same three phases, searches of both
   interleaved; and each game's iterations per CPU-second at 20,000 iterations
   against 500, for both searches (how much a bigger tree slows an iteration: one search of
   20,000 alternating with 40 of 500, each seeded anew), with the mean depth of each.
3. Inference (4 players, the same three phases, each seat reading the others' moves with
   ``ai/scout_clues.py`` or ``ai/solo_clues.py``; SOLO: among the decisions with clues): the
   CPU cost of weighing the particles per decision (a search of one iteration with the clues
   against one without), and iterations per CPU-second of the bot's 500-iteration search with
   the clues and without, interleaved.
4. Time budgets: the wall time of 25 decisions of ``ismcts:0.2s`` (SCOUT without and with
   inference, SOLO anniversary) against three heuristic bots, mean and largest.
   Bytes per tree node and the peak memory of a 1-second search. The learned prior's cost
   (``--only prior``): iterations per CPU-second of the bot's ``strong`` search and of
   ``strong+prior=net`` with and without ``policy_depth`` (SCOUT 4p, the three phases,
   interleaved; docs/ai.md, "Expert iteration").
   Time budgets kept (``--only deadlines [--decisions N] [--busy K] [--deadline-threads 1,2]``):
   the wall time of whole decisions (``bot.choose``) of ``ismcts:0.25s`` and ``ismcts:1s`` at
   each thread count, interleaved decision by decision, over the budget: mean, median, 99th
   percentile (the worst below 100 decisions) and worst, with K busy-looping processes beside
   (a loaded machine).
5. With ``--agreement``: on the committed SCOUT positions (``bench/agreement_positions.json``:
   100 positions of 4-player rounds played by the heuristic bots, as the moves that led to
   them), the share of the search's answers (two seeds each) equal to the answer of a search
   of 2,000 iterations (``--reference``) given the true hands, per budget, without inference
   and with it. With ``--ceiling W``: the most an honest player can agree with that answer,
   estimated from the answers of the same search in W worlds drawn from what the seat knows.
   With ``--fit-opponents LEVEL``: in 40 SCOUT rounds of four LEVEL bots, how often they play
   the heuristic's best move and how likely their moves are under softmax(value / T).
   With ``--peeking LEVEL,LOWER,DEALS``: LEVEL honest and LEVEL given every hand, in turn in one
   seat against three LOWER (single SCOUT rounds, each deal with the seat in all four places).
6. Strength: ``ismcts:strong`` against three ``heuristic``, and ``heuristic`` against three
   ``random``, 4 players, duplicate deals (each deal played 4 times, the bots rotated).
   The level ladder (each level against the one below) is ``bench/ladder.py``.
"""

from __future__ import annotations

import argparse
import math
import resource
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.engine import play_round  # noqa: E402
from cardtable.ai import _search  # noqa: E402
from cardtable.ai.bots import make_bot  # noqa: E402
from cardtable.ai.driver import asking_order  # noqa: E402
from cardtable.ai.ismcts import parse_level  # noqa: E402
from cardtable.ai.stats import mean_interval  # noqa: E402
from cardtable.ai.tournament import run, schedule, summarize  # noqa: E402
from cardtable.engine.match import Match  # noqa: E402
from cardtable.engine.scout import Config as ScoutConfig  # noqa: E402
from cardtable.engine.scout import new_round as scout_round  # noqa: E402
from cardtable.engine.shuffle import Stream  # noqa: E402
from cardtable.engine.solo import Config as SoloConfig  # noqa: E402
from cardtable.engine.solo import new_round as solo_round  # noqa: E402

CASES: list[tuple[str, Any, Any, Any]] = [
    ("SOLO anniversary 4p", solo_round, SoloConfig.preset("anniversary", 4), _search.SoloMirror),
    ("SOLO classic 4p", solo_round, SoloConfig.preset("classic", 4), _search.SoloMirror),
    ("SCOUT 4p", scout_round, ScoutConfig(players=4), _search.ScoutMirror),
]
PHASES = (("early", 0.1), ("middle", 0.5), ("late", 0.85))
THREAD_COUNTS = (1, 2, 4)
# the bot's search (PUCT, heuristic rollouts) and plain ISMCTS to compare like with like
MODES = (("heuristic rollouts", {}), ("UCB1, random rollouts", {"rollout": "random", "cpuct": 0.0}))


class Meter:
    """Counts of work and the CPU and wall seconds they took, summed over slices."""

    def __init__(self) -> None:
        self.count = 0.0
        self.cpu = 0.0
        self.wall = 0.0

    def slice(self, fn: Callable[[], float], seconds: float) -> None:
        """Call ``fn`` (it returns the work it did) for about ``seconds`` of CPU time."""
        cpu0, wall0 = time.thread_time(), time.perf_counter()
        while time.thread_time() - cpu0 < seconds:
            self.count += fn()
        self.cpu += time.thread_time() - cpu0
        self.wall += time.perf_counter() - wall0

    def per_cpu(self) -> float:
        return self.count / self.cpu if self.cpu else 0.0

    def per_wall(self) -> float:
        return self.count / self.wall if self.wall else 0.0


def interleave(meters: list[tuple[Meter, Callable[[], float]]], seconds: float, slices: int = 10) -> None:
    """Run each (meter, fn) for ``seconds`` of CPU in all, in ``slices`` alternating slices."""
    for _ in range(slices):
        for meter, fn in meters:
            meter.slice(fn, seconds / slices)


def playouts(seconds: float) -> None:
    print("random playouts (whole rounds) per second, engine and mirror interleaved in slices")
    print(f"{'case':<22} {'engine cpu':>11} {'(wall)':>8} {'mirror cpu':>12} {'(wall)':>10} {'ratio':>7}")
    for name, new_round, config, mirror in CASES:
        rng = Stream(b"bench", name)
        starts = [new_round(config, f"bench/{i}".encode(), 0) for i in range(64)]
        mirrors = [mirror.from_snapshot(s.snapshot()) for s in starts]
        done = [0, 0]

        def engine_round(starts: list[Any] = starts, rng: Stream = rng, done: list[int] = done) -> float:
            done[0] += 1
            play_round(type(starts[0]).from_snapshot(starts[done[0] % 64].snapshot()), rng)
            return 1.0

        def mirror_round(mirrors: list[Any] = mirrors, done: list[int] = done) -> float:
            done[1] += 1
            mirrors[done[1] % 64].copy().random_playout(done[1])
            return 1.0

        engine, fast = Meter(), Meter()
        interleave([(engine, engine_round), (fast, mirror_round)], seconds)
        print(f"{name:<22} {engine.per_cpu():>11.1f} {engine.per_wall():>8.1f} {fast.per_cpu():>12.1f} "
              f"{fast.per_wall():>10.1f} {fast.per_cpu() / engine.per_cpu():>6.0f}x")


def round_positions(config: Any, seed: bytes, snapshots: bool = False) -> list[tuple[Any, ...]]:
    """Observations early, in the middle and late in the first round of a deal played by the
    heuristic bots: the decisions with more than one legal move (SCOUT: in the play phase)
    at 10%, 50% and 85% of the round; with ``snapshots``, each with the engine position too."""
    match = Match(config, seed)
    n = config.players
    bots = [make_bot("heuristic", seed, s) for s in range(n)]
    seen: list[tuple[Any, ...]] = []
    while not match.round_scores:
        waiting = match.to_move()
        assert waiting is not None
        obs = match.observation(waiting)
        if len(match.legal_actions(waiting)) > 1 and obs.get("phase", "play") == "play":
            seen.append((obs, waiting, match.state.snapshot()) if snapshots else (obs, waiting))
        actors = set(match.actors())
        for k in range(1, n + 1):
            seat = (waiting + k) % n
            if seat in actors:
                legal = match.legal_actions(seat)
                o = match.observation(seat)
                action = bots[seat].choose(o, legal) if seat == waiting else bots[seat].react(o, legal)
                if action is not None:
                    match.apply(seat, action)
                    break
    return [(phase, *seen[int(f * (len(seen) - 1))]) for phase, f in PHASES]


def search_fn(obs: dict[str, Any], seat: int, iterations: int, **options: Any) -> Callable[[], float]:
    seeds = iter(range(1, 1 << 30))

    def one() -> float:
        _search.search(obs["game"], obs, obs["config"], seat, iterations=iterations, seed=next(seeds),
                       **options)
        return float(iterations)
    return one


def clue_positions(config: Any, seed: bytes) -> list[tuple[str, dict[str, Any], int, list[dict[str, Any]]]]:
    """round_positions for a 4-player game, each with the clues its seat read (every seat
    reads the others' moves from its own observations, as the bot does); SOLO: only the
    decisions with some clue."""
    from cardtable.ai.scout_clues import ScoutClueReader
    from cardtable.ai.solo_clues import SoloClueReader

    match = Match(config, seed)
    bots = [make_bot("heuristic", seed, s) for s in range(4)]
    reader = ScoutClueReader if config.game == "scout" else SoloClueReader
    readers: list[Any] = [reader(s) for s in range(4)]
    seen: list[tuple[dict[str, Any], int, list[dict[str, Any]]]] = []
    while not match.round_scores:
        waiting = match.to_move()
        for seat in asking_order(match):
            obs = match.observation(seat)
            clues = [dict(c) for c in readers[seat].see(obs)]
            legal = match.legal_actions(seat)
            if seat == waiting and len(legal) > 1 and obs.get("phase", "play") == "play" and (
                    clues or config.game == "scout"):
                seen.append((obs, seat, clues))
            action = bots[seat].choose(obs, legal) if seat == waiting else bots[seat].react(obs, legal)
            if action is not None:
                if config.game == "scout":
                    readers[seat].note(str(action))
                match.apply(seat, action)
                break
    return [(phase, *seen[int(f * (len(seen) - 1))]) for phase, f in PHASES]


def inference(seconds: float) -> None:
    print("\ninference, 4 players: CPU ms per decision to weigh 256 particles (a 1-iteration search with the")
    print("clues against one without, interleaved), and iterations per CPU-second of 500-iteration searches")
    print("with the clues and without (interleaved); in brackets the clues read by then")
    for name, _, config, _ in CASES:
        print(name)
        inference_rows(config, seconds)


def inference_rows(config: Any, seconds: float) -> None:
    for phase, obs, seat, clues in clue_positions(config, b"bench/positions"):
        cost = [Meter(), Meter()]
        interleave([(cost[0], search_fn(obs, seat, 1, clues=clues)), (cost[1], search_fn(obs, seat, 1))],
                   seconds / 2)
        ms = 1000 * (cost[0].cpu / cost[0].count - cost[1].cpu / cost[1].count)
        rate = [Meter(), Meter()]
        interleave([(rate[0], search_fn(obs, seat, 500, clues=clues)), (rate[1], search_fn(obs, seat, 500))],
                   seconds)
        print(f"{phase:<7} ({len(clues)} clues): weighing {ms:.2f} ms; iterations/CPU-s with inference "
              f"{rate[0].per_cpu():,.0f}, without {rate[1].per_cpu():,.0f} "
              f"({rate[0].per_cpu() / rate[1].per_cpu():.2f}x)")


def agreement_positions() -> list[tuple[dict[str, Any], dict[str, Any], int, list[dict[str, Any]]]]:
    """The committed positions, replayed: (observation, the same with every hand known, seat,
    the clues the seat read on the way, fed as the bot is fed)."""
    import json

    from cardtable.ai.scout_clues import ScoutClueReader

    data = json.loads((Path(__file__).parent / "agreement_positions.json").read_text())
    out = []
    for p in data["positions"]:
        match = Match(ScoutConfig(players=data["players"]), p["seed"].encode())
        seat = p["seat"]
        reader = ScoutClueReader(seat)
        for mover, text in p["moves"]:
            if mover == seat:
                reader.see(match.observation(seat))
                reader.note(text)
            match.apply(mover, text)
        obs = match.observation(seat)
        clues = list(reader.see(obs))
        truth = {**obs, "known": [[str(c) for c in hand] for hand in match.state.hands]}
        out.append((obs, truth, seat, clues))
    return out


def true_answer(truth: dict[str, Any], seat: int, budget: int, settings: dict[str, Any]) -> str:
    """The reference: the answer of a search of ``budget`` iterations that sees every hand."""
    text, _ = _search.search("scout", truth, truth["config"], seat, iterations=budget, seed=99, **settings)
    return str(text)


def agreement(budgets: list[int], settings: dict[str, Any], reference_budget: int) -> None:
    print(f"\nagreement with a {reference_budget:,}-iteration search given the true hands, "
          "100 committed SCOUT positions,")
    print("two seeds each (share of answers equal to its answer); the true-hands search itself, other seeds")
    print(f"every search with {settings or 'the default settings'}")
    positions = agreement_positions()
    reference = [true_answer(t, seat, reference_budget, settings) for _, t, seat, _ in positions]
    print(f"{'iterations':>10} {'uniform':>8} {'inference':>10} {'true hands':>11}")
    for budget in budgets:
        shares = [0, 0, 0]
        for (obs, truth, seat, clues), answer in zip(positions, reference, strict=True):
            for seed in (1, 2):
                for k, (o, extra) in enumerate(((obs, {}), (obs, {"clues": clues}), (truth, {}))):
                    text, _ = _search.search("scout", o, o["config"], seat, iterations=budget, seed=seed,
                                             **extra, **settings)
                    shares[k] += text == answer
        total = 2 * len(positions)
        print(f"{budget:>10,} {100 * shares[0] / total:>7.1f}% {100 * shares[1] / total:>9.1f}% "
              f"{100 * shares[2] / total:>10.1f}%", flush=True)


def agreement_ceiling(worlds: int, settings: dict[str, Any], reference_budget: int) -> None:
    """How often an honest player can agree with the true-hands answer at all: in each position,
    the true-hands search (as the reference) in ``worlds`` hidden-card worlds drawn from what the
    seat knows; the move it answers most often there is the best guess from the observation."""
    print(f"\nagreement ceiling: the reference search ({reference_budget:,} iterations given the hands) in "
          f"{worlds} worlds a position, sampled uniformly from")
    print("the seat's information and weighed by its clues (T = 1); the best guess is the move the")
    print("reference answers most often there, its agreement that with the true position's answer;")
    print("'ceiling' is the mean over positions of the best guess's share of the worlds (half the")
    print("worlds choose the guess, the other half count it, and the other way round)")
    print(f"every search with {settings or 'the default settings'}")
    rows = {"uniform": [0.0, 0.0], "inference": [0.0, 0.0]}
    positions = agreement_positions()
    for obs, truth, seat, clues in positions:
        answer = true_answer(truth, seat, reference_budget, settings)
        info = _search.ScoutInfoSet(obs, obs["config"])
        clue_set = _search.ScoutClueSet(clues) if clues else None
        answers, weights = [], []
        for k in range(worlds):
            world = info.sample(1000 + k)
            hands = world.snapshot()["hands"]
            known = [hand if s != seat else [None] * len(hand) for s, hand in enumerate(hands)]
            answers.append(true_answer({**obs, "known": known}, seat, reference_budget, settings))
            weights.append(math.exp(clue_set.logweight(world)) if clue_set else 1.0)
        for name, w in (("uniform", [1.0] * worlds), ("inference", weights)):
            votes: Counter[str] = Counter()
            for text, weight in zip(answers, w, strict=True):
                votes[text] += weight
            rows[name][0] += votes.most_common(1)[0][0] == answer
            rows[name][1] += _held_out_share(answers, w)
    print(f"{'belief':>10} {'best guess agrees':>18} {'ceiling':>8}")
    for name, (agree, share) in rows.items():
        print(f"{name:>10} {100 * agree / len(positions):>17.1f}% {100 * share / len(positions):>7.1f}%")


def _held_out_share(answers: list[str], weights: list[float]) -> float:
    """The weighted share of one half's answers equal to the other half's favourite, both ways."""
    halves = [list(zip(answers[h::2], weights[h::2], strict=True)) for h in (0, 1)]
    shares = []
    for pick, count in (halves, halves[::-1]):
        votes: Counter[str] = Counter()
        for text, weight in pick:
            votes[text] += weight
        guess = votes.most_common(1)[0][0]
        total = sum(weight for _, weight in count)
        shares.append(sum(weight for text, weight in count if text == guess) / total if total else 0.0)
    return sum(shares) / 2


def opponent_fit(level: str, rounds: int) -> None:
    """How well softmax(heuristic value / T) predicts the moves of ``level`` bots: 4-player SCOUT
    rounds of four of them, each decision with more than one candidate."""
    temps = [0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 2.0]
    loglik = dict.fromkeys(temps, 0.0)
    best = decisions = 0
    for r in range(rounds):
        seed = f"bench/fit/{r}".encode()
        match = Match(ScoutConfig(players=4), seed)
        bots = [make_bot(level, seed, s) for s in range(4)]
        while not match.is_over() and match.round_no == 0:
            seat = match.to_move()
            action = str(bots[seat].choose(match.observation(seat), match.legal_actions(seat)))
            values = _search.ScoutMirror.from_snapshot(match.state.snapshot()).values(seat)
            if len(values) > 1 and action in values:
                top = max(values.values())
                decisions += 1
                best += values[action] >= top - 1e-9
                for t in temps:
                    norm = sum(math.exp((v - top) / t) for v in values.values())
                    loglik[t] += (values[action] - top) / t - math.log(norm)
            match.apply(seat, action)
    print(f"\n{level}: {decisions} decisions of {rounds} SCOUT rounds, 4 players; the heuristic's best "
          f"{100 * best / decisions:.1f}%")
    print("mean log-likelihood of the moves under softmax(value / T): "
          + ", ".join(f"T {t}: {loglik[t] / decisions:.3f}" for t in temps))


def peeking(level: str, lower: str, deals: int) -> None:
    """What seeing every hand is worth: ``level`` honest and ``level`` given the true hands, in
    turn in one seat against three ``lower`` bots, single 4-player SCOUT rounds, each deal with
    the seat in all four places; win rates (ties share) with 95% intervals over deals."""
    budget, settings = parse_level(level.removeprefix("ismcts:"))
    shares: dict[str, list[float]] = {"honest": [], "peeking": []}
    for d in range(deals):
        for name in shares:
            won = 0.0
            for me in range(4):
                seed = f"bench/peek/{d}".encode()
                match = Match(ScoutConfig(players=4), seed)
                bots = [make_bot(lower if s != me else level, seed, s) for s in range(4)]
                while match.round_no == 0 and not match.is_over():
                    seat = match.to_move()
                    obs, legal = match.observation(seat), match.legal_actions(seat)
                    if seat == me and name == "peeking" and len(legal) > 1:
                        known = [[str(c) for c in hand] for hand in match.state.hands]
                        truth = {**obs, "known": known}
                        action = _search.search("scout", truth, truth["config"], seat, iterations=budget,
                                                seed=d * 4 + me, **settings)[0]
                    else:
                        action = str(bots[seat].choose(obs, legal))
                    match.apply(seat, action)
                points = match.round_scores[0]
                best = max(points)
                if points[me] == best:
                    won += 1 / points.count(best)
            shares[name].append(won / 4)
    print(f"\nseeing every hand: {level} in one seat against three {lower}, {deals} deals x 4 seats, "
          "single SCOUT rounds")
    for name, values in shares.items():
        mean, low, high = mean_interval([(v, 1.0) for v in values])
        print(f"{name:>8}: {100 * mean:.1f}% [{100 * low:.1f}, {100 * high:.1f}]")
    pairs = zip(shares["peeking"], shares["honest"], strict=True)
    diff, low, high = mean_interval([(p - h, 1.0) for p, h in pairs])
    print(f"peeking - honest: {100 * diff:+.1f} points [{100 * low:+.1f}, {100 * high:+.1f}]")


def budgets() -> None:
    print("\ntime budgets: wall seconds per searched decision of ismcts:0.2s against three heuristic bots")
    for name, config, spec in [("SCOUT 4p", ScoutConfig(players=4), "ismcts:0.2s"),
                               ("SCOUT 4p", ScoutConfig(players=4), "ismcts:0.2s+infer=1"),
                               ("SOLO anniversary 4p", SoloConfig.preset("anniversary", 4), "ismcts:0.2s")]:
        match = Match(config, b"bench/budget")
        bots = [make_bot(spec if s == 0 else "heuristic", b"bench/budget", s) for s in range(4)]
        times: list[float] = []
        while not match.is_over() and len(times) < 25:
            waiting = match.to_move()
            for seat in asking_order(match):
                obs, legal = match.observation(seat), match.legal_actions(seat)
                bot = bots[seat]
                searched = getattr(bot, "last_stats", None)
                started = time.perf_counter()
                action = bot.choose(obs, legal) if seat == waiting else bot.react(obs, legal)
                if seat == 0 and getattr(bot, "last_stats", None) is not searched:
                    times.append(time.perf_counter() - started)
                if action is not None:
                    match.apply(seat, action)
                    break
        print(f"{name + ', ' + spec:<36} {len(times)} decisions: mean {sum(times) / len(times):.3f} s, "
              f"largest {max(times):.3f} s")


def decision_positions(config: Any, seed: bytes,
                       every: int = 4) -> list[tuple[dict[str, Any], list[Any], int]]:
    """Every ``every``-th decision with more than one legal move (SCOUT: in the play phase) of a
    round played by the heuristic bots: (observation, legal moves, seat)."""
    match = Match(config, seed)
    n = config.players
    bots = [make_bot("heuristic", seed, s) for s in range(n)]
    seen: list[tuple[dict[str, Any], list[Any], int]] = []
    count = 0
    while not match.round_scores:
        waiting = match.to_move()
        assert waiting is not None
        obs, legal = match.observation(waiting), match.legal_actions(waiting)
        if len(legal) > 1 and obs.get("phase", "play") == "play":
            count += 1
            if count % every == 0:
                seen.append((obs, list(legal), waiting))
        for seat in asking_order(match):
            o, moves = match.observation(seat), match.legal_actions(seat)
            action = bots[seat].choose(o, moves) if seat == waiting else bots[seat].react(o, moves)
            if action is not None:
                match.apply(seat, action)
                break
    return seen


def _spin(stop: Any) -> None:
    """A busy loop until ``stop`` is set (a process of --busy)."""
    while not stop.is_set():
        sum(range(10_000))


def deadlines(decisions: int, busy: int, counts: tuple[int, ...] = (1, 2)) -> None:
    """Wall time of whole decisions (``choose``: the bot's Python, its threads and the search)
    against the time budget, each thread count in ``counts`` in turn decision by decision."""
    import multiprocessing

    configs = (ScoutConfig(players=4), SoloConfig.preset("anniversary", 4))
    positions = [p for k in range(4) for config in configs
                 for p in decision_positions(config, b"bench/deadline/%d" % k)]
    stop = multiprocessing.Event()
    spinners = [multiprocessing.Process(target=_spin, args=(stop,), daemon=True) for _ in range(busy)]
    for proc in spinners:
        proc.start()
    try:
        print(f"\ntime budgets kept: wall time of whole decisions (bot.choose) over the budget, {decisions} "
              f"decisions a line from {len(positions)} SCOUT and SOLO anniversary 4p positions, "
              f"threads={', '.join(map(str, counts))} interleaved; {busy} busy process(es) beside")
        print(f"{'level':<24} {'mean':>8} {'p50':>8} {'p99':>8} {'worst':>8} "
              f"{'iterations (all trees)':>23}")
        for budget in (0.25, 1.0):
            levels = [f"ismcts:{budget:g}s" + (f"+threads={k}" if k > 1 else "") for k in counts]
            bots: dict[tuple[str, int], Any] = {}
            over: dict[str, list[float]] = {level: [] for level in levels}
            done: dict[str, list[int]] = {level: [] for level in levels}
            for i in range(decisions):
                obs, legal, seat = positions[i % len(positions)]
                for level in levels if i % 2 == 0 else levels[::-1]:
                    if (level, seat) not in bots:
                        bots[level, seat] = make_bot(level, b"bench/deadline", seat)
                    bot = bots[level, seat]
                    started = time.perf_counter()
                    bot.choose(obs, legal)
                    over[level].append(time.perf_counter() - started - budget)
                    stats = bot.last_stats
                    done[level].append(sum(stats.get("tree_iterations", [stats["iterations"]])))
            for level in levels:
                ranked = sorted(over[level])
                p50, p99 = (ranked[min(len(ranked) - 1, math.ceil(q * len(ranked)) - 1)] for q in (0.5, 0.99))
                print(f"{level:<24} " + " ".join(f"{100 * x / budget:>+7.1f}%" for x in
                                                   (sum(ranked) / len(ranked), p50, p99, ranked[-1]))
                      + f" {sum(done[level]) / len(done[level]):>23,.0f}", flush=True)
    finally:
        stop.set()
        for proc in spinners:
            proc.join(5)


def threads(seconds: float) -> None:
    print("\nroot-parallel search (ismcts +threads=K): iterations per wall second of K trees searched at")
    print("once for the same wall time, middle of a 4-player round; in brackets the ratio to one thread")
    print(f"{'case':<22} " + " ".join(f"{f'{k} thread(s)':>18}" for k in THREAD_COUNTS))
    for name, config in [("SCOUT", ScoutConfig(players=4)),
                         ("SOLO anniversary", SoloConfig.preset("anniversary", 4))]:
        _, obs, seat = round_positions(config, b"bench/threads")[1]

        def one(seed: int, obs: dict[str, Any] = obs, seat: int = seat) -> int:
            _, stats = _search.search(obs["game"], obs, obs["config"], seat, seconds=seconds, seed=seed)
            return int(stats["iterations"])

        rates = []
        for k in THREAD_COUNTS:
            started = time.perf_counter()
            with ThreadPoolExecutor(k) as pool:
                done = sum(pool.map(one, range(1, k + 1)))
            rates.append(done / (time.perf_counter() - started))
        print(f"{name:<22} " + " ".join(f"{rate:>10,.0f} ({rate / rates[0]:.2f}x)" for rate in rates))


def evaluation(seconds: float) -> None:
    print("\nleaf evaluation, SCOUT 4 players (the shipped network, ai/weights/scout-4p.json): microseconds")
    print("per call to value every seat against one heuristic rollout to the round's end; then iterations")
    print("per CPU-second of 2,000-iteration searches with the network at the leaves (rollout_cap 0) and")
    print("with rollouts, interleaved")
    from cardtable.ai.value_net import shipped_network

    net = shipped_network("scout-4p")
    if net is None:
        print("(no network shipped)")
        return
    print(f"{'phase':<8} {'network us':>11} {'rollout us':>11} {'it/CPU-s network':>17} {'rollouts':>10}")
    for phase, obs, seat, snapshot in round_positions(ScoutConfig(players=4), b"bench/value", snapshots=True):
        calls = 20_000
        network, rollout = _search.value_speed(net, snapshot, calls)
        with_net, plain = Meter(), Meter()
        interleave([(with_net, search_fn(obs, seat, 2000, value=net, rollout_cap=0)),
                    (plain, search_fn(obs, seat, 2000))], seconds)
        print(f"{phase:<8} {1e6 * network / calls:>11.2f} {1e6 * rollout / calls:>11.2f} "
              f"{with_net.per_cpu():>17,.0f} {plain.per_cpu():>10,.0f}")


PRIOR_LEVELS = ("strong", "strong+prior=net", "strong+prior=net+policy_depth=3",
                "strong+prior=net+policy_depth=2")


def prior_cost(seconds: float) -> None:
    print("\nthe learned prior's cost, SCOUT 4 players: iterations per CPU-second of the bot's search at")
    print("each level (its settings, its iterations and the clues its seat read; searches interleaved),")
    print("in brackets the ratio to strong's")
    from cardtable.ai.ismcts import IsmctsBot

    print(f"{'phase':<8} " + " ".join(f"{level.removeprefix('strong+'):>32}" for level in PRIOR_LEVELS))
    for phase, obs, seat, clues in clue_positions(ScoutConfig(players=4), b"bench/positions"):
        meters = []
        for level in PRIOR_LEVELS:
            bot = IsmctsBot(b"bench", seat, level)
            options = bot._options(obs)[0]
            meters.append((Meter(), search_fn(obs, seat, bot.iterations, **{**options, "clues": clues})))
        interleave(meters, seconds)
        rates = [meter.per_cpu() for meter, _ in meters]
        print(f"{phase:<8} " + " ".join(f"{rate:>23,.0f} ({rate / rates[0]:.2f}x)" for rate in rates))


def hearts_positions() -> list[tuple[str, Any]] | None:
    """4-player hearts states early, in the middle and late in the play (random play), or None
    without open_spiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    import random

    game = pyspiel.load_game("hearts")
    out = []
    for phase, tricks in (("early", 1), ("middle", 6), ("late", 10)):
        rng = random.Random(tricks)
        state = game.new_initial_state()
        played = 0
        while played < 12 + 4 * tricks:  # 12 cards passed, then 4 per trick
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
                continue
            state.apply_action(rng.choice(state.legal_actions()))
            played += 1
        out.append((phase, state))
    return out


def openspiel_fn(state: Any, iterations: int) -> Callable[[], float]:
    import pyspiel

    seeds = iter(range(1, 1 << 30))

    def one() -> float:
        seed = next(seeds)
        bot = pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, iterations, -1,
                                pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
        bot.step(state)
        return float(iterations)
    return one


def iterations(seconds: float) -> None:
    print("\nISMCTS iterations per CPU-second (wall in brackets), 4 players, 3,000-iteration searches;")
    print("each row's searches interleaved in slices with OpenSpiel's at the same phase when installed")
    hearts = hearts_positions()
    spiel = dict(hearts) if hearts else {}
    header = f"{'case':<36} " + " ".join(f"{p:>19}" for p, _ in PHASES)
    print(header)
    rows: dict[str, dict[str, Meter]] = {}
    for name, _, config, _ in CASES:
        for phase, obs, seat in round_positions(config, b"bench/positions"):
            for mode, options in MODES:
                meters = [(rows.setdefault(f"{name}, {mode}", {}).setdefault(phase, Meter()),
                           search_fn(obs, seat, 3000, **options))]
                if spiel:
                    meters.append((rows.setdefault("OpenSpiel hearts, random", {}).setdefault(
                        f"{phase}/{name}/{mode}", Meter()), openspiel_fn(spiel[phase], 3000)))
                interleave(meters, seconds, slices=4)
    spiel_rate: dict[str, float] = {}
    if spiel:
        merged: dict[str, list[Meter]] = {}
        for key, meter in rows.pop("OpenSpiel hearts, random").items():
            merged.setdefault(key.split("/")[0], []).append(meter)
        for phase, ms in merged.items():
            spiel_rate[phase] = sum(m.count for m in ms) / sum(m.cpu for m in ms)
        cells = " ".join(f"{spiel_rate[p]:>19,.0f}" for p, _ in PHASES)
        print(f"{'OpenSpiel ISMCTS hearts, random':<36} {cells}")
    for label, phases in rows.items():
        row = []
        for p, _ in PHASES:
            m = phases[p]
            ratio = f" {m.per_cpu() / spiel_rate[p]:.1f}x" if spiel_rate else ""
            row.append(f"{m.per_cpu():,.0f}{ratio}".rjust(19))
        wall = " ".join(f"({phases[p].per_wall():,.0f})" for p, _ in PHASES)
        print(f"{label:<36} {' '.join(row)}   wall {wall}")


def growth(seconds: float) -> None:
    print("\niterations per CPU-second at 500 and at 20,000 iterations a search, per phase: one search of")
    print("20,000 alternates with 40 of 500, each with a seed of its own (a single tree's cost varies with")
    print("its seed); in brackets how much more CPU time an iteration takes at 20,000 than at 500, and")
    print("the mean tree depth an iteration reaches at 500 and at 20,000")
    for name, _, config, _ in CASES:
        positions = round_positions(config, b"bench/positions")
        for mode, options in MODES:
            cells = []
            for phase, obs, seat in positions:
                (small, small_depth), (big, big_depth) = sizes_side_by_side(obs, seat, seconds, options)
                cells.append(f"{phase} {small:,.0f} / {big:,.0f} ({100 * (small / big - 1):+.0f}%, "
                             f"depth {small_depth:.1f} / {big_depth:.1f})")
            print(f"{name + ', ' + mode:<44} " + "   ".join(cells))


def sizes_side_by_side(obs: dict[str, Any], seat: int, seconds: float,
                       options: dict[str, Any]) -> list[tuple[float, float]]:
    """(iterations per CPU-second, mean depth) of searches of 500 and of 20,000 iterations,
    alternating, for about ``seconds`` of CPU in all (at least one round)."""
    sizes = ((500, 40), (20_000, 1))
    cpu = [0.0, 0.0]
    depth = [0.0, 0.0]
    done = [0, 0]
    seed = 0
    while not done[1] or sum(cpu) < seconds:
        for k, (size, count) in enumerate(sizes):
            for _ in range(count):
                seed += 1
                started = time.thread_time()
                _, stats = _search.search(obs["game"], obs, obs["config"], seat, iterations=size, seed=seed,
                                          **options)
                cpu[k] += time.thread_time() - started
                depth[k] += stats["mean_depth"] * size
                done[k] += size
    return [(done[k] / cpu[k], depth[k] / done[k]) for k in range(2)]


def memory() -> None:
    name = "SOLO anniversary 4p"
    _, obs, seat = round_positions(SoloConfig.preset("anniversary", 4), b"bench/positions")[1]
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
        for specs in (["ismcts:strong"] + ["heuristic"] * 3, ["heuristic"] + ["random"] * 3):
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
    parser.add_argument("--only", choices=["threads", "evaluation", "deadlines", "prior"],
                        help="only this section")
    parser.add_argument("--decisions", type=int, default=100,
                        help="decisions per line of the deadlines section (its p99 is the worst below 100)")
    parser.add_argument("--busy", type=int, default=0, metavar="K",
                        help="busy-looping processes beside the deadlines section (a loaded machine)")
    parser.add_argument("--deadline-threads", default="1,2", metavar="K,K",
                        help="the thread counts of the deadlines section")
    parser.add_argument("--settings", default="", metavar="S",
                        help="search settings for --agreement, as in a level (opponents=policy+cpuct=1)")
    parser.add_argument("--agreement", default="", metavar="BUDGETS",
                        help="only the agreement with the true-hands search at these budgets (500,2000,8000)")
    parser.add_argument("--ceiling", type=int, default=0, metavar="WORLDS",
                        help="only the agreement an honest player can reach at best, from this many worlds")
    parser.add_argument("--reference", type=int, default=2000, metavar="N",
                        help="iterations of the true-hands search --agreement and --ceiling compare with")
    parser.add_argument("--fit-opponents", default="", metavar="LEVEL",
                        help="only how well the heuristic's values as a softmax predict LEVEL's moves")
    parser.add_argument("--peeking", default="", metavar="LEVEL,LOWER,DEALS",
                        help="only what seeing every hand is worth to LEVEL against three LOWER")
    args = parser.parse_args()
    try:  # every argument read before anything runs: a bad one is one line
        settings = parse_level(f"1+{args.settings}")[1] if args.settings else {}
        budgets_asked = [parse_level(b)[0] for b in args.agreement.split(",")] if args.agreement else []
        level, lower, deals = "", "", 0
        if args.peeking:
            parts = args.peeking.split(",")
            if len(parts) != 3 or not parts[2].isdigit() or int(parts[2]) < 2:
                raise ValueError("--peeking is LEVEL,LOWER,DEALS, 2 deals or more "
                                 f"(ismcts:strong,ismcts:500,80), not {args.peeking!r}")
            level, lower, deals = parts[0], parts[1], int(parts[2])
        for spec in filter(None, (level, lower, args.fit_opponents)):
            make_bot(spec, b"check", 0)
        if args.ceiling < 0 or args.reference < 1:
            raise ValueError("--ceiling and --reference must be positive")
        if args.decisions < 1 or args.busy < 0:
            raise ValueError("--decisions must be at least 1 and --busy at least 0")
        counts = tuple(int(k) for k in args.deadline_threads.split(","))
        if min(counts) < 1:
            raise ValueError("--deadline-threads are counts of at least 1 (1,2,4)")
    except ValueError as err:  # ParseError is one
        parser.error(str(err))
    if args.peeking:
        peeking(level, lower, deals)
        return
    if args.fit_opponents:
        opponent_fit(args.fit_opponents, 40)
        return
    if args.ceiling:
        agreement_ceiling(args.ceiling, settings, args.reference)
        return
    if budgets_asked:
        agreement(budgets_asked, settings, args.reference)
        return
    if args.only == "deadlines":
        deadlines(args.decisions, args.busy, counts)
        return
    if args.only:
        {"threads": threads, "evaluation": evaluation, "prior": prior_cost}[args.only](args.seconds)
        return
    memory()  # first: the peak RSS has not yet been raised by the other searches
    playouts(args.seconds)
    iterations(args.seconds)
    growth(args.seconds)
    inference(args.seconds)
    budgets()
    evaluation(args.seconds)
    prior_cost(args.seconds)
    threads(args.seconds)
    deadlines(args.decisions, args.busy, counts)
    if not args.skip_strength:
        strength(args.deals, args.workers)


if __name__ == "__main__":
    main()
