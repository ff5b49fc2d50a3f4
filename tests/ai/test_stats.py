"""The statistics respect the design: deals are the unit, duplicate deals are paired."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from cardtable.ai import ladder
from cardtable.ai.stats import (
    MIN_DEALS,
    TOO_FEW,
    bootstrap,
    pairs,
    rate_interval,
    summarize,
    t_quantile,
    tell,
)
from cardtable.ai.tournament import run, schedule
from cardtable.engine.scout import Config as ScoutConfig

IDENTICAL = ["a=random", "b=random", "c=random", "d=random"]


def rows(results: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {row["bot"]: row for row in summarize(results)}


def test_four_identical_bots_get_intervals_that_narrow_as_deals_grow() -> None:
    results = run(ScoutConfig(players=4), 12, schedule(40, IDENTICAL, duplicate=False, rotate=True))
    few, many = rows(results[:10]), rows(results)
    for table in (few, many):
        assert abs(sum(table[bot]["win_rate"] for bot in "abcd") - 1.0) < 1e-3
    for bot in "abcd":
        width = {n: t[bot]["win_rate_ci"][1] - t[bot]["win_rate_ci"][0] for n, t in ((10, few), (40, many))}
        assert width[40] < 0.75 * width[10], width
        assert many[bot]["deals"] == 40 and many[bot]["seat_games"] == 40


def test_the_interval_of_identical_bots_covers_parity_about_95_times_in_100() -> None:
    """Calibration over 400 simulated runs of 20 deals, four equal bots, a winner drawn at
    random (now and then a tie): each bot's interval must cover 25% close to 95% of the time."""
    rng = random.Random(5)
    covered = total = 0
    for _ in range(400):
        games = []
        for deal in range(20):
            winners = rng.sample(range(4), 2 if rng.random() < 0.1 else 1)
            games.append({"deal": deal, "rotation": deal % 4, "bots": list(IDENTICAL), "winners": winners,
                          "scores": [0] * 4, "seconds": [0.0] * 4, "moves": [1] * 4})
        for row in summarize(games):
            low, high = row["win_rate_ci"]
            covered += low < 0.25 < high
            total += 1
    assert 0.92 <= covered / total <= 0.985, covered / total


def test_one_bot_in_every_seat_has_its_win_rate_fixed_by_construction() -> None:
    results = run(ScoutConfig(players=4), 12, schedule(5, ["random"] * 4, duplicate=False, rotate=True))
    (row,) = summarize(results)
    assert row["win_rate"] == 0.25 and row["win_rate_ci"] == [0.25, 0.25]


def test_a_paired_comparison_finds_a_planted_weak_bot_the_plain_interval_misses() -> None:
    entries = ["weak=tests.ai.plugin_bots:SloppyHeuristic", "heuristic", "heuristic"]
    results = run(ScoutConfig(players=3), 3, schedule(6, entries, duplicate=True, rotate=True))
    table = rows(results)
    weak = table["weak"]
    assert weak["advantage"]["deals"] == 6
    assert weak["advantage"]["score_ci"][1] < 0 and weak["advantage"]["win_rate_ci"][1] < 0
    assert weak["advantage"]["verdict"] == TOO_FEW, "six deals are still too few to call it"
    assert table["heuristic"]["advantage"]["score_ci"][0] > 0
    low, high = weak["win_rate_ci"]
    assert low < 1 / 3 < high, "unpaired, six deals cannot tell the weak bot's win rate from parity"
    (pair,) = pairs(results)
    assert pair["bots"] == ["weak", "heuristic"] and pair["score_ci"][1] < 0


def test_clustered_intervals_by_hand() -> None:
    assert abs(t_quantile(10) - 2.228) < 2e-3 and abs(t_quantile(30) - 2.042) < 1e-3
    # two deals, each one win in four seat-games: fixed rate only if the bot held every seat
    assert rate_interval([(1.0, 4.0), (1.0, 4.0)], every_seat=True) == (0.25, 0.25, 0.25)
    rate, low, high = rate_interval([(1.0, 4.0), (1.0, 4.0)])
    assert rate == 0.25 and low < 0.1 and high > 0.5  # no spread seen: two deals are two trials
    # correlated seat-games in a deal widen the interval against counting them as independent
    clustered = rate_interval([(4.0, 4.0), (0.0, 4.0)] * 5)
    spread = rate_interval([(2.0, 4.0), (2.0, 4.0)] * 5 + [(4.0, 4.0), (0.0, 4.0)])
    assert clustered[2] - clustered[1] > spread[2] - spread[1]


