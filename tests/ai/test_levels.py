"""The search's levels: names and experimental budgets, how several trees and a value answer
decide, single-round games, and the ladder's measurement."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from cardtable.ai.bots import RandomBot, make_bot
from cardtable.ai.driver import play_match
from cardtable.ai.ismcts import LEVEL_SETTINGS, LEVELS, IsmctsBot, parse_level
from cardtable.ai.ladder import GAMES, run_step
from cardtable.engine.errors import ParseError
from cardtable.engine.match import Match
from cardtable.engine.scout import Config as ScoutConfig
from cardtable.engine.solo import Config as SoloConfig


def test_every_level_is_a_budget_and_each_step_up_thinks_more() -> None:
    budgets = [LEVELS[name] for name in ("fast", "normal", "strong")]
    assert budgets == sorted(budgets) and len(set(budgets)) == 3
    for name in LEVELS:
        assert parse_level(name) == (LEVELS[name], LEVEL_SETTINGS[name])


def test_an_experimental_level_is_a_budget_with_settings() -> None:
    assert parse_level("1500") == (1500, {})
    assert parse_level("3000+cpuct=1+trees=6+answer=value") == (
        3000, {"cpuct": 1.0, "trees": 6, "answer": "value"})
    assert parse_level("500+keys=cards+rollout=random") == (500, {"keys": "cards", "rollout": "random"})


def test_strong_reads_the_clues_in_scout_only() -> None:
    """``infer=scout``: SCOUT searches get the clues the bot read, SOLO searches none (nor the
    clue readers anything); ``infer=1`` reads them in both games."""
    for game, config in (("scout", ScoutConfig(players=4)), ("solo", SoloConfig.preset("anniversary", 4))):
        obs = Match(config, b"clues").observation(0)
        for level, reads in (("strong", game == "scout"), ("strong+infer=1", True),
                             ("strong+infer=0", False)):
            bot = IsmctsBot(b"clues", 0, level)
            bot.see(obs)
            options = bot._options(obs)[0]
            assert ("clues" in options) == reads and "infer" not in options, (game, level)


def test_a_named_level_takes_settings_after_it() -> None:
    """``strong+threads=2`` is strong's budget and settings, threads added; a setting it has is
    changed; the level's own table is left as it was."""
    iterations, settings = parse_level("strong+threads=2+reward_mode=0")
    assert iterations == LEVELS["strong"]
    assert settings == {**LEVEL_SETTINGS["strong"], "threads": 2, "reward_mode": 0}
    assert LEVEL_SETTINGS["strong"]["reward_mode"] == 1
    assert parse_level("fast+cpuct=1") == (LEVELS["fast"], {"cpuct": 1.0})


@pytest.mark.parametrize("level", ["fastest", "0", "500+colour=red", "500+cpuct=x", "500+answer=luck",
                                   "500+trees=0", "500+threads=0", "500+threads=999", "500+keys=colours",
                                   "500+rollout=greedy", "500+rollout_cap=-1", "500+opponents=all",
                                   "500+opp_temp=0", "500+infer=2", "500+leaf=oracle", "strong+root=lucky",
                                   "strong+depth=3"])
def test_a_bad_level_is_refused_in_one_line(level: str) -> None:
    with pytest.raises(ParseError) as err:
        make_bot(f"ismcts:{level}", b"seed", 0)
    assert "\n" not in str(err.value)


class Scripted:
    """Stands in for the search: each call answers the next scripted root statistics."""

    def __init__(self, runs: list[list[tuple[str, int, float]]]) -> None:
        self.runs = runs
        self.budgets: list[int] = []

    def __call__(self, *args: Any, iterations: int, **kwargs: Any) -> tuple[str, dict[str, Any]]:
        children = self.runs[len(self.budgets)]
        self.budgets.append(iterations)
        return max(children, key=lambda c: c[1])[0], {"children": children}


