"""The level ladder: each ``ismcts`` level in one seat against three of the level below it.

Every deal is played once per rotation of the bots through the 4 seats (duplicate deals,
rotated seats), so the luck of the cards cancels out. A game is ``rounds`` rounds (the best
totals after them win; ties share the win; 0: whole matches; by default the game's unit,
``ROUNDS``: SOLO whole matches, SCOUT single rounds). Each step gives the upper level's win
rate with its 95% interval clustered by deal (parity 25%; Wilson's, so inside [0, 1]), a
verdict ("climbs" when the interval is above parity; "too few games to tell" under
``MIN_DEALS`` deals, ai/stats.py) and the CPU time per move of both levels
(``time.thread_time``, so it does not depend on the load; a bot's CPU over every time it was
asked, declined out-of-turn offers included, over the moves it made: the ``cpu_ms_per_move``
of ``cardtable match --json``). The games are played by the tournament runner
(``ai/tournament.py``) and summarised by ``ai/stats.py``, like ``cardtable match``. Run by
``cardtable ladder`` and ``python bench/ladder.py`` (docs/ai.md, "the ladder").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from cardtable.ai.bots import parse_bot_spec
from cardtable.ai.runner_ray import add_ray_argument, check_ray
from cardtable.ai.stats import MIN_DEALS, TOO_FEW, bootstrap, rate_interval, summarize, tell
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


def game_config(name: str, players: int = 4) -> Any:
    """The ``name``d game's config (GAMES) for ``players`` seats."""
    if players == 4:
        return GAMES[name]
    if name == "scout":
        return ScoutConfig(players=players)
    return SoloConfig.preset(name.removeprefix("solo-"), players)


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
    return {"upper": upper, "lower": lower, "games": len(games), "deals": top["deals"],
            "win_rate": top["win_rate"], "ci": tuple(top["win_rate_ci"]), "ms_upper": top["cpu_ms_per_move"],
            "ms_lower": below["cpu_ms_per_move"]}


def climbs(deals: int, low: float, high: float, parity: float = 0.25) -> str:
    """A step's verdict: "climbs" (the upper level's interval above parity), "does not climb",
    or "too few games to tell" (fewer than ``MIN_DEALS`` deals: ai/stats.py)."""
    return {"too few": TOO_FEW, "above": "climbs"}.get(tell(deals, low, high, parity), "does not climb")


def unit_name(rounds: int) -> str:
    return "matches" if rounds == 0 else "rounds" if rounds == 1 else f"{rounds}-round games"


def report(games: Iterable[str], steps: Iterable[tuple[str, str]], deals: int, workers: int, master: int,
           rounds: int | None, echo: Callable[[str], None]) -> None:
    """Play every step in every game, games of ``rounds`` rounds (0: whole matches; None: the
    game's unit, ROUNDS), and ``echo`` the table, a line per step as it ends."""
    few = f" (under {MIN_DEALS}: too few games to tell)" if deals < MIN_DEALS else ""
    echo(f"ladder: 4 players, {deals} duplicate deals x 4 rotations per line{few}; parity 25%")
    echo(f"{'game':<18} {'step':<18} {'games':>14} {'win %':>6} {'95% interval':>13} "
         f"{'CPU ms/move (upper / lower)':>28}")
    for name in games:
        unit = ROUNDS[name] if rounds is None else rounds
        for upper, lower in steps:
            started = time.perf_counter()
            r = run_step(GAMES[name], upper, lower, deals, workers, master, unit)
            low, high = r["ci"]
            interval = f"{100 * low:.1f}-{100 * high:.1f}%"
            verdict = climbs(deals, low, high)
            games_text = f"{r['games']} {unit_name(unit)}"
            echo(f"{name:<18} {upper + ' vs ' + lower:<18} {games_text:>14} {100 * r['win_rate']:>5.1f}% "
                 f"{interval:>13} {r['ms_upper']:>11.2f} / {r['ms_lower']:<12.2f}"
                 f"{verdict}  ({time.perf_counter() - started:.0f} s)")


def _upper_shares(results: list[dict[str, Any]]) -> dict[int, float]:
    """Each deal's mean win share of the upper seat (the schedule's first entry, which
    rotation r seats at -r) over its rotations."""
    shares: dict[int, list[float]] = {}
    for g in results:
        seat = -g["rotation"] % len(g["bots"])
        shares.setdefault(g["deal"], []).append(1 / len(g["winners"]) if seat in g["winners"] else 0.0)
    return {deal: sum(s) / len(s) for deal, s in shares.items()}


