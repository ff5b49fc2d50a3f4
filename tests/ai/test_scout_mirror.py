"""The C mirror of SCOUT (ai/_scout.pxi) against the engine: a differential test.

Seeded random rounds (2..5 players, both rounds of a 2-player match) and random odd positions
(huge hands, any active set) are played in ``engine.scout`` and in ``ScoutMirror`` side by side.
At every step, for every seat, the legal action sets and ``to_move()`` must agree; then the same
random (seat, action) is applied to both and the snapshots must be equal. Also: determinization
samples are consistent with the observation, candidates are legal, rollouts end, action keys are
injective, the uniform-random and rollout choosers pick legal moves.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardtable.ai._search import ScoutInfoSet, ScoutMirror
from cardtable.engine.scout import Config, Scout, ScoutShow, State, new_round, parse_card
from cardtable.engine.scout.cards import deck_in_play
from cardtable.engine.scout.state import strength

#: Snapshot keys a seat sees in full (a sample must reproduce them).
PUBLIC_KEYS = "round phase turn flipped active owner captured chips scout_show exempt".split()


def engine_legal(state: State, seat: int) -> list[str]:
    return [str(a) for a in state.legal_actions(seat)]


def pick_move(state: State, rng: random.Random) -> tuple[int, str]:
    """A random (seat, action): a random undecided seat in the turn-choice phase."""
    if state.phase == "turn_choice":
        seat = rng.choice([s for s, f in enumerate(state.flipped) if f is None])
    else:
        waiting = state.to_move()
        assert waiting is not None
        seat = waiting
    return seat, rng.choice(engine_legal(state, seat))


def expected_candidates(state: State, seat: int) -> list[str]:
    """The search's candidates by their rule (docs/ai.md), in legal order: scouts only at an end
    of the hand or next to a card the scouted one makes a set or a run with; Scout & Shows
    only with such insertions and a show that uses the scouted card or that only the smaller
    set lets through."""
    legal = state.legal_actions(seat)
    if state.phase != "play":
        return [str(a) for a in legal]
    ups = [c.up for c in state.hands[seat]]
    target = strength([c.up for c in state.active])

    def placed_well(scout: Scout) -> bool:
        p = scout.pos
        neighbours = [ups[q] for q in (p - 1, p) if 0 <= q < len(ups)]
        return p in (0, len(ups)) or any(abs(u - scout.value) <= 1 for u in neighbours)

    out = []
    for a in legal:
        if isinstance(a, Scout | ScoutShow) and not placed_well(a if isinstance(a, Scout) else a.scout):
            continue
        if isinstance(a, ScoutShow):
            p, show = a.scout.pos, a.show
            new = ups[:p] + [a.scout.value] + ups[p:]
            shown = strength(new[show.first : show.last + 1])
            uses_scouted = show.first <= p <= show.last
            if not uses_scouted and target is not None and shown is not None and shown > target:
                continue
        out.append(str(a))
    return out


def check_same(state: State, mirror: Any, rng: random.Random) -> None:
    """Everything observable agrees between the engine and the mirror at this position."""
    assert mirror.snapshot() == state.snapshot()
    assert mirror.to_move() == state.to_move()
    assert mirror.is_over() == state.is_over()
    n = state.players
    for seat in range(n):
        legal = engine_legal(state, seat)
        mine = mirror.legal(seat)
        assert mine == legal  # same set, and even the same order
        assert mirror.legal_count(seat) == len(legal)
        if state.phase == "play" and seat == state.to_move():  # the random draw: each move once
            assert sorted(mirror.random_moves(seat)) == sorted(legal)
        keys = mirror.legal_keys(seat)
        assert len(set(keys)) == len(keys)
        cands = mirror.candidates(seat)
        assert cands == expected_candidates(state, seat)  # and in the order of their keys
        assert bool(cands) == bool(legal)
    if state.is_over():
        scores = [float(x) for x in state.round_scores()]
        assert mirror.points() == scores
        assert mirror.evaluate() == scores
        assert mirror.random_action(0) is None
        assert mirror.rollout_action(0) is None
        return
    waiting = state.to_move()
    assert waiting is not None
    legal_waiting = set(engine_legal(state, waiting))
    if not legal_waiting:  # only in made-up positions: a 2-player seat stuck, round not ended
        assert mirror.random_action(0) is None and mirror.rollout_action(0) is None
        return
    for _ in range(2):
        for choose in (mirror.random_action, mirror.rollout_action):
            choice = choose(rng.getrandbits(64))
            assert choice is not None
            assert choice[0] == waiting and choice[1] in legal_waiting
    assert len(mirror.evaluate()) == n


def play_side_by_side(state: State, rng: random.Random, max_steps: int = 10_000,
                      played: list[str] | None = None) -> int:
    mirror = ScoutMirror.from_snapshot(state.snapshot())
    steps = 0
    while True:
        check_same(state, mirror, rng)
        waiting = state.to_move()
        if waiting is None or steps >= max_steps or not engine_legal(state, waiting):
            return steps
        seat, text = pick_move(state, rng)
        if rng.random() < 0.05:  # now and then: reload and copy
            mirror = ScoutMirror.from_snapshot(state.snapshot()).copy()
        state.apply(seat, state.legal_actions(seat)[engine_legal(state, seat).index(text)])
        mirror.apply(seat, text)
        if played is not None:
            played.append(text)
        steps += 1


def dealt(players: int, seed: int, round_no: int, voluntary_pass: bool = False) -> State:
    config = Config(players=players, voluntary_pass=voluntary_pass)
    return new_round(config, f"mirror/{seed}".encode(), round_no)


@pytest.mark.parametrize(("players", "voluntary_pass"), [(2, False), (2, True), (3, False), (4, False),
                                                         (5, False)])
def test_random_rounds_match_the_engine(players: int, voluntary_pass: bool) -> None:
    """Also with the two-player option voluntary_pass (docs/rules.md 2.7.4): random play passes."""
    rng = random.Random(players + 10 * voluntary_pass)
    rounds = 150 if players == 2 else 100
    played: list[str] = []
    for seed in range(rounds):
        round_no = seed % 2 if players == 2 else seed % players
        play_side_by_side(dealt(players, seed, round_no, voluntary_pass), rng, played=played)
    assert ("pass" in played) == voluntary_pass


def odd_snapshot(rng: random.Random, players: int) -> dict[str, Any]:
    """A legal-looking play position with random piles: hands of any size, any active set."""
    cards = [(a, b) if rng.random() < 0.5 else (b, a) for a, b in deck_in_play(players)]
    rng.shuffle(cards)
    active: list[tuple[int, int]] = []
    length = rng.choice([0, 1, 1, 2, 2, 3, 4])
    if length:
        step = rng.choice([0, 1, -1])
        v0 = rng.randrange(1, 11)
        want = [v0 + k * step for k in range(length)]
        if all(1 <= v <= 10 for v in want):
            for v in want:
                for i, (a, b) in enumerate(cards):
                    if v in (a, b):
                        active.append((v, b if a == v else a))
                        del cards[i]
                        break
            if len(active) != length:
                cards += active
                active = []
    aside: list[tuple[int, int]] = []
    if players == 2:
        aside, cards = cards[:22], cards[22:]
    big = rng.randrange(players)
    sizes = [1] * players
    rest = len(cards) - players
    sizes[big] += rng.randrange(rest + 1)
    left = len(cards) - sum(sizes)
    for seat in range(players):
        if seat != big and left:
            extra = rng.randrange(left + 1) if seat != players - 1 else left
            sizes[seat] += extra
            left -= extra
    hands: list[list[tuple[int, int]]] = []
    for size in sizes:
        hands.append(cards[:size])
        cards = cards[size:]
    captured: list[list[str]] = [[] for _ in range(players)]
    for c in cards:
        captured[rng.randrange(players)].append(f"{min(c)}/{max(c)}")
    turn = rng.randrange(players)
    # an empty table may still have an owner: a set scouted empty keeps it (docs/rules.md 2.6.1)
    others = [s for s in range(players) if s != turn]
    owner = None if not active and rng.random() < 0.5 else rng.choice(others)
    config: dict[str, Any] = {"game": "scout", "players": players}
    if players == 2 and rng.random() < 0.5:
        config["voluntary_pass"] = True
    return {
        "config": config,
        "seed": "00ff",
        "round": rng.randrange(players),
        "phase": "play",
        "turn": turn,
        "flipped": [rng.random() < 0.5 for _ in range(players)],
        "hands": [[f"{a}/{b}" for a, b in h] for h in hands],
        "known": [[rng.random() < 0.3 for _ in h] for h in hands],
        "active": [f"{a}/{b}" for a, b in active],
        "owner": owner,
        "captured": captured,
        "chips": [rng.randrange(4) for _ in range(players)],
        "scout_show": [players > 2 and rng.random() < 0.7 for _ in range(players)],
        "set_aside": [f"{a}/{b}" for a, b in aside],
        "exempt": None,
    }


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_odd_positions_match_the_engine(players: int) -> None:
    rng = random.Random(100 + players)
    biggest = 0
    for _ in range(120):
        state = State.from_snapshot(odd_snapshot(rng, players))
        biggest = max(biggest, max(len(h) for h in state.hands))
        play_side_by_side(state, rng, max_steps=25)
    assert biggest >= (18 if players == 2 else 30)  # 2 players deal only 22 cards a round


def test_a_set_scouted_empty_still_ends_the_round_rule_2_6_1() -> None:
    """The position of docs/rules.md 2.6.1 in the mirror: 5-6 shown, scouted from both ends."""
    state = State.from_snapshot({
        "config": {"game": "scout", "players": 3}, "seed": "", "round": 0, "phase": "play",
        "turn": 0, "flipped": [False] * 3, "hands": [["5/1", "6/2", "3/4"], ["2/7", "3/8"], ["9/8", "4/9"]],
        "known": [[False] * 3, [False] * 2, [False] * 2], "active": [], "owner": None,
        "captured": [[], [], []], "chips": [0, 0, 0], "scout_show": [True] * 3, "set_aside": [],
        "exempt": None,
    })
    mirror = ScoutMirror.from_snapshot(state.snapshot())
    for seat, text in [(0, "show:0-1"), (1, "scout:L:5@0"), (2, "scout:L:6@0")]:
        state.apply(seat, state.legal_actions(seat)[engine_legal(state, seat).index(text)])
        mirror.apply(seat, text)
        assert mirror.snapshot() == state.snapshot()
    assert mirror.is_over() and mirror.snapshot()["exempt"] == 0
    assert mirror.points() == [2.0, -3.0, -3.0]


def test_illegal_and_malformed_actions_raise_and_change_nothing() -> None:
    state = dealt(4, 1, 0)
    mirror = ScoutMirror.from_snapshot(state.snapshot())
    before = mirror.snapshot()
    for seat, text in [(0, "show:0"), (5, "flip"), (0, "nonsense"), (0, "show:3-1"), (0, "scout:L:3@0")]:
        with pytest.raises(ValueError):
            mirror.apply(seat, text)
    assert mirror.snapshot() == before
    for seat in range(4):
        mirror.apply(seat, "keep")
    with pytest.raises(ValueError):
        mirror.apply(0, "show:999")
    with pytest.raises(ValueError):
        mirror.apply(1, "show:0")
    with pytest.raises(ValueError):
        mirror.points()


def sample_positions(rng: random.Random, count: int) -> list[State]:
    """Positions from random play, every phase, 2..5 players."""
    out = []
    for k in range(count):
        players = 2 + k % 4
        state = dealt(players, 1000 + k, k % 2 if players == 2 else k % players,
                      voluntary_pass=players == 2 and k % 8 == 0)
        stop = rng.randrange(120)
        for _ in range(stop):
            if state.is_over():
                break
            seat, text = pick_move(state, rng)
            state.apply(seat, state.legal_actions(seat)[engine_legal(state, seat).index(text)])
        out.append(state)
    return out


def test_determinization_is_consistent_with_the_observation() -> None:
    rng = random.Random(7)
    positions = sample_positions(rng, 80) + [
        State.from_snapshot(odd_snapshot(rng, 2 + k % 4)) for k in range(20)
    ]
    for state in positions:
        snap = state.snapshot()
        n = state.players
        in_play = sorted(deck_in_play(n))
        for seat in range(n):
            obs = state.observation(seat)
            info = ScoutInfoSet(obs, state.config.to_dict())
            unknown = sum(t is None for o in range(n) if o != seat for t in obs["known"][o])
            assert len(info.pool) == unknown + obs["set_aside"]
            variants = set()
            for _ in range(3):
                sample = info.sample(rng.getrandbits(64))
                smp = sample.snapshot()
                State.from_snapshot(smp)  # a valid position
                assert smp["hands"][seat] == snap["hands"][seat]  # own hand, in order
                assert [len(h) for h in smp["hands"]] == obs["hand_sizes"]
                assert len(smp["set_aside"]) == obs["set_aside"]
                for other in range(n):
                    if other == seat:
                        continue
                    assert smp["known"][other] == snap["known"][other]
                    for pos, text in enumerate(obs["known"][other]):
                        if text is not None:
                            assert smp["hands"][other][pos] == text
                for key in PUBLIC_KEYS:
                    assert smp[key] == snap[key], key
                everything = [t for h in smp["hands"] for t in h] + smp["active"] + smp["set_aside"]
                everything += [t for pile in smp["captured"] for t in pile]
                assert sorted(parse_card(t).pair for t in everything) == in_play
                # the seat's own options do not depend on what it cannot see
                assert sample.to_move() == state.to_move()
                assert sorted(sample.legal(seat)) == sorted(engine_legal(state, seat))
                variants.add(str(smp["hands"]) + str(smp["set_aside"]))
            if len(info.pool) > 1:
                assert len(variants) > 1


def test_rollouts_and_random_playouts_end() -> None:
    rng = random.Random(11)
    positions = sample_positions(rng, 120)
    capped = 0
    max_steps = 3000
    for state in positions:
        start = ScoutMirror.from_snapshot(state.snapshot())
        for _ in range(5):
            mirror = start.copy()
            steps = mirror.rollout(rng.getrandbits(64), max_steps)
            assert 0 <= steps <= max_steps
            if mirror.is_over():
                assert mirror.evaluate() == mirror.points()
            else:
                assert steps == max_steps
                capped += 1
            mirror = start.copy()
            steps = mirror.random_playout(rng.getrandbits(64))
            assert mirror.is_over()
            assert (steps == 0) == state.is_over()
        assert start.snapshot() == state.snapshot()  # copies are independent
    print(f"rollouts that hit the cap of {max_steps} steps: {capped} of {5 * len(positions)}")
    assert capped <= len(positions) // 20


def test_keys_are_injective_across_actions() -> None:
    rng = random.Random(3)
    for state in sample_positions(rng, 60):
        mirror = ScoutMirror.from_snapshot(state.snapshot())
        for seat in range(state.players):
            texts = mirror.legal(seat)
            keys = mirror.legal_keys(seat)
            assert len(set(keys)) == len(keys) == len(set(texts))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=8), st.integers(0, 1), st.integers(0, 2**32 - 1))
def test_two_player_rounds_with_voluntary_pass_match_the_engine(seed: bytes, round_no: int,
                                                                 choices: int) -> None:
    """docs/rules.md 2.7.4 (hypothesis): the option on, random play with passes now and then."""
    state = new_round(Config(players=2, voluntary_pass=True), seed, round_no)
    rng = random.Random(choices)
    mirror = ScoutMirror.from_snapshot(state.snapshot())
    while not state.is_over():
        check_same(state, mirror, rng)
        seat, text = pick_move(state, rng)
        if "pass" in engine_legal(state, seat) and rng.random() < 0.97:
            text = rng.choice([t for t in engine_legal(state, seat) if t != "pass"] or ["pass"])
        state.apply(seat, state.legal_actions(seat)[engine_legal(state, seat).index(text)])
        mirror.apply(seat, text)
    check_same(state, mirror, rng)
    assert state.config.to_dict()["voluntary_pass"] is True
