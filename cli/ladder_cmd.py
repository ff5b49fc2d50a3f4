"""``cardtable ladder``: each ismcts level against three of the level below (``ai/ladder.py``)."""

from __future__ import annotations

import click

from cardtable.ai.ladder import GAMES, STEPS, parse_steps, report
from cardtable.engine.errors import ParseError

EXAMPLES = """
\b
Examples (docs/ai.md, "the ladder": SCOUT 100 deals a step, SOLO 300; from minutes to hours of one core):
  cardtable ladder --games scout --deals 100 --seed 2043
  cardtable ladder --games solo-classic --steps strong/normal,normal/fast --deals 300 --seed 2045
  cardtable ladder --games scout --steps normal/fast --deals 50 --seed 7
  cardtable ladder --games solo-classic --steps 2000+answer=value/500,500/100 --rounds 4
"""


@click.command(epilog=EXAMPLES)
@click.option("--games", default=",".join(GAMES), show_default=True,
              help=f"Comma-separated, from {', '.join(GAMES)} (4 players each).")
@click.option("--steps", default=",".join(STEPS), show_default=True,
              help="Comma-separated UPPER/LOWER levels: fast, normal, strong, heuristic, random, or an "
                   "iteration budget with settings (1500, 3000+cpuct=1).")
@click.option("--deals", "-d", type=click.IntRange(1, 1_000_000), default=100, show_default=True,
              help="Duplicate deals a step, each played in the 4 rotations of the seats.")
@click.option("--workers", "-w", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Processes to play games in parallel.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=2026, show_default=True,
              help="Master seed of the deals.")
@click.option("--rounds", type=click.IntRange(1, 1000), default=None,
              help="Rounds a game (the best totals after them win; a longer game shows a small edge "
                   "more). Default: whole matches in SOLO, single rounds in SCOUT.")
@click.option("--match", "whole", is_flag=True, help="Play whole matches in every game.")
def ladder(games: str, steps: str, deals: int, workers: int, seed: int, rounds: int | None,
           whole: bool) -> None:
    """Does more thinking win more? Each step puts the UPPER level in one seat against three
    of the LOWER, on duplicate deals with rotated seats, and prints the upper level's win rate
    with its 95% interval clustered by deal (parity 25%), both levels' CPU ms per move and
    whether it climbs (its interval above parity; under 30 deals: too few games to tell)."""
    try:
        names, pairs = parse_steps(games, steps)
    except ParseError as err:
        raise click.UsageError(str(err)) from None
    if whole and rounds is not None:
        raise click.UsageError("give --rounds or --match, not both")
    report(names, pairs, deals, workers, seed, 0 if whole else rounds, lambda line: click.echo(line))
