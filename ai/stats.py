"""Statistics of a batch of games that respect how it was designed.

The seat-games of one deal are not independent (the same cards, and under ``--duplicate``
the same deal in every rotation), so the deal is the unit: a bot's win rate and mean score
are ratio estimates over deals with a cluster-robust variance (its sums per deal), and the
95% intervals use Student's t with deals - 1 degrees of freedom. A win rate's interval is
Wilson's, taken over the effective number of trials the clustered variance implies. Under
``--duplicate`` each bot's *advantage* is paired by deal: its mean result in the deal minus
the mean of the other bots' in the same deal, averaged over the deals played in every
rotation. Ties share a win.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from itertools import combinations
from statistics import NormalDist
from typing import Any

_Z = NormalDist().inv_cdf(0.975)


def t_quantile(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (inf for df < 1)."""
    if df < 1:
        return math.inf
    if df == 1:
        return 12.706204736174698
    if df == 2:
        return 4.302652729749464
    z = _Z  # Cornish-Fisher expansion: better than 1e-3 from df = 3 on
    return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))


def wilson(p: float, n: float, z: float = _Z) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``p`` observed over ``n`` trials."""
    if n <= 0 or math.isinf(z):
        return (0.0, 1.0)
    if math.isinf(n):
        return (p, p)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(max(0.0, p * (1 - p)) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def ratio_estimate(clusters: list[tuple[float, float]]) -> tuple[float, float]:
    """(sum of ys / sum of ms, its cluster-robust variance) over clusters ``(y, m)``."""
    total_y = sum(y for y, _ in clusters)
    total_m = sum(m for _, m in clusters)
    d = len(clusters)
    if total_m == 0:
        return (0.0, math.inf)
    est = total_y / total_m
    if d < 2:
        return (est, math.inf)
    residuals = sum((y - est * m) ** 2 for y, m in clusters)
    return (est, d / (d - 1) * residuals / total_m**2)


def rate_interval(clusters: list[tuple[float, float]],
                  every_seat: bool = False) -> tuple[float, float, float]:
    """A win rate with its clustered 95% interval: (rate, low, high). ``every_seat``: the bot
    held every seat of every game, so its rate is fixed by construction."""
    rate, var = ratio_estimate(clusters)
    z = t_quantile(len(clusters) - 1)
    if every_seat:
        low, high = rate, rate
    elif var == 0.0:
        low, high = wilson(rate, len(clusters), z)  # no spread seen: each deal one trial
    else:
        low, high = wilson(rate, rate * (1 - rate) / var, z)
    return (rate, low, high)


def mean_interval(clusters: list[tuple[float, float]]) -> tuple[float, float, float]:
    """A mean with its clustered 95% t interval: (mean, low, high)."""
    mean, var = ratio_estimate(clusters)
    half = t_quantile(len(clusters) - 1) * math.sqrt(var)
    return (mean, mean - half, mean + half)


def _by_deal(results: list[dict[str, Any]]) -> dict[tuple[int, int], list[dict[str, Any]]]:
    """The games of each deal (of each table, in a tournament)."""
    deals: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for g in results:
        deals.setdefault((g.get("table", 0), g["deal"]), []).append(g)
    return deals


def _seats(games: Iterable[dict[str, Any]], bot: str) -> Iterable[tuple[float, int, int]]:
    """(win share, score, seat) of ``bot`` in each seat it held in ``games``."""
    for g in games:
        share = 1 / len(g["winners"])
        for seat, name in enumerate(g["bots"]):
            if name == bot:
                yield (share if seat in g["winners"] else 0.0, g["scores"][seat], seat)


def _entrants(results: list[dict[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for g in results:
        seen.update(dict.fromkeys(g["bots"]))
    return list(seen)


def _complete_deals(results: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The deals played once in every rotation (the duplicate design), each with its games."""
    return [games for games in _by_deal(results).values()
            if len(games) > 1 and len({g["rotation"] for g in games}) == len(games[0]["bots"])]


def _deal_means(games: list[dict[str, Any]], bot: str) -> tuple[float, float]:
    seats = list(_seats(games, bot))
    return (sum(s[0] for s in seats) / len(seats), sum(s[1] for s in seats) / len(seats))


