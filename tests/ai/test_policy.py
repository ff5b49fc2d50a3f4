"""The search's rollout policies and priors are the ``heuristic`` bots, in C.

``scout_rollout_step`` / ``solo_rollout_step`` must play what ``ai/heuristic_scout.py`` and
``ai/heuristic_solo.py`` would (up to their random tie-breaks), and ``values()`` (the
search's prior, over the candidates) must rank the heuristic's choice first. Whole matches of
heuristic bots are played through the match driver; at every step the C policy is asked on
the mirror of the position and compared with what the driver got from the bots.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from cardtable.ai import heuristic_scout, heuristic_solo
from cardtable.ai._search import ScoutMirror, SoloMirror
from cardtable.ai.heuristic import HeuristicBot
from cardtable.engine.match import Match
from cardtable.engine.scout import Config as ScoutConfig
from cardtable.engine.solo import Config as SoloConfig
from cardtable.engine.solo.actions import Play


def driver_next(match: Match, bots: list[HeuristicBot]) -> tuple[int, Any]:
    """The (seat, action) ai.driver.play_match would apply next."""
    n = match.config.players
    waiting = match.to_move()
    assert waiting is not None
    actors = set(match.actors())
    for k in range(1, n + 1):
        seat = (waiting + k) % n
        if seat not in actors:
            continue
        legal = match.legal_actions(seat)
        obs = match.observation(seat)
        action = bots[seat].choose(obs, legal) if seat == waiting else bots[seat].react(obs, legal)
        if action is not None:
            return seat, action
    raise AssertionError("nobody acted")


@pytest.mark.parametrize(("players", "voluntary_pass"), [(2, False), (2, True), (3, False), (4, False),
                                                         (5, False)])
def test_scout_policy_is_the_heuristic(players: int, voluntary_pass: bool) -> None:
    """Also with the two-player option voluntary_pass (docs/rules.md 2.7.4), the pass valued alike."""
    rng = random.Random(players)
    steps = 0
    for game in range(4):
        seed = f"policy/scout/{players}/{game}".encode()
        match = Match(ScoutConfig(players=players, voluntary_pass=voluntary_pass), seed)
        bots = [HeuristicBot(seed, s) for s in range(players)]
        while not match.is_over():
            state = match.state
            seat, action = driver_next(match, bots)
            mirror = ScoutMirror.from_snapshot(state.snapshot())
            obs = match.observation(seat)
            legal = match.legal_actions(seat)
            view = heuristic_scout.View(obs)
            if state.phase == "turn_choice":  # every seat decides; the driver asks in its order
                values = mirror.values(seat)
                assert str(action) == ("flip" if values["flip"] > values["keep"] + 1e-9 else "keep")
            else:
                picked = mirror.rollout_action(rng.getrandbits(63))
                assert picked is not None and picked[0] == seat
                value = {str(a): heuristic_scout._value(view, a) for a in legal}
                assert value[picked[1]] >= max(value.values()) - 1e-9
                for text, v in mirror.values(seat).items():
                    assert v == pytest.approx(value[text], abs=1e-9)
            match.apply(seat, action)
            steps += 1
    assert steps > 100


SOLO_CASES = [("anniversary", 4, {}), ("classic", 4, {}), ("anniversary", 2, {}),
              ("anniversary", 6, {}), ("classic", 3, {"call": "window"}),
              ("anniversary", 5, {"mixed_stacking": True, "self_jump_in": True}),
              ("classic", 4, {"gifts": True, "protection": True})]  # docs/rules.md 1.8.14, with_play


@pytest.mark.parametrize(("edition", "players", "options"), SOLO_CASES,
                         ids=[f"{e}-{n}p-{'-'.join(o) or 'preset'}" for e, n, o in SOLO_CASES])
def test_solo_policy_is_the_heuristic(edition: str, players: int, options: dict[str, Any]) -> None:
    """Same seat, and the same action or one the heuristic scores the same. The policy builds
    only each card's best Gift (its two most valuable cards), so it may miss a Gift whose
    cards leave a hand that earns the +1 of the SOLO call: allowed a few times."""
    rng = random.Random(players)
    steps = differ = 0
    config = SoloConfig.preset(edition, players, threshold=150, pool=150, **options)
    for game in range(2):
        seed = f"policy/solo/{edition}/{players}/{game}".encode()
        match = Match(config, seed)
        bots = [HeuristicBot(seed, s) for s in range(players)]
        while not match.is_over() and steps < 2500:
            mirror = SoloMirror.from_snapshot(match.state.snapshot())
            picked = mirror.rollout_action(rng.getrandbits(63))
            seat, action = driver_next(match, bots)
            assert picked is not None and picked[0] == seat
            view = heuristic_solo.View(match.observation(seat))
            legal = {str(a): a for a in match.legal_actions(seat)}
            assert picked[1] in legal
            mine = legal[picked[1]]
            if picked[1] != str(action):
                assert isinstance(mine, Play) and isinstance(action, Play)
                gap = heuristic_solo._score(view, action) - heuristic_solo._score(view, mine)
                if abs(gap) > 1e-9:
                    assert mine.card.rank == "gift" and 0 < gap <= 1.0 + 1e-9
                    differ += 1
            if seat == match.to_move():
                values = mirror.values(seat)
                if str(action) in values:
                    best = max(values, key=values.get)
                    if values[best] > values[str(action)] + 1e-9:
                        top, chosen = legal[best], action
                        assert isinstance(top, Play) and isinstance(chosen, Play)
                        gap = heuristic_solo._score(view, top) - heuristic_solo._score(view, chosen)
                        assert abs(gap) < 1e-9
            match.apply(seat, action)
            steps += 1
    assert steps > 200 and differ <= 1 + steps // 100


def solo_position(config: SoloConfig, hands: list[str], script: list[tuple[int, str]]) -> Match:
    """A match whose round starts at a made-up position (top R3), after ``script``."""
    state = {"game": "solo", "config": config.to_dict(), "seed": "", "round": 0,
             "hands": [h.split() for h in hands], "draw": "B7 B8 B9 G5 G6 G7 G8".split(),
             "discard": ["R3"], "turn": 0}
    match = Match.from_snapshot({"config": config.to_dict(), "seed": "", "round": 0,
                                 "totals": config.initial_totals(), "round_scores": [], "state": state})
    for seat, text in script:
        match.apply(seat, text)
    return match


MISSES = [
    # docs/rules.md 1.8.15: the miss stands after seat 0's own R5; seat 0 is asked first and calls late
    (SoloConfig.preset("anniversary", 2), ["Rrev R5 G5 B5", "Y1 Y2 Y3 Y4"], [(0, "Rrev"), (0, "R5")],
     (0, "solo")),
    # docs/rules.md 1.8.14: the cancelled Swap leaves seat 0 its G1 uncalled; seat 2 is asked first
    (SoloConfig.preset("anniversary", 4), ["Rswap G1", "Y1 G7", "protB B5 B6", "Y4 G8"],
     [(0, "Rswap:2"), (2, "protB")], (2, "catch:0")),
    # docs/rules.md 1.8.17: the protector (seat 1) and seat 0 both missed; seat 2 catches the
    # protector first, then seat 0
    (SoloConfig.preset("anniversary", 3), ["Rswap B1", "protB G1", "Y1 Y2 Y3"],
     [(0, "Rswap:1"), (1, "protB"), (2, "catch:1")], (2, "catch:0")),
    # the protector (seat 2), asked first, has called late; it catches seat 0
    (SoloConfig.preset("anniversary", 3), ["Rgift B1", "Y1 Y2 Y3", "protB G1"],
     [(0, "Rgift:2:B1"), (2, "protB"), (2, "solo")], (2, "catch:0")),
]


@pytest.mark.parametrize(("config", "hands", "script", "expected"), MISSES)
def test_solo_policy_calls_or_catches_a_standing_miss(config: SoloConfig, hands: list[str],
                                                      script: list[tuple[int, str]],
                                                      expected: tuple[int, str]) -> None:
    match = solo_position(config, hands, script)
    bots = [HeuristicBot(b"miss", s) for s in range(config.players)]
    seat, action = driver_next(match, bots)
    assert (seat, str(action)) == expected
    assert SoloMirror.from_snapshot(match.state.snapshot()).rollout_action(1) == expected


def test_scout_policy_in_the_emptied_set_position_rule_2_6_1() -> None:
    """docs/rules.md 2.6.1: seat 0 showed 5-6, seat 1 scouted the 5; seat 2 holds nothing that beats
    the lone 6 and scouts it; policy and heuristic agree, and the round ends in both."""
    config = ScoutConfig(players=3)
    state = {"config": config.to_dict(), "seed": "", "round": 0, "phase": "play", "turn": 2,
             "flipped": [False] * 3, "hands": [["3/4"], ["5/1", "2/7", "3/8"], ["1/8", "4/2"]],
             "known": [[False], [True, False, False], [False, False]], "active": ["6/2"], "owner": 0,
             "captured": [[], [], []], "chips": [1, 0, 0], "scout_show": [False, False, False],
             "set_aside": [], "exempt": None}
    match = Match.from_snapshot({"config": config.to_dict(), "seed": "", "round": 0, "totals": [0] * 3,
                                 "round_scores": [], "state": state})
    bots = [HeuristicBot(b"empty", s) for s in range(3)]
    seat, action = driver_next(match, bots)
    mirror = ScoutMirror.from_snapshot(match.state.snapshot())
    view = heuristic_scout.View(match.observation(2))
    value = {str(a): heuristic_scout._value(view, a) for a in match.legal_actions(2)}
    picked = mirror.rollout_action(5)
    assert picked is not None and picked[0] == seat == 2 and str(action).startswith("scout:")
    assert value[picked[1]] == pytest.approx(value[str(action)])
    mirror.apply(2, picked[1])
    match.apply(2, picked[1])
    assert mirror.is_over() and mirror.points() == [2.0, -3.0, -3.0]  # seat 0 spared its 3/4
    assert match.snapshot()["round_scores"] == [[2, -3, -3]]  # the match went on to round 2