def scripted_bot(level: str, runs: list[list[tuple[str, int, float]]]) -> tuple[IsmctsBot, Scripted]:
    bot = IsmctsBot(b"seed", 0, level)
    script = Scripted(runs)
    bot._search = script  # type: ignore[method-assign]
    return bot, script


def test_several_trees_split_the_budget_and_sum_their_root_visits() -> None:
    runs = [[("a", 60, 0.1), ("b", 40, 0.3)], [("b", 70, 0.2), ("a", 30, 0.0)],
            [("a", 45, 0.1), ("b", 55, 0.1)]]
    bot, script = scripted_bot("300+trees=3", runs)
    obs = {"game": "scout", "config": {}}
    assert bot._run(obs, wait=False) == "b"  # b: 165 visits, a: 135, though a led two of the trees
    assert script.budgets == [100, 100, 100]


def _scout_position() -> tuple[dict[str, Any], list[Any]]:
    match = Match(ScoutConfig(players=4), b"threads")
    while match.state.to_move() is None or match.state.phase != "play":
        seat = next(s for s in range(4) if match.state.legal_actions(s))
        match.apply(seat, match.state.legal_actions(seat)[0])
    seat = match.state.to_move()
    return match.observation(seat), list(match.state.legal_actions(seat))


def test_threads_search_the_trees_at_once_and_answer_as_the_trees_alone() -> None:
    obs, legal = _scout_position()
    seat = obs["seat"]
    barrier = threading.Barrier(3, timeout=30)  # broken unless three searches run at the same time

    def recorded(bot: IsmctsBot, wait: bool) -> list[dict[str, Any]]:
        search, seen = bot._search, []

        def run(*args: Any, **kwargs: Any) -> Any:
            if wait:
                barrier.wait()
            text, stats = search(*args, **kwargs)
            seen.append(stats)
            return text, stats

        bot._search = run  # type: ignore[method-assign]
        return seen

    threaded, alone = IsmctsBot(b"seed", seat, "600+threads=3"), IsmctsBot(b"seed", seat, "600+trees=3")
    threaded_stats, alone_stats = recorded(threaded, True), recorded(alone, False)
    assert threaded.choose(obs, legal) == alone.choose(obs, legal)
    assert [s["iterations"] for s in threaded_stats] == [200] * 3
    key = lambda stats: str(stats["children"])  # noqa: E731
    assert sorted(map(key, threaded_stats)) == sorted(map(key, alone_stats))


def test_a_time_budget_with_threads_answers_legally_from_every_tree_and_keeps_its_word() -> None:
    """``0.2s+threads=2``: both trees search (iterations > 0) and the decision ends near its
    budget; the bound is loose on purpose (speed is measured in bench/ai.py --only deadlines)."""
    import time

    obs, legal = _scout_position()
    bot = IsmctsBot(b"seed", obs["seat"], "0.2s+threads=2")
    for _ in range(3):
        started = time.perf_counter()
        assert bot.choose(obs, legal) in legal
        assert time.perf_counter() - started < 1.0
        assert len(bot.last_stats["tree_iterations"]) == 2 and min(bot.last_stats["tree_iterations"]) > 0
    assert 0 <= bot.margin(0.2) <= 0.02


def test_a_forked_process_starts_its_own_helper_threads() -> None:
    """The helper threads are kept between decisions; a forked copy of the bot has none of
    them and starts its own (else its first threaded search would wait for ever)."""
    import os
    import time

    obs, legal = _scout_position()
    bot = IsmctsBot(b"seed", obs["seat"], "40+threads=2")
    assert bot.choose(obs, legal) in legal  # the helper thread runs
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        os._exit(0 if bot.choose(obs, legal) in legal else 1)
    waited = 0.0
    while (status := os.waitpid(pid, os.WNOHANG))[0] == 0 and waited < 60:
        time.sleep(0.05)
        waited += 0.05
    if status[0] == 0:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    assert status[0] == pid and os.waitstatus_to_exitcode(status[1]) == 0


