"""``cardtable stats``: your results over the games kept in the config dir, by game and edition.

Your seat in a kept table is the one your identity key (of that config dir; ``play`` has its
own in ``play/``) sat down in, with the ``create`` or ``join`` entry it signed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from cardtable.cli.options import home_option
from cardtable.cli.table_logs import PLAY_DIR, KeptGame, kept_games
from cardtable.cli.words import plural


@click.command(epilog="\b\nExamples:\n  cardtable stats\n  cardtable stats --json")
@home_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def stats(home: Path | None, as_json: bool) -> None:
    """Your results across the games kept in the config dir: games finished, wins, mean final
    score, by game and edition."""
    from cardtable.p2p.identity import default_home

    where = home if home is not None else default_home()
    rows = results(where, kept_games(where))
    if as_json:
        click.echo(json.dumps({"home": str(where), "results": rows}, sort_keys=True))
        return
    if not rows:
        click.echo(f"no games of yours kept in {where} yet ('cardtable play solo' starts one)")
        return
    click.echo(f"{'game':<18} {'finished':>8} {'won':>5} {'win %':>6} {'mean score':>11} {'unfinished':>10}")
    for row in rows:
        rate = f"{100 * row['win_rate']:.0f}%" if row["finished"] else "-"
        mean = f"{row['mean_score']:.1f}" if row["finished"] else "-"
        click.echo(f"{row['game']:<18} {row['finished']:>8} {row['won']:>5} {rate:>6} {mean:>11} "
                   f"{row['unfinished']:>10}")
    total = sum(row["finished"] for row in rows)
    click.echo(f"{plural(total, 'finished game')}; SOLO classic scores a pool (high is good), "
               "the anniversary edition penalty points (low is good)")


def results(home: Path, games: list[KeptGame]) -> list[dict[str, Any]]:
    """Per game and edition (``SOLO classic``, ``SOLO anniversary``, ``SCOUT``): finished, won,
    win rate, mean final score of your seat, unfinished; every match a log holds counts (a
    rematch plays another match on the same table's log)."""
    keys = {kind: _key(home / PLAY_DIR if kind == "play" else home) for kind in ("play", "table")}
    by_game: dict[str, dict[str, Any]] = {}
    for game in games:
        table = game.log.table
        seat = _my_seat(game, keys[game.kind])
        if seat is None or not game.log.matches:
            continue
        cfg = table.config
        name = f"SOLO {cfg.edition}" if cfg.game == "solo" else "SCOUT"
        row = by_game.setdefault(name, {"game": name, "finished": 0, "won": 0, "unfinished": 0, "scores": []})
        for match in game.log.matches:  # a rematch plays another match on the same log, same seats
            if not match.is_over():
                row["unfinished"] += 1
                continue
            row["finished"] += 1
            row["won"] += seat in match.winners()
            row["scores"].append(match.scores()[seat])
    out = []
    for name in sorted(by_game):
        row = by_game[name]
        scores = row.pop("scores")
        row["win_rate"] = round(row["won"] / row["finished"], 4) if row["finished"] else None
        row["mean_score"] = round(sum(scores) / len(scores), 2) if scores else None
        out.append(row)
    return out


def _key(folder: Path) -> bytes | None:
    """The identity key kept in ``folder`` (None: there is none; none is created)."""
    if not (folder / "identity.key").is_file():
        return None
    from cardtable.p2p.identity import Identity

    try:
        return Identity.load_or_create(folder / "identity.key").key
    except (OSError, ValueError):
        return None


def _my_seat(game: KeptGame, key: bytes | None) -> int | None:
    if key is None:
        return None
    mine = [a.seat for a in game.log.applied if a.kind in ("create", "join") and a.ok and a.author == key]
    return mine[0] if mine else None
