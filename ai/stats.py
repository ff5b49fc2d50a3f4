"""Statistics of a batch of games that respect how it was designed, and stay inside what is possible.

The seat-games of one deal are not independent (the same cards, and under ``--duplicate``
the same deal in every rotation), so the deal is the unit. A bot's win rate is a ratio
estimate over deals with a cluster-robust variance (its sums per deal), and its 95% interval
is Wilson's score interval taken over the effective number of trials that clustered variance
implies (with Student's t quantile for deals - 1 degrees of freedom): it never leaves [0, 1].
A mean score's interval, and under ``--duplicate`` each *paired* figure (a bot's mean result
in a deal minus the mean of the other bots' in the same deal, over the deals played in every
rotation: the win-rate difference, in [-1, 1], and the points difference), is a percentile
bootstrap that resamples whole deals (``RESAMPLES`` resamples from the fixed seed ``SEED``,
the deals taken in a fixed order, so the same games give the same numbers; over few deals
its percentiles reach further out, Hesterberg's expanded percentiles): a resampled mean is a
mean of deals that happened, so the interval stays within what the deals span, never beyond
what is possible. No interval is clipped to a range. Ties share a win.

A bootstrap over a handful of deals cannot see spread it has not sampled (three deals all
won give [+1, +1]), and no interval over so few deals is to be trusted: below ``MIN_DEALS``
deals ``tell`` answers "too few", and the reports say "too few games to tell" instead of a
verdict (docs/bots.md).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from itertools import combinations
from statistics import NormalDist
from typing import Any

_Z = NormalDist().inv_cdf(0.975)

MIN_DEALS = 30
"""Fewer deals than this (paired deals under ``--duplicate``, deals a ladder step) are too few
to tell: the usual rule of thumb for a mean over deals to be near normal, and where the
bootstrap's expanded percentiles are nearly the plain ones (tails of 1.9% against 2.5%)."""
TOO_FEW = "too few games to tell"
RESAMPLES = 2000
"""Bootstrap resamples: the interval's ends move by about 3% of its half-width from one seed
to another, and one seed is used (``SEED``), so the same games always give the same ends."""
SEED = "cardtable/stats/bootstrap"


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
    """A mean with its clustered 95% t interval: (mean, low, high). Unbounded (over a few
    deals it can pass what is possible): the summaries use ``bootstrap`` instead."""
    mean, var = ratio_estimate(clusters)
    half = t_quantile(len(clusters) - 1) * math.sqrt(var)
    return (mean, mean - half, mean + half)


def bootstrap(clusters: Sequence[tuple[float, ...]]) -> list[tuple[float, float, float]]:
    """Deal-clustered percentile bootstrap: ``clusters`` are ``(m, y_1, ..., y_k)`` per deal
    (``m`` seat-games, ``y_j`` their sum of figure j; m = 1 for a paired difference), and for
    each figure j: (sum of y_j / sum of m, low, high), percentiles of that ratio over
    ``RESAMPLES`` resamples of the deals with replacement (the same resampled deals for every
    figure). Deterministic: the deals are sorted, the generator seeded with ``SEED``.

    The percentiles are Hesterberg's *expanded* ones: the tails at the normal probability of
    sqrt(d / (d - 1)) times Student's t quantile for d - 1 degrees of freedom, d the deals. Over
    many deals that is the plain 2.5th and 97.5th percentiles; over a few, where resampling
    sees too little spread, it reaches out as far as a t interval would (three deals: about
    the smallest and the largest resampled mean).

    A resampled ratio is a weighted mean of the deals' own ratios, so the interval lies within
    [smallest, largest] of them, inside whatever range the figure can take (a win-rate
    difference in [-1, 1]); nothing is clipped (the ends are only kept there against float
    rounding). With fewer than 2 deals there is no spread to resample: the interval is
    infinite (reports print n/a; a caller that knows the figure's range may give that)."""
    if not clusters:
        return []
    ordered = sorted(clusters)
    k = len(ordered[0]) - 1
    total_m = sum(c[0] for c in ordered)
    estimates = [sum(c[j + 1] for c in ordered) / total_m for j in range(k)]
    if len(ordered) < 2:
        return [(e, -math.inf, math.inf) for e in estimates]
    spans = [(min(r), max(r)) for r in ([c[j + 1] / c[0] for c in ordered] for j in range(k))]
    if all(low == high for low, high in spans):  # every deal alike: no resample differs
        return [(e, low, high) for e, (low, high) in zip(estimates, spans, strict=True)]
    d = len(ordered)
    columns = list(zip(*ordered, strict=True))
    ms = columns[0]
    same_m = all(m == ms[0] for m in ms)
    rng = random.Random(SEED)
    rows = range(d)
    draws: list[list[float]] = [[] for _ in range(k)]
    if k == 1 and same_m:  # the same resamples, twice as fast: choices picks as from rows
        draws[0] = [sum(rng.choices(columns[1], k=d)) / (d * ms[0]) for _ in range(RESAMPLES)]
    else:
        for _ in range(RESAMPLES):
            picked = rng.choices(rows, k=d)
            m = d * ms[0] if same_m else sum(map(ms.__getitem__, picked))
            for j in range(k):
                draws[j].append(sum(map(columns[j + 1].__getitem__, picked)) / m)
    tail = NormalDist().cdf(-math.sqrt(d / (d - 1)) * t_quantile(d - 1))  # 0.025 for many deals
    cut = round(tail * (RESAMPLES - 1))
    out = []
    for values, estimate, (least, most) in zip(draws, estimates, spans, strict=True):
        values.sort()
        out.append((estimate, max(least, values[cut]), min(most, values[RESAMPLES - 1 - cut])))
    return out


