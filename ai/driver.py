"""Play a whole match with one bot per seat, headless.

Each step, the seats that may act out of turn are offered the chance in seat order
starting after the seat the game waits for (a deterministic stand-in for "who shouts
first"); the first that takes it is applied. Otherwise the waiting seat chooses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardtable.engine.match import Match


@dataclass
class GameResult:
    """What one headless match produced."""

    scores: list[int]
    winners: list[int]
    rounds: int
    entries: list[tuple[int, str]] = field(default_factory=list)
    seconds_per_seat: list[float] = field(default_factory=list)
    moves_per_seat: list[int] = field(default_factory=list)
    digest: str = ""
    cpu_per_seat: list[float] = field(default_factory=list)


def play_match(
    match: Match,
    bots: Sequence[Any],
    max_actions: int = 200_000,
    clock: Callable[[], float] | None = None,
    cpu_clock: Callable[[], float] | None = None,
    rounds: int = 0,
) -> GameResult:
    """Play ``match`` to its end (or, with ``rounds``, until that many rounds have ended, the
    winners then being the best totals so far); every applied ``(seat, action text)`` is recorded.

    ``clock`` (wall) and ``cpu_clock`` (this thread's CPU time, e.g. ``time.thread_time``)
    time each seat's decisions; a bot with a ``cpu_seconds()`` method (a program in its own
    process) adds the CPU time it reports.
    """
    n = match.config.players
    spent = [0.0] * n
    cpu = [0.0] * n
    moves = [0] * n
    entries: list[tuple[int, str]] = []
    while not match.is_over() and not (rounds and len(match.round_scores) >= rounds):
        if len(entries) >= max_actions:
            raise RuntimeError(f"the match did not end within {max_actions} actions")
        waiting = match.to_move()
        assert waiting is not None
        seat, action = _next_action(match, bots, waiting, (spent, cpu, moves), (clock, cpu_clock))
        match.apply(seat, action)
        entries.append((seat, str(action)))
    for seat, bot in enumerate(bots):
        outside = getattr(bot, "cpu_seconds", None)
        if callable(outside):
            cpu[seat] += outside()
    winners = match.winners() if match.is_over() else match.config.winners(match.totals)
    return GameResult(match.scores(), winners, len(match.round_scores), entries,
                      spent, moves, match.digest(), cpu)


Clocks = tuple["Callable[[], float] | None", "Callable[[], float] | None"]


def asking_order(match: Match) -> list[int]:
    """The seats that may act now, in the order the driver asks them: the seats after the one
    the game waits for (out of turn), then that one."""
    waiting, n = match.to_move(), match.config.players
    if waiting is None:
        return []
    actors = set(match.actors())
    return [seat for seat in ((waiting + k) % n for k in range(1, n + 1)) if seat in actors]


def _next_action(match: Match, bots: Sequence[Any], waiting: int,
                 tally: tuple[list[float], list[float], list[int]], clocks: Clocks) -> tuple[int, Any]:
    spent, cpu, moves = tally
    clock, cpu_clock = clocks
    for seat in asking_order(match):
        must = seat == waiting
        legal = match.legal_actions(seat)
        start = clock() if clock else 0.0
        cpu_start = cpu_clock() if cpu_clock else 0.0
        obs = match.observation(seat)
        action = bots[seat].choose(obs, legal) if must else bots[seat].react(obs, legal)
        if clock:
            spent[seat] += clock() - start
        if cpu_clock:
            cpu[seat] += cpu_clock() - cpu_start
        if action is not None:
            moves[seat] += 1
            return seat, action
    raise RuntimeError(f"seat {waiting} has no legal action")
