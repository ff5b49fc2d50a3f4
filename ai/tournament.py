"""Batches of headless games between bots: the schedule and the runs (``ai/stats.py`` has
the statistics).

A batch is ``deals`` deals, each dealt from ``match_seed(master, deal)``. With
``duplicate`` every deal is played once per rotation of the bots through the seats (so
luck of the deal cancels out); otherwise deal ``d`` is played once with rotation
``d % players`` when ``rotate`` is on (seat order evens out), or with the bots as given.
A bot entry is a spec (``heuristic``, ``cmd:./mybot``, ...) or ``LABEL=SPEC``; the label
names the bot in the games and the summary.

``play_all`` yields each game as it ends, from this process, a pool of worker processes,
or a Ray cluster (``ai/runner_ray.py``); stopping it (Ctrl-C) stops the workers at once.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import combinations
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from cardtable.ai import bot_logs
from cardtable.ai.bots import make_bot, split_entry
from cardtable.ai.driver import GameResult, play_match
from cardtable.ai.stats import summarize
from cardtable.engine.games import config_from_dict
from cardtable.engine.log import encode_entry, encode_header
from cardtable.engine.match import Match, match_seed

__all__ = ["Game", "play_all", "play_one", "round_robin", "run", "schedule", "split_entry", "summarize"]

@dataclass(frozen=True)
class Game:
    """One scheduled game: which deal, which rotation, and the bot in each seat."""

    index: int
    deal: int
    rotation: int
    bots: tuple[str, ...]
    specs: tuple[str, ...] = ()
    table: int | None = None

    def spec(self, seat: int) -> str:
        return self.specs[seat] if self.specs else self.bots[seat]


def round_robin(deals: int, entries: list[str], players: int) -> list[Game]:
    """A tournament: every table of ``players`` of the entries (each combination once) plays
    the same ``deals`` deals, each in every rotation of its bots through the seats."""
    games: list[Game] = []
    for table, chosen in enumerate(combinations(entries, players)):
        for game in schedule(deals, list(chosen), duplicate=True, rotate=True):
            games.append(Game(len(games), game.deal, game.rotation, game.bots, game.specs, table))
    return games


def schedule(deals: int, entries: list[str], duplicate: bool, rotate: bool) -> list[Game]:
    n = len(entries)
    labels = [split_entry(e)[0] for e in entries]
    specs = [split_entry(e)[1] for e in entries]
    games: list[Game] = []
    for deal in range(deals):
        rotations = range(n) if duplicate else [deal % n if rotate else 0]
        for r in rotations:
            order = [(seat + r) % n for seat in range(n)]
            seats = tuple(labels[k] for k in order), tuple(specs[k] for k in order)
            games.append(Game(len(games), deal, r, *seats))
    return games


@dataclass(frozen=True)
class Task:
    """Everything a worker needs to play one game (plain data, safe to send anywhere)."""

    config: dict[str, Any]
    master: int
    game: Game
    log_dir: str | None = None
    time_budget: float | None = None
    rounds: int = 0
    debug_dir: str | None = None


def play_one(config_data: dict[str, Any], master: int, game: Game, log_dir: str | None,
             time_budget: float | None = None, rounds: int = 0,
             debug_dir: str | None = None) -> dict[str, Any]:
    """Play one scheduled game (only its first ``rounds`` rounds if > 0); returns plain data
    (safe to send between processes). ``debug_dir``: the programs' transcripts and stderr go
    there, ``game-NNNN-seat-S.log`` and ``.stderr`` (``ai.bot_logs``)."""
    config = config_from_dict(config_data)
    seed = match_seed(master, game.deal)
    bots: list[Any] = []
    where = None if debug_dir is None else Path(debug_dir)
    try:
        with bot_logs.using(bot_logs.BotLogs(where, where, f"game-{game.index:04d}-") if where
                            else bot_logs.current()):
            for seat in range(len(game.bots)):
                bots.append(make_bot(game.spec(seat), seed, seat, time_budget))
        result: GameResult = play_match(Match(config, seed), bots, clock=time.perf_counter,
                                        cpu_clock=time.thread_time, rounds=rounds)
    finally:
        for bot in bots:
            close = getattr(bot, "close", None)
            if callable(close):
                close()
    if log_dir is not None:
        write_log(Path(log_dir) / f"game-{game.index:04d}.ctlog", config, seed, list(game.bots), result)
    data = {"index": game.index, "deal": game.deal, "rotation": game.rotation, "bots": list(game.bots),
            "seed": seed.decode(), "rounds": result.rounds, "actions": len(result.entries),
            "scores": result.scores, "winners": result.winners, "digest": result.digest,
            "seconds": result.seconds_per_seat, "cpu": result.cpu_per_seat, "moves": result.moves_per_seat,
            "faults": [dict(getattr(b, "faults", {})) for b in bots]}
    examples = [dict(getattr(b, "fault_examples", {})) for b in bots]
    if any(examples):
        data["fault_examples"] = examples
    if game.table is not None:
        data["table"] = game.table
    return data


def play_task(task: Task) -> dict[str, Any]:
    return play_one(task.config, task.master, task.game, task.log_dir, task.time_budget, task.rounds,
                    task.debug_dir)


def write_log(path: Path, config: Any, seed: bytes, bots: list[str], result: GameResult) -> None:
    """The game's log file (docs/log-format.md), replaying the entries to get digests."""
    game = Match(config, seed)
    with path.open("wb") as out:
        out.write(encode_header(game, {"bots": bots}))
        for index, (seat, action) in enumerate(result.entries):
            game.apply(seat, action)
            out.write(encode_entry(index, seat, action, game.digest()))


def play_all(tasks: list[Task], workers: int = 1, ray_address: str | None = None) -> Iterator[dict[str, Any]]:
    """Each game's result as it ends (any order). Close the iterator (or let Ctrl-C go through
    it) to stop: worker processes are terminated at once, finished games are kept by the caller."""
    if ray_address is not None:
        from cardtable.ai.runner_ray import map_on_ray_unordered

        yield from map_on_ray_unordered(play_task, tasks, ray_address, workers if workers > 1 else None)
    elif workers <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield play_task(task)
    else:
        pool = get_context("fork").Pool(workers, initializer=_ignore_sigint)
        try:
            yield from pool.imap_unordered(play_task, tasks)
            pool.close()
        finally:
            pool.terminate()
            pool.join()


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the parent, which stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run(config: Any, master: int, games: list[Game], workers: int = 1, log_dir: Path | None = None,
        progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """Play every game, in ``workers`` processes; results in schedule order."""
    where = None if log_dir is None else str(log_dir)
    tasks = [Task(config.to_dict(), master, game, where) for game in games]
    results = []
    for result in play_all(tasks, workers):
        results.append(result)
        if progress:
            progress(1)
    return sorted(results, key=lambda r: int(r["index"]))