Winner = Callable[[random.Random, int, list[str]], list[int]]


def duplicate_games(deals: int, winners: Winner, seed: int = 0,
                    bots: tuple[str, ...] = ("a", "b", "c", "d")) -> list[dict[str, Any]]:
    """Made-up duplicate games: every deal in every rotation of ``bots``; ``winners(rng, deal,
    seated)`` names the winning seats; a winner scores 100, the others 0 (the possible range
    of a score, so a points difference lies in [-100, 100] and a win-rate difference in [-1, 1])."""
    rng = random.Random(seed)
    games = []
    n = len(bots)
    for deal in range(deals):
        for rotation in range(n):
            seated = [bots[(seat + rotation) % n] for seat in range(n)]
            won = winners(rng, deal, seated)
            games.append({"index": len(games), "deal": deal, "rotation": rotation, "bots": seated,
                          "winners": won, "scores": [100 if s in won else 0 for s in range(n)],
                          "seconds": [0.0] * n, "moves": [1] * n})
    return games


def a_wins(rng: random.Random, deal: int, seated: list[str]) -> list[int]:
    return [seated.index("a")]


def a_loses(rng: random.Random, deal: int, seated: list[str]) -> list[int]:
    return [seated.index("b")]


def a_wins_deal_0_and_half_of_deal_1(rng: random.Random, deal: int, seated: list[str]) -> list[int]:
    """8 games: the paired win-rate difference +66.7 points whose t interval went from -3.6 to
    +4.9 (beyond +-1, what a difference of win rates can be)."""
    if deal == 0 or seated.index("a") in (0, 1):
        return [seated.index("a")]
    return [seated.index("b" if seated.index("a") == 2 else "c")]


def a_wins_60_percent(rng: random.Random, deal: int, seated: list[str]) -> list[int]:
    others = [seat for seat, bot in enumerate(seated) if bot != "a"]
    return [seated.index("a")] if rng.random() < 0.6 else [rng.choice(others)]


def anyone(rng: random.Random, deal: int, seated: list[str]) -> list[int]:
    return rng.sample(range(len(seated)), 2 if rng.random() < 0.1 else 1)


def inside(span: list[float | None], low: float, high: float) -> bool:
    return span[0] is not None and span[1] is not None and low <= span[0] <= span[1] <= high


@pytest.mark.parametrize("deals, winners", [
    (40, a_wins), (40, a_loses), (2, a_wins_deal_0_and_half_of_deal_1), (3, anyone), (1, anyone), (1, a_wins),
], ids=["all wins", "all losses", "8 games", "3 deals", "a single deal", "a single deal won"])
def test_intervals_of_extreme_data_stay_inside_what_is_possible(deals: int, winners: Winner) -> None:
    results = duplicate_games(deals, winners, seed=deals)
    for row in summarize(results):
        assert inside(row["win_rate_ci"], 0.0, 1.0), row
        assert row["win_rate_ci"][0] <= row["win_rate"] <= row["win_rate_ci"][1], row
        if deals > 1:
            assert inside(row["mean_score_ci"], 0.0, 100.0), row
        else:
            assert row["mean_score_ci"] == [None, None], "one deal shows no spread: n/a"
        for paired in (row["advantage"], *pairs(results)):
            assert inside(paired["win_rate_ci"], -1.0, 1.0), paired
            if deals > 1:
                assert inside(paired["score_ci"], -100.0, 100.0), paired
            else:
                assert paired["win_rate_ci"] == [-1.0, 1.0], "one deal: all a difference can be"
                assert paired["score_ci"] == [None, None]
            sign = (paired["win_rate"] > 0) - (paired["win_rate"] < 0)
            assert paired["verdict"] == (TOO_FEW if deals < MIN_DEALS else
                                         ["no clear difference", "ahead", "behind"][sign]), paired


