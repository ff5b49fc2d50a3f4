"""``cardtable match``: headless games between bots, with a summary for people or scripts."""

from __future__ import annotations

import json
import os
import secrets
import sys
from pathlib import Path
from typing import Any

import click

from ai.bots import parse_bot_spec
from ai.tournament import run, schedule, summarize
from cli.options import edition_option, game_argument, make_config, players_option, seed_option
from cli.words import plural
from engine.errors import ParseError

EXAMPLES = """
\b
Examples:
  cardtable match solo --players 4 --games 20 --seed 7
  cardtable match solo --edition anniversary --bots ismcts:fast,heuristic --games 50 --duplicate
  cardtable match scout --players 3 --games 10 --workers 2 --json --log-dir logs/
"""


@click.command(epilog=EXAMPLES)
@game_argument
@players_option
@edition_option
@click.option("--bots", default="random", show_default=True,
              help="One bot for every seat, or one per seat, comma-separated "
                   "(random, heuristic, ismcts:fast|normal|strong).")
@click.option("--games", "-g", type=click.IntRange(1, 1_000_000), default=10, show_default=True,
              help="How many deals to play (each a whole match).")
@seed_option
@click.option("--duplicate", is_flag=True, help="Replay every deal with the bots rotated through all seats.")
@click.option("--rotate/--no-rotate", default=True, show_default=True,
              help="Rotate the bots one seat per deal (without --duplicate).")
@click.option("--workers", "-w", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Processes to play games in parallel.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option("--log-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write each game's log there (replay with 'cardtable replay').")
def match(game: str, players: int, edition: str | None, bots: str, games: int, seed: int | None,
          duplicate: bool, rotate: bool, workers: int, as_json: bool, log_dir: Path | None) -> None:
    """Play GAME (solo or scout) between computer players, headless.

    The output depends only on the arguments (the seed included), except the time per move.
    """
    config = make_config(game, players, edition)
    specs = _bot_specs(bots, players)
    if seed is None:
        seed = secrets.randbelow(2**31)
        click.echo(f"seed: {seed}", err=True)
    if log_dir is not None:
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            problem = f"cannot create {log_dir}: {err.strerror}"
            raise click.BadParameter(problem, param_hint="--log-dir") from None
    plan = schedule(games, specs, duplicate, rotate)
    with click.progressbar(length=len(plan), label=config.describe(), file=sys.stderr) as bar:
        results = run(config, seed, plan, min(workers, os.cpu_count() or 1, len(plan)), log_dir, bar.update)
    report = {"seed": seed, "game": config.game, "config": config.to_dict(), "bots": specs,
              "duplicate": duplicate, "rotate": rotate, "games": results,
              "summary": {"games": len(results), "deals": games, "bots": summarize(results)}}
    click.echo(json.dumps(report, sort_keys=True) if as_json else _table(report))


def _bot_specs(bots: str, players: int) -> list[str]:
    specs = [b.strip() for b in bots.split(",") if b.strip()]
    if len(specs) == 1:
        specs *= players
    if len(specs) != players:
        raise click.BadParameter(f"give 1 bot or {players} bots, not {len(specs)}", param_hint="--bots")
    try:
        for spec in specs:
            parse_bot_spec(spec)
    except ParseError as err:
        raise click.BadParameter(str(err), param_hint="--bots") from None
    return specs


def _table(report: dict[str, Any]) -> str:
    summary = report["summary"]
    lines = [f"{report['game'].upper()} · {plural(summary['games'], 'game')} · seed {report['seed']}",
             f"{'bot':<16} {'seat-games':>10} {'win %':>7} {'95% interval':>15} {'mean score':>11} "
             f"{'95% interval':>17} {'ms/move':>8}"]
    for row in summary["bots"]:
        low, high = row["win_rate_ci"]
        slo, shi = row["mean_score_ci"]
        lines.append(f"{row['bot']:<16} {row['seat_games']:>10} {100 * row['win_rate']:>6.1f}% "
                     f"{f'{100 * low:.1f}-{100 * high:.1f}%':>15} {row['mean_score']:>11.1f} "
                     f"{f'{slo:.1f} to {shi:.1f}':>17} {row['ms_per_move']:>8.2f}")
    return "\n".join(lines)
