"""``cardtable tournament``: the round robin's schedule, the ratings, the chart, bad arguments."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from cardtable.cli.tournament_cmd import rating_table
from tests.cli.test_match_cli import run


def test_a_round_robin_rotates_every_bot_through_tables_seats_and_deals(capsys: pytest.CaptureFixture[str],
                                                                        tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="--plot needs the 'plot' extra (matplotlib)")
    chart = tmp_path / "cup.png"
    code, out, err = run(capsys, "tournament", "scout", "--players", "3", "--deals", "2", "--seed", "6",
                         "--bots", "random,heuristic,b=random,me=examples/python_bot.py:SheddingBot",
                         "--json", "--plot", str(chart))
    assert code == 0, err
    report = json.loads(out)
    assert report["tables"] == 4 and len(report["games"]) == 4 * 2 * 3
    seats = Counter((bot, seat) for g in report["games"] for seat, bot in enumerate(g["bots"]))
    assert set(seats.values()) == {6}, "every bot sits in every seat equally often"
    assert {g["seed"] for g in report["games"]} == {"cardtable/6/0", "cardtable/6/1"}, "the same deals"
    ratings = {r["bot"]: r for r in report["summary"]["ratings"]}
    assert set(ratings) == {"random", "heuristic", "b", "me"}
    assert all(r["games"] == 18 and r["sigma"] > 0 for r in ratings.values())
    assert report["summary"]["ratings"][0]["bot"] == "heuristic"
    assert ratings["heuristic"]["ordinal"] > ratings["random"]["ordinal"]
    assert chart.read_bytes().startswith(b"\x89PNG")
    table = rating_table(report)
    assert table.splitlines()[0] == "SCOUT tournament · 4 tables · 24 games · seed 6"
    assert table.splitlines()[2].split()[:2] == ["1", "heuristic"]


def test_the_rating_table_says_too_few_games_to_tell_until_enough_deals_are_paired() -> None:
    from cardtable.ai.rating import rate
    from cardtable.ai.stats import MIN_DEALS, pairs, summarize
    from tests.ai.test_stats import a_wins, duplicate_games

    def table(deals: int) -> list[str]:
        results = duplicate_games(deals, a_wins)
        summary = {"games": len(results), "ratings": rate(results), "bots": summarize(results),
                   "pairs": pairs(results)}
        report = {"game": "scout", "seed": 1, "tables": 1, "summary": summary}
        return rating_table(report).splitlines()

    few, enough = table(MIN_DEALS - 1), table(MIN_DEALS)
    assert few[1].endswith("verdict vs field") and few[2].split()[1] == "a"
    assert all(line.endswith("too few games to tell") for line in few[2:6]), few
    assert enough[2].split()[1] == "a" and enough[2].endswith("ahead")
    assert all(line.endswith("behind") for line in enough[3:6]), enough
    assert f"a verdict from {MIN_DEALS} paired deals" in enough[-1]


@pytest.mark.parametrize("bots, fragment", [
    ("random,random,heuristic", "every bot must appear once"),
    ("random,heuristic", "give at least 3 bots for 3 players"),
    ("random,heuristic,nobody", "unknown bot 'nobody'"),
])
def test_bad_tournaments_are_one_line_errors(capsys: pytest.CaptureFixture[str], bots: str,
                                             fragment: str) -> None:
    code, out, err = run(capsys, "tournament", "scout", "--players", "3", "--bots", bots)
    assert code == 2 and out == "" and fragment in err and len(err.strip().splitlines()) == 1
