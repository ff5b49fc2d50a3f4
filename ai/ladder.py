"""The level ladder: each ``ismcts`` level in one seat against three of the level below it.

Every deal is played once per rotation of the bots through the 4 seats (duplicate deals,
rotated seats), so the luck of the cards cancels out. A game is ``rounds`` rounds (the best
totals after them win; ties share the win; 0: whole matches; by default the game's unit,
``ROUNDS``: SOLO whole matches, SCOUT single rounds). Each step gives the upper
level's win rate with its 95% interval clustered by deal (parity 25%) and the CPU time per
move of both levels (``time.thread_time``, so it does not depend on the load; a bot's CPU over
every time it was asked, declined out-of-turn offers included, over the moves it made: the
``cpu_ms_per_move`` of ``cardtable match --json``). The games are played by the tournament
runner (``ai/tournament.py``) and summarised by ``ai/stats.py``, like ``cardtable match``.
Run by ``cardtable ladder`` and ``python bench/ladder.py`` (docs/ai.md, "the ladder").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from cardtable.ai.bots import parse_bot_spec
from cardtable.ai.stats import summarize
from cardtable.ai.tournament import Task, play_all, schedule
from cardtable.engine.errors import ParseError
from cardtable.engine.scout import Config as ScoutConfig
from cardtable.engine.solo import Config as SoloConfig

GAMES = {
    "solo-anniversary": SoloConfig.preset("anniversary", 4),
    "solo-classic": SoloConfig.preset("classic", 4),
    "scout": ScoutConfig(players=4),
}
ROUNDS = {"solo-anniversary": 0, "solo-classic": 0, "scout": 1}
"""Each game's unit unless told otherwise: whole SOLO matches (a SOLO round is mostly the luck
of the cards; over a match a level's edge adds up), single SCOUT rounds (docs/ai.md)."""
STEPS = ["strong/normal", "normal/fast", "fast/heuristic"]


def spec(level: str) -> str:
    """``heuristic`` and ``random`` are bots; anything else is an ismcts level (``fast``,
    ``1500``, ``3000+cpuct=1``: ``parse_level`` in ai/ismcts.py)."""
    return level if level in ("heuristic", "random") else f"ismcts:{level}"


def parse_steps(games: str, steps: str) -> tuple[list[str], list[tuple[str, str]]]:
    """``solo-classic,scout`` and ``strong/normal,500/100`` → games and (upper, lower) pairs;
    ParseError (one line) for an unknown game, a malformed step or an unknown level."""
    names = [g.strip() for g in games.split(",") if g.strip()]
    for name in names:
        if name not in GAMES:
            raise ParseError(f"unknown game {name!r}: choose from {', '.join(GAMES)}")
    pairs: list[tuple[str, str]] = []
    for step in (s.strip() for s in steps.split(",") if s.strip()):
        upper, sep, lower = step.partition("/")
        if not sep or not upper or not lower or "/" in lower:
            raise ParseError(f"a step is UPPER/LOWER (e.g. strong/normal), not {step!r}")
        for level in (upper, lower):
            parse_bot_spec(spec(level))
        pairs.append((upper, lower))
    if not names or not pairs:
        raise ParseError("give at least one game and one step")
    return names, pairs


def run_step(config: Any, upper: str, lower: str, deals: int, workers: int, master: int,
             rounds: int) -> dict[str, Any]:
    """``upper`` in one seat against three ``lower``, games of ``rounds`` rounds (0: whole
    matches): its win rate, interval and CPU per move."""
    specs = [spec(upper)] + [spec(lower)] * (config.players - 1)
    games = schedule(deals, specs, duplicate=True, rotate=True)
    tasks = [Task(config.to_dict(), master, g, rounds=rounds) for g in games]
    # the deal is the unit: its four rotations are not independent games (ai/stats.py)
    rows = {row["bot"]: row for row in summarize(list(play_all(tasks, workers)))}
    top, below = rows[specs[0]], rows[specs[1]]
    return {"upper": upper, "lower": lower, "games": len(games), "win_rate": top["win_rate"],
            "ci": tuple(top["win_rate_ci"]), "ms_upper": top["cpu_ms_per_move"],
            "ms_lower": below["cpu_ms_per_move"]}


def unit_name(rounds: int) -> str:
    return "matches" if rounds == 0 else "rounds" if rounds == 1 else f"{rounds}-round games"


def report(games: Iterable[str], steps: Iterable[tuple[str, str]], deals: int, workers: int, master: int,
           rounds: int | None, echo: Callable[[str], None]) -> None:
    """Play every step in every game, games of ``rounds`` rounds (0: whole matches; None: the
    game's unit, ROUNDS), and ``echo`` the table, a line per step as it ends."""
    echo(f"ladder: 4 players, {deals} duplicate deals x 4 rotations per line; parity 25%")
    echo(f"{'game':<18} {'step':<18} {'games':>14} {'win %':>6} {'95% interval':>13} "
         f"{'CPU ms/move (upper / lower)':>28}")
    for name in games:
        unit = ROUNDS[name] if rounds is None else rounds
        for upper, lower in steps:
            started = time.perf_counter()
            r = run_step(GAMES[name], upper, lower, deals, workers, master, unit)
            low, high = r["ci"]
            interval = f"{100 * low:.1f}-{100 * high:.1f}%"
            verdict = "climbs" if low > 0.25 else "does not climb"
            games_text = f"{r['games']} {unit_name(unit)}"
            echo(f"{name:<18} {upper + ' vs ' + lower:<18} {games_text:>14} {100 * r['win_rate']:>5.1f}% "
                 f"{interval:>13} {r['ms_upper']:>11.2f} / {r['ms_lower']:<12.2f}"
                 f"{verdict}  ({time.perf_counter() - started:.0f} s)")
