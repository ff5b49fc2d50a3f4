"""The statistics respect the design: deals are the unit, duplicate deals are paired."""

from __future__ import annotations

import random
from typing import Any

from cardtable.ai.stats import pairs, rate_interval, summarize, t_quantile
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