def tell(deals: int, low: float | None, high: float | None, parity: float = 0.0) -> str:
    """What an interval over ``deals`` deals says about ``parity``: "too few" (fewer than
    ``MIN_DEALS`` deals, or no interval), "above" (its low end above parity), "below" (its
    high end below) or "unclear" (it covers parity)."""
    if deals < MIN_DEALS or low is None or high is None or math.isinf(low) or math.isinf(high):
        return "too few"
    return "above" if low > parity else "below" if high < parity else "unclear"


VERDICTS = {"too few": TOO_FEW, "above": "ahead", "below": "behind", "unclear": "no clear difference"}
"""A paired win-rate difference's verdict (``tell`` against 0) in words: the ``verdict`` of
``advantage`` and ``pairs``."""


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
    """``bot``'s mean result minus its rivals', by deal, over the deals where they met: each
    difference with its deal-bootstrap interval, and the win-rate difference's verdict."""
    paired = []
    for games in deals:
        present = set(games[0]["bots"])
        rivals = [o for o in others if o in present]
        if bot not in present or not rivals:
            continue
        mine = _deal_means(games, bot)
        theirs = [_deal_means(games, o) for o in rivals]
        paired.append((1.0, mine[0] - sum(t[0] for t in theirs) / len(theirs),
                       mine[1] - sum(t[1] for t in theirs) / len(theirs)))
    if not paired:
        return None
    (w, wlo, whi), (s, slo, shi) = bootstrap(paired)
    if len(paired) < 2:  # a win-rate difference lies in [-1, 1], all that one deal says; a
        wlo, whi = -1.0, 1.0  # points difference has no known bounds: no interval (n/a)
    return {"deals": len(paired), "win_rate": _r(w, 4), "win_rate_ci": [_r(wlo, 4), _r(whi, 4)],
            "score": _r(s, 2), "score_ci": [_r(slo, 2), _r(shi, 2)],
            "verdict": VERDICTS[tell(len(paired), wlo, whi)]}


def _r(x: float, digits: int) -> float | None:
    return None if math.isinf(x) or math.isnan(x) else round(x, digits)


def summarize(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per bot: seat-games, deals, win rate (Wilson over the clustered effective trials) and
    mean score (a deal bootstrap) with their 95% intervals, wall and CPU milliseconds per
    move, faults (and ``fault_examples``: each kind's first, from the earliest game, with its
    ``game`` and ``seat``); with complete duplicate deals, its paired ``advantage`` over the
    others (a deal bootstrap of each difference, and the win-rate difference's ``verdict``:
    ``VERDICTS``, "too few games to tell" under ``MIN_DEALS`` paired deals)."""
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
        ((mean, slo, shi),) = bootstrap([(m, y) for y, m in score_clusters])
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
    """Under --duplicate, each pair of bots: A's mean result minus B's, paired by deal (the
    fields of ``summarize``'s ``advantage``, ``verdict`` from A's side)."""
    complete = _complete_deals(results)
    if not complete:
        return []
    out = []
    for a, b in combinations(_entrants(results), 2):
        paired = _paired(complete, a, [b])
        if paired is not None:
            out.append({"bots": [a, b], **paired})
    return out