def _paired(deals: list[list[dict[str, Any]]], bot: str, others: list[str]) -> dict[str, Any] | None:
    """``bot``'s mean result minus its rivals', by deal, over the deals where they met."""
    wins, scores = [], []
    for games in deals:
        present = set(games[0]["bots"])
        rivals = [o for o in others if o in present]
        if bot not in present or not rivals:
            continue
        mine = _deal_means(games, bot)
        theirs = [_deal_means(games, o) for o in rivals]
        wins.append((mine[0] - sum(t[0] for t in theirs) / len(theirs), 1.0))
        scores.append((mine[1] - sum(t[1] for t in theirs) / len(theirs), 1.0))
    if not wins:
        return None
    w, wlo, whi = mean_interval(wins)
    s, slo, shi = mean_interval(scores)
    return {"deals": len(wins), "win_rate": _r(w, 4), "win_rate_ci": [_r(wlo, 4), _r(whi, 4)],
            "score": _r(s, 2), "score_ci": [_r(slo, 2), _r(shi, 2)]}


def _r(x: float, digits: int) -> float | None:
    return None if math.isinf(x) or math.isnan(x) else round(x, digits)


def summarize(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per bot: seat-games, deals, win rate and mean score with clustered 95% intervals, wall
    and CPU milliseconds per move, faults (and ``fault_examples``: each kind's first, from the
    earliest game, with its ``game`` and ``seat``); with complete duplicate deals, its paired
    ``advantage`` over the others."""
    deals = _by_deal(results)
    complete = _complete_deals(results)
    entrants = _entrants(results)
    out = []
    for bot in entrants:
        win_clusters, score_clusters = [], []
        seconds = cpu = 0.0
        moves = seat_games = 0
        faults: dict[str, int] = {}
        examples: dict[str, dict[str, Any]] = {}
        for games in deals.values():
            seats = list(_seats(games, bot))
            if not seats:
                continue
            win_clusters.append((sum(s[0] for s in seats), float(len(seats))))
            score_clusters.append((float(sum(s[1] for s in seats)), float(len(seats))))
            seat_games += len(seats)
            for g in games:
                for seat, name in enumerate(g["bots"]):
                    if name == bot:
                        seconds += g["seconds"][seat]
                        cpu += g.get("cpu", [0.0] * len(g["bots"]))[seat]
                        moves += g["moves"][seat]
                        for kind, count in (g.get("faults") or [{}] * len(g["bots"]))[seat].items():
                            faults[kind] = faults.get(kind, 0) + count
                        for kind, example in (g.get("fault_examples") or [{}] * len(g["bots"]))[seat].items():
                            first = examples.get(kind)
                            if first is None or (first["game"], first["seat"]) > (g["index"], seat):
                                examples[kind] = {**example, "game": g["index"], "seat": seat}
        every_seat = all(name == bot for g in results for name in g["bots"])
        rate, low, high = rate_interval(win_clusters, every_seat)
        mean, slo, shi = mean_interval(score_clusters)
        row: dict[str, Any] = {
            "bot": bot, "seat_games": seat_games, "deals": len(win_clusters), "win_rate": round(rate, 4),
            "win_rate_ci": [round(low, 4), round(high, 4)], "mean_score": round(mean, 2),
            "mean_score_ci": [_r(slo, 2), _r(shi, 2)],
            "ms_per_move": round(1000 * seconds / moves, 3) if moves else 0.0,
            "cpu_ms_per_move": round(1000 * cpu / moves, 3) if moves else 0.0,
            "faults": faults}
        if examples:
            row["fault_examples"] = {kind: examples[kind] for kind in sorted(examples)}
        advantage = _paired(complete, bot, [o for o in entrants if o != bot]) if complete else None
        if advantage is not None:
            row["advantage"] = advantage
        out.append(row)
    return out


def pairs(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Under --duplicate, each pair of bots: A's mean result minus B's, paired by deal."""
    complete = _complete_deals(results)
    if not complete:
        return []
    out = []
    for a, b in combinations(_entrants(results), 2):
        paired = _paired(complete, a, [b])
        if paired is not None:
            out.append({"bots": [a, b], **paired})
    return out