class Deadlines:
    """Stands in for the search: records each call's deadline and iteration budget."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, int]] = []
        self.lock = threading.Lock()

    def __call__(self, *args: Any, iterations: int, deadline: float,
                 **kwargs: Any) -> tuple[str, dict[str, Any]]:
        with self.lock:
            self.calls.append((deadline, iterations))
        return "a", {"children": [("a", 1, 0.0)], "iterations": 1}


@pytest.mark.parametrize(("level", "waves"), [("1s+threads=2", [1, 1]), ("1s+trees=3", [1, 2, 3]),
                                              ("1s+trees=3+threads=2", [1, 1, 2, 2]),
                                              ("1s+trees=4+threads=2", [1, 1, 2, 2])])
def test_a_time_budget_is_one_deadline_for_the_trees_searched_at_once(level: str, waves: list[int]) -> None:
    """The trees searched at once share one deadline, set when the decision starts; more trees
    than threads split the budget (less the margin) into waves, the last ending at the budget."""
    bot = IsmctsBot(b"seed", 0, level)
    script = Deadlines()
    bot._search = script  # type: ignore[method-assign]
    bot._tails = [0.001] * 10 + [0.004, -0.2]  # a margin of 4 ms: the longest time past a deadline
    assert bot.margin(1.0) == 0.004
    started = bot._clock()
    bot._run({"game": "scout", "config": {}}, wait=False, started=started)
    ends = sorted(deadline - started for deadline, _ in script.calls)
    count = max(waves)
    expected = sorted(0.996 * wave / count for wave in waves[:len(ends)])
    assert ends == pytest.approx(expected) and all(iterations == 0 for _, iterations in script.calls)
    assert len(bot._tails) == 13 and bot._tails[-1] < 1.0  # this decision's time past its deadline
    bot._tails = [5.0]
    assert bot.margin(1.0) == 0.1  # at most a tenth of the budget


def test_a_value_answer_takes_the_best_mean_among_well_visited_moves() -> None:
    runs = [[("a", 900, 0.1), ("b", 95, 0.4), ("c", 5, 0.9)]]
    bot, _ = scripted_bot("1000+answer=value", runs)
    assert bot._run({"game": "scout", "config": {}}, wait=False) == "b"  # c has too few visits to trust
    plain, _ = scripted_bot("1000", [list(runs[0])])
    assert plain._run({"game": "scout", "config": {}}, wait=False) == "a"


def test_a_game_of_one_round_stops_after_it_and_names_its_best() -> None:
    config = ScoutConfig(players=3)
    match = Match(config, b"one round")
    result = play_match(match, [RandomBot(b"r", s) for s in range(3)], rounds=1)
    assert result.rounds == 1 and not match.is_over()
    best = max(result.scores)
    assert result.winners == [s for s in range(3) if result.scores[s] == best]


def test_the_ladder_measures_a_step_with_duplicate_deals() -> None:
    row = run_step(GAMES["scout"], "heuristic", "random", deals=6, workers=1, master=5, rounds=1)
    assert row["games"] == 24
    low, high = row["ci"]
    assert 0.25 < low <= row["win_rate"] <= high  # the heuristic climbs far above random
    assert row["ms_upper"] > 0 and row["ms_lower"] > 0


def test_the_ladder_plays_solo_in_whole_matches_and_scout_in_rounds_unless_told(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cardtable.ai import ladder

    seen: list[tuple[str, int]] = []

    def fake_step(config: Any, upper: str, lower: str, deals: int, workers: int, master: int,
                  rounds: int) -> dict[str, Any]:
        seen.append((config.game, rounds))
        return {"games": 4, "win_rate": 0.5, "ci": (0.3, 0.7), "ms_upper": 1.0, "ms_lower": 1.0}

    monkeypatch.setattr(ladder, "run_step", fake_step)
    lines: list[str] = []
    ladder.report(["solo-classic", "scout"], [("heuristic", "random")], 1, 1, 0, None, lines.append)
    assert seen == [("solo", 0), ("scout", 1)]
    assert "4 matches" in lines[2] and "4 rounds" in lines[3]
    seen.clear()
    ladder.report(["solo-classic", "scout"], [("heuristic", "random")], 1, 1, 0, 3, lines.append)
    assert seen == [("solo", 3), ("scout", 3)]


def test_cardtable_ladder_prints_the_step_and_refuses_bad_steps_in_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    from cardtable.cli.main import main

    with pytest.raises(SystemExit) as done:
        main(["ladder", "--games", "scout", "--steps", "heuristic/random", "--deals", "2", "--seed", "3"])
    out, _ = capsys.readouterr()
    assert done.value.code == 0
    assert "scout" in out and "heuristic vs random" in out and "parity 25%" in out
    assert "8 rounds" in out  # SCOUT's unit: single rounds, 2 deals x 4 rotations
    for bad in (["--steps", "fast"], ["--steps", "fastest/fast"], ["--games", "chess"],
                ["--rounds", "2", "--match"]):
        with pytest.raises(SystemExit) as done:
            main(["ladder", *bad])
        _, err = capsys.readouterr()
        assert done.value.code == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_compare_plays_two_levels_on_the_same_deals() -> None:
    """The same level twice plays the same games (a paired difference of exactly 0); two
    levels' difference is the difference of their win rates (equal seats in every deal)."""
    from cardtable.ai.ladder import compare

    same = compare("scout", "25", "25", "heuristic", deals=2, workers=1, master=5)
    assert same["difference"]["win_rate"] == 0.0
    assert same["first"]["win_rate"] == same["second"]["win_rate"]
    two = compare("scout", "25", "heuristic", "heuristic", deals=2, workers=1, master=5)
    gap = two["first"]["win_rate"] - two["second"]["win_rate"]
    assert two["difference"]["win_rate"] == pytest.approx(gap, abs=1e-3)
    assert two["second"]["win_rate"] == pytest.approx(0.25, abs=1e-3)  # four heuristics: parity


