"""``cardtable tournament``: a round robin between bots, with ratings and a chart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from cardtable.ai.rating import rate
from cardtable.ai.stats import MIN_DEALS, TOO_FEW, pairs
from cardtable.ai.tournament import Task, round_robin, split_entry, summarize
from cardtable.cli.match_cmd import (
    check_entries,
    check_ray,
    make_log_dir,
    resumed_seed,
    run_batch,
    stop_if_interrupted,
)
from cardtable.cli.options import (
    bot_time_option,
    edition_option,
    game_argument,
    make_config,
    out_option,
    parse_rules,
    players_option,
    ray_option,
    resume_option,
    rule_option,
    seed_option,
)
from cardtable.cli.words import plural

EXAMPLES = """
\b
Examples:
  cardtable tournament scout --players 3 \\
      --bots random,heuristic,ismcts:fast,me=examples/python_bot.py:SheddingBot
  cardtable tournament solo --edition anniversary --bots heuristic,ismcts:fast,ismcts:normal --players 3 \\
      --deals 200 --workers 2 --out cup.jsonl --plot cup.png
"""


@click.command(epilog=EXAMPLES)
@game_argument
@players_option
@edition_option
@click.option("--bots", required=True,
              help="The bots taking part, comma-separated, at least as many as --players (names as in "
                   "'cardtable match --bots'; LABEL=BOT names one).")
@click.option("--deals", "-d", type=click.IntRange(1, 1_000_000), default=10, show_default=True,
              help="Deals every table plays, each in every rotation of its bots through the seats.")
@seed_option
@click.option("--workers", "-w", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Processes to play games in parallel.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option("--log-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write each game's log there (replay with 'cardtable replay').")
@click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE.png",
              help="Draw the ratings and win rates with their intervals (needs 'cardtable[plot]').")
@out_option
@resume_option
@bot_time_option
@ray_option
@rule_option
def tournament(game: str, players: int, edition: str | None, bots: str, deals: int, seed: int | None,
               workers: int, as_json: bool, log_dir: Path | None, plot: Path | None, out: Path | None,
               resume: bool, bot_time: float, ray_address: str | None, rules: tuple[str, ...]) -> None:
    """A round robin of GAME (solo or scout): every table of --players of the bots plays the
    same deals, each in every seat rotation; prints a rating table (openskill) with uncertainties.

    With as many bots as players there is one table. Ctrl-C stops at once and prints the
    ratings of the games finished; --out and --resume work as for 'cardtable match'.
    """
    config = make_config(game, players, edition, **parse_rules(rules))
    check_ray(ray_address)
    entries = [b.strip() for b in bots.split(",") if b.strip()]
    labels = [split_entry(e)[0] for e in entries]
    if len(set(labels)) != len(labels):
        raise click.BadParameter("every bot must appear once (give LABEL=BOT to enter one twice)",
                                 param_hint="--bots")
    if len(entries) < players:
        raise click.BadParameter(f"give at least {players} bots for {players} players", param_hint="--bots")
    check_entries(entries, game)
    if plot is not None:
        _check_matplotlib()
    seed = resumed_seed(seed, out, resume)
    make_log_dir(log_dir)
    plan = round_robin(deals, entries, players)
    header = {"seed": seed, "game": config.game, "config": config.to_dict(), "bots": entries, "deals": deals,
              "tournament": True}
    where = None if log_dir is None else str(log_dir)
    tasks = [Task(config.to_dict(), seed, g, where, bot_time) for g in plan]
    results, interrupted = run_batch(tasks, header, out, resume, workers, ray_address, config.describe())
    report: dict[str, Any] = {key: header[key] for key in ("seed", "game", "config", "bots")}
    report["tables"] = len({g.table for g in plan})
    report["games"] = results
    report["summary"] = {"games": len(results), "deals": deals, "ratings": rate(results) if results else [],
                         "bots": summarize(results), "pairs": pairs(results)}
    if interrupted:
        report["interrupted"] = True
    click.echo(json.dumps(report, sort_keys=True) if as_json else rating_table(report))
    if plot is not None and results:
        draw(report, plot)
    stop_if_interrupted(interrupted, len(results), len(plan), out)


def rating_table(report: dict[str, Any]) -> str:
    summary = report["summary"]
    rows = {row["bot"]: row for row in summary["bots"]}
    w = max([12, *(len(r["bot"]) for r in summary["ratings"])])
    partial = " (interrupted)" if report.get("interrupted") else ""
    tables = f"{report['tables']} table{'s' if report['tables'] != 1 else ''}"
    lines = [f"{report['game'].upper()} tournament · {tables} · {plural(summary['games'], 'game')} · "
             f"seed {report['seed']}{partial}",
             f"{'rank':>4} {'bot':<{w}} {'rating':>7} {'± 3σ':>6} {'games':>6} {'win %':>7} "
             f"{'95% interval':>15} {'vs field':>9} {'ms/move':>8}  verdict vs field"]
    for rank, rating in enumerate(summary["ratings"], 1):
        row = rows[rating["bot"]]
        low, high = row["win_rate_ci"]
        adv = row.get("advantage")
        field = f"{100 * adv['win_rate']:+.1f}" if adv else "n/a"
        verdict = adv["verdict"] if adv else TOO_FEW
        lines.append(f"{rank:>4} {rating['bot']:<{w}} {rating['mu']:>7.2f} {3 * rating['sigma']:>6.2f} "
                     f"{rating['games']:>6} {100 * row['win_rate']:>6.1f}% "
                     f"{f'{100 * low:.1f}-{100 * high:.1f}%':>15} {field:>9} {row['ms_per_move']:>8.2f}  "
                     f"{verdict}")
    lines.append("rating: openskill Plackett-Luce mu (ordered by mu - 3σ); vs field: win-rate points over "
                 f"the bots met, paired by deal (a verdict from {MIN_DEALS} paired deals)")
    return "\n".join(lines)


def _check_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise click.BadParameter("drawing needs matplotlib: pip install 'cardtable[plot]'",
                                 param_hint="--plot") from None


def draw(report: dict[str, Any], path: Path) -> None:
    """Two panels: each bot's rating (mu ± 3 sigma) and its win rate with its 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ratings = report["summary"]["ratings"][::-1]
    rows = {row["bot"]: row for row in report["summary"]["bots"]}
    names = [r["bot"] for r in ratings]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 1.2 + 0.5 * len(names)), sharey=True)
    mus, spreads = [r["mu"] for r in ratings], [3 * r["sigma"] for r in ratings]
    left.errorbar(mus, names, xerr=spreads, fmt="o", capsize=4)
    left.set_xlabel("rating (mu ± 3 sigma)")
    rates = [100 * rows[n]["win_rate"] for n in names]
    spans = [[100 * rows[n]["win_rate"] - 100 * rows[n]["win_rate_ci"][0] for n in names],
             [100 * rows[n]["win_rate_ci"][1] - 100 * rows[n]["win_rate"] for n in names]]
    right.barh(names, rates, xerr=spans, capsize=4, color="tab:blue", alpha=0.7)
    right.axvline(100 / report["config"]["players"], color="grey", linestyle="--", label="parity")
    right.set_xlabel("win rate % (95% interval)")
    right.legend(loc="lower right")
    games = report["summary"]["games"]
    fig.suptitle(f"{report['game'].upper()} tournament, {games} games, seed {report['seed']}")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=100)
    except OSError as err:
        raise click.BadParameter(f"cannot write {path}: {err.strerror}", param_hint="--plot") from None
    finally:
        plt.close(fig)
