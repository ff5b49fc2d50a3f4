"""Properties of random SCOUT rounds for 2..5 players (hypothesis draws seeds and choices)."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from cardtable.engine.errors import IllegalAction
from cardtable.engine.scout import (
    Config,
    Scout,
    ScoutShow,
    Show,
    State,
    TurnChoice,
    new_round,
    parse_action,
    parse_card,
)
from cardtable.engine.scout.cards import deck_in_play

MAX_ACTIONS = 5000  # random rounds take a few hundred actions at most in practice

rounds = st.sampled_from([2, 3, 4, 5]).flatmap(
    lambda n: st.tuples(st.just(n), st.binary(max_size=12), st.integers(0, n - 1), st.integers())
)


def all_pairs(snap: dict[str, Any]) -> list[tuple[int, int]]:
    """Every card in the snapshot (hands, table, captured, set aside) by identity."""
    texts = [t for h in snap["hands"] for t in h] + snap["active"] + snap["set_aside"]
    texts += [t for pile in snap["captured"] for t in pile]
    return sorted(parse_card(t).pair for t in texts)


def random_action(rng: random.Random, hand_size: int) -> Any:
    """A well-formed action, legal or not, with indices near the hand's range."""
    first = rng.randrange(hand_size + 2)
    show = Show(first, first + rng.choice((0, 0, 1, 2, 3)))
    scout = Scout(rng.choice("LR"), rng.randrange(1, 11), rng.randrange(hand_size + 2))
    return rng.choice([TurnChoice(rng.random() < 0.5), show, scout, ScoutShow(scout, show)])


def check_observations(s: State) -> None:
    snap = s.snapshot()
    hidden_aside = {parse_card(t).pair for t in snap["set_aside"]}
    for seat in range(s.config.players):
        obs = s.observation(seat)
        json.dumps(obs)  # plain data
        assert obs["hand"] == snap["hands"][seat]
        seen: set[tuple[int, int]] = set()
        for text in json.dumps(obs).split('"'):
            if "/" in text:
                seen.add(parse_card(text).pair)
        hidden = set(hidden_aside)
        for other in range(s.config.players):
            if other != seat:
                row = obs["known"][other]
                assert len(row) == len(snap["hands"][other]) == obs["hand_sizes"][other]
                pairs = zip(snap["hands"][other], snap["known"][other], strict=True)
                for i, (text, known) in enumerate(pairs):
                    assert row[i] == (text if known else None)
                    if not known:
                        hidden.add(parse_card(text).pair)
        assert not seen & hidden, "an observation leaks a hidden card"


@settings(max_examples=120, deadline=None)
@given(rounds)
def test_random_rounds_keep_every_invariant(case: tuple[int, bytes, int, int]) -> None:
    n, seed, round_no, choice_seed = case
    rng = random.Random(choice_seed)
    cfg = Config(n)
    s = new_round(cfg, seed, round_no)
    deck = deck_in_play(n)
    history: list[tuple[int, Any]] = []
    snap = s.snapshot()
    while not s.is_over():
        assert len(history) < MAX_ACTIONS
        actors = s.actors()
        assert actors, "a round that is not over always has someone to act"
        assert s.to_move() in actors
        seat = rng.choice(actors)
        legal = s.legal_actions(seat)
        assert legal and len(set(legal)) == len(legal)
        for a in legal:
            assert parse_action(str(a)) == a
        # seats that are not actors have nothing; their attempts are refused unchanged
        for other in range(n):
            if other not in actors:
                assert s.legal_actions(other) == []
                for a in rng.sample(legal, min(3, len(legal))):
                    try_illegal(s, other, a, snap)
        # well-formed actions not in the list are refused, those in it apply
        legal_set = set(legal)
        hand_size = len(snap["hands"][seat])
        for _ in range(6):
            a = random_action(rng, hand_size)
            if a in legal_set:
                State.from_snapshot(snap).apply(seat, a)
            else:
                try_illegal(s, seat, a, snap)
        for a in rng.sample(legal, min(4, len(legal))):
            State.from_snapshot(snap).apply(seat, a)
        action = rng.choice(legal)
        s.apply(seat, action)
        history.append((seat, action))
        snap = s.snapshot()
        assert all_pairs(snap) == deck, "cards are conserved"
        assert State.from_snapshot(snap).snapshot() == snap
        assert State.from_snapshot(json.loads(json.dumps(snap))).digest() == s.digest()
        if rng.random() < 0.1 or s.is_over():
            check_observations(s)
    event(f"{n} players")  # see --hypothesis-show-statistics
    event(f"{len(history) // 50 * 50}+ actions")
    assert s.actors() == [] and s.to_move() is None
    assert all(s.legal_actions(seat) == [] for seat in range(n))
    # replaying the same entries gives the same position
    t = new_round(cfg, seed, round_no)
    for seat, action in history:
        t.apply(seat, parse_action(str(action)))
    assert t.digest() == s.digest()


def try_illegal(s: State, seat: int, action: Any, snap: dict[str, Any]) -> None:
    try:
        s.apply(seat, action)
    except IllegalAction as e:
        assert str(e)
    else:
        raise AssertionError(f"seat {seat} could apply {action}, not in its legal list")
    assert s.snapshot() == snap


@settings(max_examples=40, deadline=None)
@given(rounds)
def test_deals_are_deterministic_and_complete(case: tuple[int, bytes, int, int]) -> None:
    n, seed, round_no, _ = case
    a, b = new_round(Config(n), seed, round_no), new_round(Config(n), seed, round_no)
    assert a.snapshot() == b.snapshot() and a.digest() == b.digest()
    snap = a.snapshot()
    assert all_pairs(snap) == deck_in_play(n)
    sizes = {2: 11, 3: 12, 4: 11, 5: 9}[n]
    assert [len(h) for h in snap["hands"]] == [sizes] * n
    assert a.actors() == list(range(n))
    assert a.to_move() == round_no % n


@settings(max_examples=25, deadline=None)
@given(st.binary(max_size=8), st.integers())
def test_scoring_adds_up(seed: bytes, choice_seed: int) -> None:
    """Round scores are captured + chips - hand (except the exempt seat), recomputed here."""
    rng = random.Random(choice_seed)
    n = rng.randint(2, 5)
    s = new_round(Config(n), seed, rng.randrange(n))
    steps = scouts = 0
    while not s.is_over():
        seat = s.actors()[0]
        action = rng.choice(s.legal_actions(seat))
        s.apply(seat, action)
        scouts += isinstance(action, (Scout, ScoutShow))
        steps += 1
        assert steps < MAX_ACTIONS
    snap = s.snapshot()
    expected = [
        len(snap["captured"][i]) + snap["chips"][i] - (0 if snap["exempt"] == i else len(snap["hands"][i]))
        for i in range(n)
    ]
    assert s.round_scores() == expected
    ended_by_empty_hand = any(len(h) == 0 for h in snap["hands"])
    assert ended_by_empty_hand != (snap["exempt"] is not None)
    # every scout moves one chip: to the set's owner (3-5 players) or back to the supply (2)
    assert sum(snap["chips"]) == (6 - scouts if n == 2 else scouts)
