"""``cardtable match``: headless games between bots, with a summary for people or scripts."""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path
from typing import Any

import click

from ai.bots import make_bot, parse_bot_spec
from ai.driver import GameResult, play_match
from cli.options import edition_option, game_argument, make_config, players_option, seed_option
from engine.errors import ParseError
from engine.log import encode_header
from engine.match import Match, match_seed

EXAMPLES = """
\b
Examples:
  cardtable match solo --players 4 --games 20 --seed 7
  cardtable match solo --edition anniversary --bots random --games 5 --json
  cardtable match scout --players 3 --games 10 --log-dir logs/
"""


@click.command(epilog=EXAMPLES)
@game_argument
@players_option
@edition_option
@click.option("--bots", default="random", show_default=True,
              help="One bot for every seat, or one per seat, comma-separated.")
@click.option("--games", "-g", type=click.IntRange(1, 1_000_000), default=10, show_default=True,
              help="How many games (matches) to play.")
@seed_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option("--log-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write each game's log there (replay with 'cardtable replay').")
def match(game: str, players: int, edition: str | None, bots: str, games: int, seed: int | None,
          as_json: bool, log_dir: Path | None) -> None:
    """Play GAME (solo or scout) between computer players, headless."""
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
    results = []
    with click.progressbar(range(games), label=config.describe(), file=sys.stderr) as bar:
        for index in bar:
            results.append(_play_one(config, specs, match_seed(seed, index), index, log_dir))
    report = _report(seed, config, specs, results)
    if as_json:
        click.echo(json.dumps(report, sort_keys=True))
    else:
        click.echo(_table(report))


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


def _play_one(config: Any, specs: list[str], seed: bytes, index: int, log_dir: Path | None) -> dict[str, Any]:
    game = Match(config, seed)
    bots = [make_bot(spec, seed, seat) for seat, spec in enumerate(specs)]
    result: GameResult = play_match(game, bots)
    if log_dir is not None:
        _write_log(log_dir / f"game-{index:04d}.ctlog", config, seed, specs, result)
    return {"index": index, "seed": seed.decode(), "rounds": result.rounds, "actions": len(result.entries),
            "scores": result.scores, "winners": result.winners, "digest": result.digest}


def _write_log(path: Path, config: Any, seed: bytes, specs: list[str], result: GameResult) -> None:
    from engine.log import encode_entry

    game = Match(config, seed)
    with path.open("wb") as out:
        out.write(encode_header(game, {"bots": specs}))
        for index, (seat, action) in enumerate(result.entries):
            game.apply(seat, action)
            out.write(encode_entry(index, seat, action, game.digest()))


def _report(seed: int, config: Any, specs: list[str], games: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(specs)
    wins = [0.0] * n
    totals = [0] * n
    for g in games:
        for s in g["winners"]:
            wins[s] += 1 / len(g["winners"])
        for s, score in enumerate(g["scores"]):
            totals[s] += score
    seats = [{"seat": s, "bot": specs[s], "wins": round(wins[s], 3),
              "win_rate": round(wins[s] / len(games), 4), "mean_score": round(totals[s] / len(games), 2)}
             for s in range(n)]
    return {"seed": seed, "game": config.game, "config": config.to_dict(), "bots": specs,
            "games": games, "summary": {"games": len(games), "seats": seats}}


def _table(report: dict[str, Any]) -> str:
    summary = report["summary"]
    lines = [f"{report['game'].upper()} · {summary['games']} games · seed {report['seed']}",
             f"{'seat':>4}  {'bot':<16} {'wins':>7} {'win %':>7} {'mean score':>11}"]
    for row in summary["seats"]:
        lines.append(f"{row['seat']:>4}  {row['bot']:<16} {row['wins']:>7.2f} "
                     f"{100 * row['win_rate']:>6.1f}% {row['mean_score']:>11.1f}")
    return "\n".join(lines)