def test_all_wins_and_all_losses_reach_the_bound_and_not_beyond() -> None:
    table = rows(duplicate_games(40, a_wins))
    assert table["a"]["win_rate"] == 1.0 and table["a"]["win_rate_ci"][1] == 1.0
    assert 0.5 < table["a"]["win_rate_ci"][0] < 1.0
    assert table["a"]["advantage"]["win_rate_ci"] == [1.0, 1.0]
    assert table["b"]["win_rate_ci"][0] == 0.0 and table["b"]["win_rate_ci"][1] < 0.2
    table = rows(duplicate_games(40, a_loses))
    assert table["a"]["win_rate_ci"][0] == 0.0 and table["a"]["win_rate_ci"][1] < 0.2
    assert table["a"]["advantage"]["win_rate_ci"] == [round(-1 / 3, 4)] * 2


def test_a_small_sample_is_too_few_games_to_tell_and_a_large_one_still_tells() -> None:
    few, enough = rows(duplicate_games(MIN_DEALS - 1, a_wins)), rows(duplicate_games(MIN_DEALS, a_wins))
    assert few["a"]["advantage"]["win_rate_ci"][0] > 0, "the interval alone would call it"
    assert few["a"]["advantage"]["verdict"] == TOO_FEW and few["b"]["advantage"]["verdict"] == TOO_FEW
    assert enough["a"]["advantage"]["verdict"] == "ahead" and enough["b"]["advantage"]["verdict"] == "behind"
    clear = duplicate_games(200, a_wins_60_percent, seed=1)
    table = rows(clear)
    assert table["a"]["win_rate_ci"][0] > 0.5 and table["a"]["advantage"]["verdict"] == "ahead"
    assert {table[b]["advantage"]["verdict"] for b in "bcd"} == {"behind"}
    assert [(p["bots"], p["verdict"]) for p in pairs(clear) if p["bots"][0] == "a"] == [
        (["a", b], "ahead") for b in "bcd"]
    even = rows(duplicate_games(200, anyone, seed=2))
    assert {even[b]["advantage"]["verdict"] for b in "abcd"} == {"no clear difference"}
    assert tell(MIN_DEALS - 1, 0.5, 0.9) == "too few" and tell(MIN_DEALS, 0.5, 0.9) == "above"
    assert tell(100, -0.9, -0.5) == "below" and tell(100, -0.1, 0.1) == "unclear"
    assert tell(100, None, None) == "too few"


def test_the_ladder_says_too_few_games_to_tell_below_the_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    assert ladder.climbs(8, 0.6, 0.9) == TOO_FEW
    assert ladder.climbs(MIN_DEALS, 0.26, 0.4) == "climbs"
    assert ladder.climbs(MIN_DEALS, 0.2, 0.4) == "does not climb"

    def step(ci: tuple[float, float]) -> Callable[..., dict[str, Any]]:
        return lambda *args: {"games": 4, "win_rate": sum(ci) / 2, "ci": ci, "ms_upper": 1.0, "ms_lower": 1.0}

    for deals, ci, verdict in [(2, (0.10, 0.20), TOO_FEW), (2, (0.60, 0.90), TOO_FEW),
                               (100, (0.60, 0.90), "climbs"), (100, (0.10, 0.30), "does not climb")]:
        monkeypatch.setattr(ladder, "run_step", step(ci))
        lines: list[str] = []
        ladder.report(["scout"], [("heuristic", "random")], deals, 1, 0, None, lines.append)
        assert lines[2].split("  (")[0].endswith(verdict), lines[2]
        assert ("too few games to tell" in lines[0]) == (deals < MIN_DEALS), lines[0]