def test_compare_seats_as_many_players_as_asked(capsys: pytest.CaptureFixture[str]) -> None:
    """``--players 3``: three seats, three rotations, parity a third; a count the game does not
    allow is one line and exit 2."""
    from cardtable.ai.ladder import compare
    from cardtable.ai.ladder import main as ladder_main

    three = compare("scout", "heuristic", "heuristic", "heuristic", deals=2, workers=1, master=5, players=3)
    assert three["first"]["win_rate"] == pytest.approx(1 / 3, abs=1e-3)
    with pytest.raises(SystemExit) as done:
        ladder_main(["--game", "scout", "--first", "25", "--second", "25", "--players", "7"])
    err = capsys.readouterr().err
    assert done.value.code == 2 and "2 to 5 players" in err and "Traceback" not in err


def test_compare_on_a_local_ray_cluster_plays_the_same_games(capsys: pytest.CaptureFixture[str]) -> None:
    """``--ray``: the games as Ray tasks give the local figures (all but CPU times); an address
    where no cluster answers is one line and exit 2, before any game."""
    ray = pytest.importorskip("ray", reason="the 'ray' extra is not installed")
    from cardtable.ai.ladder import compare
    from cardtable.ai.ladder import main as ladder_main

    local = compare("scout", "25", "heuristic", "random", deals=2, workers=1, master=7)
    try:
        on_ray = compare("scout", "25", "heuristic", "random", deals=2, workers=2, master=7, ray="")
    finally:
        ray.shutdown()
    for key in ("first", "second"):
        assert on_ray[key]["win_rate"] == local[key]["win_rate"] and on_ray[key]["ci"] == local[key]["ci"]
    assert on_ray["difference"] == local["difference"]
    with pytest.raises(SystemExit) as done:
        ladder_main(["--game", "scout", "--first", "25", "--second", "25", "--ray", "127.0.0.1:1"])
    err = capsys.readouterr().err
    assert done.value.code == 2 and "no Ray cluster answers at 127.0.0.1:1" in err and "Traceback" not in err
