"""The review of a round (ai/review.py): a bad move is flagged and the search's own is not, only
the seat's observation goes into the search, the same arguments give the same review, and the
search's ``root_floor`` values every root move."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("cardtable.ai._search")

from cardtable.ai import review as review_mod  # noqa: E402
from cardtable.ai.bots import bot_seed, make_bot  # noqa: E402
from cardtable.ai.ismcts import IsmctsBot  # noqa: E402
from cardtable.ai.review import FLOOR, review_round, search_seed  # noqa: E402
from cardtable.engine.games import config_from_dict  # noqa: E402
from cardtable.engine.match import Match  # noqa: E402

SEED = b"review-test"
LEVEL = "normal"


def solo_round(pick: str | None) -> tuple[Any, list[tuple[int, str]], int]:
    """One SOLO round of heuristic bots (4 players), except that at seat 0's first decision with
    three moves or more it plays the move the search rates worst (``pick`` "worst") or best
    ("best"); the moves and that decision's step."""
    config = config_from_dict({"game": "solo", "players": 4})
    match = Match(config, SEED)
    bots = [make_bot("heuristic", SEED, s) for s in range(4)]
    rater = IsmctsBot(bot_seed(SEED, 0), 0, LEVEL)
    moves: list[tuple[int, str]] = []
    chosen = -1
    while match.round_no == 0 and not match.is_over():
        seat = match.to_move()
        assert seat is not None
        legal = match.legal_actions(seat)
        action = str(bots[seat].choose(match.observation(seat), legal))
        if seat == 0 and chosen < 0 and pick and len(legal) >= 3:
            obs = match.observation(0)
            rated = rater.rate(obs, False, search_seed(SEED, 0, len(moves), 0), FLOOR, len(legal) + 1)
            ranked = sorted(rated, key=lambda c: c[2])
            action = str(ranked[0][0] if pick == "worst" else rated[0][0])
            chosen = len(moves)
        match.apply(seat, action)
        moves.append((seat, action))
    return config, moves, chosen


def test_a_clearly_worse_move_is_flagged_with_its_cost() -> None:
    config, moves, step = solo_round("worst")
    result = review_round(config, SEED, moves, 0, [0], LEVEL)
    flags = {f.step: f for f in result.flags}
    assert step in flags, result
    flag = flags[step]
    assert flag.played == moves[step][1] and flag.better != flag.played
    assert flag.cost > result.threshold and flag.seat == 0
    assert flag.turn == step + 1  # the first round: the turn is the step from 1
    assert result.rated >= 1 and all(f.seat == 0 for f in result.flags)


def test_the_searchs_own_move_is_not_flagged() -> None:
    config, moves, step = solo_round("best")
    result = review_round(config, SEED, moves, 0, [0], LEVEL)
    assert step not in {f.step for f in result.flags}
    assert result.rated >= 1


def test_the_same_arguments_give_the_same_review() -> None:
    config, moves, _ = solo_round("worst")
    first = review_round(config, SEED, moves, 0, range(4), "fast")
    again = review_round(config, SEED, moves, 0, range(4), "fast")
    assert first == again and first.rated > 4


def test_only_the_seats_observation_goes_into_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every search the review runs is from the reviewed seat, on exactly what the engine shows
    that seat (its own hand, the others' hand sizes), never the whole state."""
    import cardtable.ai._search as compiled

    real = compiled.search
    seen: list[tuple[int, dict[str, Any]]] = []

    def spy(game: str, obs: dict[str, Any], config: dict[str, Any], seat: int, **kw: Any) -> Any:
        seen.append((seat, obs))
        return real(game, obs, config, seat, **kw)

    monkeypatch.setattr(compiled, "search", spy)
    config, moves, _ = solo_round(None)
    review_round(config, SEED, moves, 0, [2], "fast")
    match = Match(config, SEED)
    expected = []
    for seat, action in moves:
        if seat == 2:
            expected.append(match.observation(2))
        match.apply(seat, action)
    assert seen and {s for s, _ in seen} == {2}
    assert all(obs in expected for _, obs in seen)
    assert all(set(obs) == set(expected[0]) for _, obs in seen)


def test_root_floor_values_every_root_move() -> None:
    from cardtable.ai._search import search

    config = config_from_dict({"game": "scout", "players": 3})
    match = Match(config, SEED)
    seat = match.to_move()
    while seat is not None and "keep" in {str(a) for a in match.legal_actions(seat)}:
        match.apply(seat, "keep")  # every seat keeps its hand the way it was dealt
        seat = match.to_move()
    assert seat is not None
    obs = match.observation(seat)
    _, plain = search("scout", obs, obs["config"], seat, iterations=8, seed=5)
    _, floored = search("scout", obs, obs["config"], seat, iterations=8 + 3 * 40, seed=5, root_floor=3)
    assert len(floored["children"]) > len(plain["children"])  # PUCT alone leaves moves unvisited
    assert all(visits >= 3 for _, visits, _ in floored["children"])


def test_a_time_budget_or_another_bot_is_not_a_review_level() -> None:
    from cardtable.engine.errors import ParseError

    assert review_mod.review_level("ismcts:fast") == "fast"
    assert review_mod.review_level("1500+cpuct=1") == "1500+cpuct=1"
    for level in ("1s", "ismcts:0.5s", "heuristic", "nonsense"):
        with pytest.raises(ParseError):
            review_mod.review_level(level)
    for level in ("learned", "ismcts:learned"):  # plays the policy alone: there is no search to compare
        with pytest.raises(ParseError, match="does not search") as err:
            review_mod.review_level(level)
        assert "learned" not in str(err.value).split(":", 1)[1]