def test_a_ladder_comparison_over_two_deals_stays_inside_and_says_too_few(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Two deals whose shares differ (0 and 25%): a t interval with one degree of freedom went
    from -146 to +171 points, for the first level's win rate and for the difference alike."""
    r = ladder.compare("scout", "heuristic", "random", "25", deals=2, workers=1, master=5)
    assert r["first"]["win_rate"] == 0.125 and r["difference"]["win_rate"] == 0.125, "the deals differ"
    for key in ("first", "second"):
        low, high = r[key]["ci"]
        assert 0.0 <= low <= r[key]["win_rate"] <= high <= 1.0, r[key]
    low, high = r["difference"]["ci"]
    assert -1.0 <= low <= high <= 1.0 and r["difference"]["verdict"] == TOO_FEW
    ladder.main(["--game", "scout", "--first", "heuristic", "--second", "random", "--lower", "random",
                 "--deals", "2", "--seed", "3"])
    assert capsys.readouterr().out.rstrip().endswith(": too few games to tell")


def test_paired_and_mean_score_intervals_shrink_with_more_deals() -> None:
    width: dict[int, dict[str, float]] = {}
    for deals in (10, 40, 160):
        table = rows(duplicate_games(deals, anyone, seed=deals))
        adv = table["a"]["advantage"]
        width[deals] = {"win": adv["win_rate_ci"][1] - adv["win_rate_ci"][0],
                        "score": adv["score_ci"][1] - adv["score_ci"][0],
                        "mean score": table["a"]["mean_score_ci"][1] - table["a"]["mean_score_ci"][0],
                        "win rate": table["a"]["win_rate_ci"][1] - table["a"]["win_rate_ci"][0]}
    for key in width[10]:
        assert width[40][key] < 0.75 * width[10][key] and width[160][key] < 0.75 * width[40][key], width


def test_the_bootstrap_gives_the_same_numbers_whatever_the_order_of_the_games() -> None:
    results = duplicate_games(40, a_wins_60_percent, seed=3)
    shuffled = list(results)
    random.Random(4).shuffle(shuffled)
    once, again, mixed = summarize(results), summarize(results), {r["bot"]: r for r in summarize(shuffled)}
    assert once == again
    for row in once:
        for key in ("win_rate_ci", "mean_score_ci", "advantage"):
            assert row[key] == mixed[row["bot"]][key]
    assert pairs(results) == pairs(shuffled)


def test_the_paired_bootstrap_covers_the_true_difference_about_95_times_in_100() -> None:
    """400 simulated runs of 30 deals whose paired differences average 0: the interval must
    cover 0 close to 95% of the time (a percentile taken at the wrong rank, or resampling that
    is not with replacement, misses this)."""
    rng = random.Random(6)
    values = [-1.0, -1 / 3, 0.0, 0.0, 1 / 3, 1.0]
    covered = 0
    for _ in range(400):
        ((_, low, high),) = bootstrap([(1.0, rng.choice(values)) for _ in range(30)])
        covered += low <= 0.0 <= high
    assert 0.92 <= covered / 400 <= 0.985, covered / 400


def test_the_bootstrap_by_hand() -> None:
    assert bootstrap([(1.0, 0.5)]) == [(0.5, float("-inf"), float("inf"))]  # one deal: no spread
    ((mean, low, high),) = bootstrap([(1.0, -1.0), (1.0, 1.0), (1.0, 1.0)])
    assert mean == pytest.approx(1 / 3) and (low, high) == (-1.0, 1.0), "three deals: their extremes"
    # four deals: all four resampled as the lost one happens 1 time in 256, below the plain 2.5%;
    # the expanded percentiles still reach it, as a t interval would
    ((mean, low, high),) = bootstrap([(1.0, 0.0), (1.0, 1.0), (1.0, 1.0), (1.0, 1.0)])
    assert mean == 0.75 and (low, high) == (0.0, 1.0)
    # clusters of unequal size: a ratio of sums, its interval within the deals' own ratios
    ((mean, low, high), (score, slo, shi)) = bootstrap([(2.0, 1.0, 10.0), (4.0, 1.0, 60.0)] * 20)
    assert mean == pytest.approx(1 / 3) and 0.25 <= low < mean < high <= 0.5
    assert score == pytest.approx(70 / 6) and 5.0 <= slo < score < shi <= 15.0
