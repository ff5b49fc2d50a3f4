"""Batches of headless games between bots: the schedule, the runs, and the statistics.

A batch is ``deals`` deals, each dealt from ``match_seed(master, deal)``. With
``duplicate`` every deal is played once per rotation of the bots through the seats (so
luck of the deal cancels out); otherwise deal ``d`` is played once with rotation
``d % players`` when ``rotate`` is on (seat order evens out), or with the bots as given.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from ai.bots import make_bot
from ai.driver import GameResult, play_match
from engine.games import config_from_dict
from engine.log import encode_entry, encode_header
from engine.match import Match, match_seed


@dataclass(frozen=True)
class Game:
    """One scheduled game: which deal, which rotation, and the bot in each seat."""

    index: int
    deal: int
    rotation: int
    bots: tuple[str, ...]


def schedule(deals: int, specs: list[str], duplicate: bool, rotate: bool) -> list[Game]:
    n = len(specs)
    games: list[Game] = []
    for deal in range(deals):
        rotations = range(n) if duplicate else [deal % n if rotate else 0]
        for r in rotations:
            bots = tuple(specs[(seat + r) % n] for seat in range(n))
            games.append(Game(len(games), deal, r, bots))
    return games


def play_one(config_data: dict[str, Any], master: int, game: Game, log_dir: str | None) -> dict[str, Any]:
    """Play one scheduled game; returns plain data (safe to send between processes)."""
    config = config_from_dict(config_data)
    seed = match_seed(master, game.deal)
    bots = [make_bot(spec, seed, seat) for seat, spec in enumerate(game.bots)]
    result: GameResult = play_match(Match(config, seed), bots, clock=time.perf_counter)
    if log_dir is not None:
        write_log(Path(log_dir) / f"game-{game.index:04d}.ctlog", config, seed, list(game.bots), result)
    return {"index": game.index, "deal": game.deal, "rotation": game.rotation, "bots": list(game.bots),
            "seed": seed.decode(), "rounds": result.rounds, "actions": len(result.entries),
            "scores": result.scores, "winners": result.winners, "digest": result.digest,
            "seconds": result.seconds_per_seat, "moves": result.moves_per_seat}


def write_log(path: Path, config: Any, seed: bytes, bots: list[str], result: GameResult) -> None:
    """The game's log file (docs/log-format.md), replaying the entries to get digests."""
    game = Match(config, seed)
    with path.open("wb") as out:
        out.write(encode_header(game, {"bots": bots}))
        for index, (seat, action) in enumerate(result.entries):
            game.apply(seat, action)
            out.write(encode_entry(index, seat, action, game.digest()))


def run(config: Any, master: int, games: list[Game], workers: int = 1, log_dir: Path | None = None,
        progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """Play every game, in ``workers`` processes; results in schedule order."""
    data = config.to_dict()
    where = None if log_dir is None else str(log_dir)
    results: list[dict[str, Any]] = []
    if workers <= 1:
        for game in games:
            results.append(play_one(data, master, game, where))
            if progress:
                progress(1)
        return results
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
        futures = [pool.submit(play_one, data, master, game, where) for game in games]
        for future in futures:
            results.append(future.result())
            if progress:
                progress(1)
    return results


def _seat_games(results: list[dict[str, Any]]) -> Iterator[tuple[str, float, int, float, int]]:
    """(bot, win share, score, seconds, moves) for every seat of every game."""
    for g in results:
        share = 1 / len(g["winners"])
        for seat, bot in enumerate(g["bots"]):
            yield (bot, share if seat in g["winners"] else 0.0, g["scores"][seat],
                   g["seconds"][seat], g["moves"][seat])


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``p`` observed over ``n`` trials."""
    if n == 0:
        return (0.0, 1.0)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def summarize(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per bot: seat-games, win rate and its 95% interval, mean score and its 95% interval,
    mean milliseconds per move. Ties share a win."""
    rows: dict[str, list[tuple[float, int, float, int]]] = {}
    for bot, win, score, seconds, moves in _seat_games(results):
        rows.setdefault(bot, []).append((win, score, seconds, moves))
    out = []
    for bot, games in rows.items():
        n = len(games)
        rate = sum(g[0] for g in games) / n
        scores = [g[1] for g in games]
        mean = sum(scores) / n
        sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / (n - 1)) if n > 1 else 0.0
        half = 1.96 * sd / math.sqrt(n)
        moves = sum(g[3] for g in games)
        low, high = wilson(rate, n)
        out.append({"bot": bot, "seat_games": n, "win_rate": round(rate, 4),
                    "win_rate_ci": [round(low, 4), round(high, 4)], "mean_score": round(mean, 2),
                    "mean_score_ci": [round(mean - half, 2), round(mean + half, 2)],
                    "ms_per_move": round(1000 * sum(g[2] for g in games) / moves, 3) if moves else 0.0})
    return out