def compare(name: str, first: str, second: str, lower: str, deals: int, workers: int, master: int,
            rounds: int | None = None, players: int = 4, ray: str | None = None) -> dict[str, Any]:
    """``first`` and then ``second`` in one seat against ``players`` - 1 ``lower``, on the
    same deals and rotations (the same cards and the same lower bots' seeds): each one's win
    rate (the mean over deals of its share of the deal's wins; parity 1 / players) and CPU per
    move, and the paired difference of the win rates, deal by deal, each with its 95% interval
    over the deals (a win rate's Wilson's over the effective trials, inside [0, 1]; the
    difference's a deal bootstrap, inside [-1, 1]: ai/stats.py) and the difference's
    ``verdict``: "first ahead", "second ahead", "no clear difference" or, under ``MIN_DEALS``
    deals, "too few games to tell". With ``ray`` (an address, "" for a local cluster) the
    games are Ray tasks: the same games, the same figures but the CPU times."""
    config: Any = game_config(name, players)
    unit = ROUNDS[name] if rounds is None else rounds
    out: dict[str, Any] = {"game": name, "lower": lower, "deals": deals, "seed": master}
    shares = []
    for key, upper in (("first", first), ("second", second)):
        specs = [spec(upper)] + [spec(lower)] * (config.players - 1)
        games = schedule(deals, specs, duplicate=True, rotate=True)
        tasks = [Task(config.to_dict(), master, g, rounds=unit) for g in games]
        results = list(play_all(tasks, workers, ray))
        rows = {row["bot"]: row for row in summarize(results)}
        shares.append(_upper_shares(results))
        rate, low, high = rate_interval([(share, 1.0) for share in shares[-1].values()])
        out[key] = {"level": upper, "win_rate": rate, "ci": (low, high),
                    "cpu_ms_per_move": rows[specs[0]]["cpu_ms_per_move"]}
    ((diff, low, high),) = bootstrap([(1.0, shares[0][d] - shares[1][d]) for d in sorted(shares[0])])
    if len(shares[0]) < 2:
        low, high = -1.0, 1.0  # all one deal says
    said = tell(len(shares[0]), low, high)
    verdict = {"too few": TOO_FEW, "above": "first ahead", "below": "second ahead"}.get(said,
                                                                                       "no clear difference")
    out["difference"] = {"win_rate": diff, "ci": (low, high), "verdict": verdict}
    return out


def main(argv: list[str] | None = None) -> None:
    """``python -m cardtable.ai.ladder --game scout --first 500 --second 500+infer=0
    --lower heuristic --deals 100 --seed 2050``: ``compare``, printed as one line."""
    import argparse

    parser = argparse.ArgumentParser(description=compare.__doc__)
    parser.add_argument("--game", choices=list(GAMES), required=True)
    parser.add_argument("--first", required=True)
    parser.add_argument("--second", required=True)
    parser.add_argument("--lower", default="heuristic")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--players", type=int, default=4)
    add_ray_argument(parser, "the games")
    args = parser.parse_args(argv)
    try:
        parse_steps(args.game, f"{args.first}/{args.lower},{args.second}/{args.lower}")
        game_config(args.game, args.players)
        if args.ray is not None:
            check_ray(args.ray)
    except (ParseError, ValueError) as err:
        parser.error(str(err))
    r = compare(args.game, args.first, args.second, args.lower, args.deals, args.workers, args.seed,
                args.rounds, args.players, args.ray)
    a, b, d = r["first"], r["second"], r["difference"]
    n = args.players
    print(f"{args.game}, {n} players, vs {n - 1} x {args.lower}, {args.deals} deals x {n} rotations, "
          f"seed {args.seed}: "
          f"{a['level']} {100 * a['win_rate']:.1f}% [{100 * a['ci'][0]:.1f}, {100 * a['ci'][1]:.1f}] "
          f"({a['cpu_ms_per_move']:.1f} CPU ms/move); {b['level']} {100 * b['win_rate']:.1f}% "
          f"[{100 * b['ci'][0]:.1f}, {100 * b['ci'][1]:.1f}] ({b['cpu_ms_per_move']:.1f}); paired difference "
          f"{100 * d['win_rate']:+.1f} points [{100 * d['ci'][0]:+.1f}, {100 * d['ci'][1]:+.1f}]: "
          f"{d['verdict']}", flush=True)


if __name__ == "__main__":
    main()
