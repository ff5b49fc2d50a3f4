"""Ratings from a tournament's games: openskill's Plackett-Luce model, one rating per bot.

Every game is one ranked result (its seats ordered by final score, ties sharing a rank), fed
in schedule order, so the same games give the same ratings. A rating is ``mu`` with its
uncertainty ``sigma``; the table is ordered by ``mu - 3 sigma`` (openskill's ordinal), a
rating the bot very probably has at least.
"""

from __future__ import annotations

from typing import Any


def rate(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per bot: mu, sigma, ordinal and games, best first."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    games: dict[str, int] = {}
    for game in sorted(results, key=lambda g: int(g["index"])):
        bots, scores = game["bots"], game["scores"]
        sign = 1 if scores[game["winners"][0]] == max(scores) else -1  # SOLO penalty points: lower wins
        teams = [[ratings.setdefault(bot, model.rating(name=bot))] for bot in bots]
        ranks = [-sign * s for s in scores]
        for bot, (new,) in zip(bots, model.rate(teams, ranks=ranks), strict=True):
            ratings[bot] = new
            games[bot] = games.get(bot, 0) + 1
    rows = [{"bot": bot, "mu": round(r.mu, 3), "sigma": round(r.sigma, 3), "ordinal": round(r.ordinal(), 3),
             "games": games[bot]} for bot, r in ratings.items()]
    return sorted(rows, key=lambda row: (-row["ordinal"], row["bot"]))
