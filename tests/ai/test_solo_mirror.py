"""The C mirror of SOLO (ai/_solo.pxi, compiled into ai._search) against engine/solo.

Seeded random rounds are played in the engine and in the mirror side by side. At every step
both must agree on every seat's legal actions (as sets of texts), on the seat waited for,
and, after the same (seat, action) is applied to both, on the whole snapshot except
``known`` (the mirror does not keep it).

Reshuffles: the engine reshuffles the discard pile with its SHA-256 stream, the mirror with
its own RNG, so the cards drawn after a reshuffle differ. Before a step that makes the engine
reshuffle (found by playing it on a copy), the test plays it on a copy of the mirror too and
checks that the mirror's draw pile and hands hold the same multiset of cards as the engine's
(and the same sizes, discard pile and count); then it loads the engine's reshuffled draw order
into the mirror (the discard pile but its top, shuffled by the engine's stream, under the cards
still to draw) and plays the step on it, so that both stay identical.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cardtable.ai._search import SoloInfoSet, SoloMirror
from cardtable.engine.shuffle import Stream
from cardtable.engine.solo import Config, State, new_round, parse_action
from cardtable.engine.solo.actions import Play
from cardtable.engine.solo.cards import Card, deck, parse_card

# (edition, players, options, rounds, step cap per round)
CASES: list[tuple[str, int, dict[str, Any], int, int]] = [
    *[("classic", n, {}, 10, 5000) for n in range(2, 11)],
    *[("anniversary", n, {}, 10, 5000) for n in range(2, 11)],
    ("anniversary", 4, {"mixed_stacking": True}, 8, 5000),
    ("anniversary", 3, {"self_jump_in": True}, 8, 5000),
    ("anniversary", 5, {"false_catch_penalty": 0}, 8, 5000),
    ("classic", 4, {"gifts": True, "protection": True}, 8, 5000),
    ("classic", 6, {"mixed_stacking": True, "self_jump_in": True, "multiples": True}, 6, 5000),
    ("anniversary", 4, {"call": "with_play", "scoring": "pool"}, 6, 5000),
    ("classic", 2, {"hand_size": 3}, 8, 5000),
    ("anniversary", 4, {"hand_size": 5}, 8, 5000),
]


def engine_snapshot(state: State) -> dict[str, Any]:
    snap = state.snapshot()
    del snap["known"]
    return snap


def pick(state: State, rng: random.Random) -> tuple[int, str]:
    """Mostly the waiting seat's moves (no catches); sometimes anyone's anything; an uncalled
    SOLO window (window mode) is often called late or caught."""
    solo = state.solo_seat
    if solo is not None and not state.solo_called and state.config.call == "window" and rng.random() < 0.3:
        seat = rng.randrange(state.n)
        return seat, "solo" if seat == solo else f"catch:{solo}"
    if rng.random() < 0.1:
        actors = state.actors()
        seat = rng.choice(actors)
        return seat, str(rng.choice(state.legal_actions(seat)))
    seat = state.to_move()
    assert seat is not None
    legal = [str(a) for a in state.legal_actions(seat) if not str(a).startswith("catch:")]
    return seat, rng.choice(legal)


def check_same(mirror: SoloMirror, state: State, where: str) -> None:
    for seat in range(state.n):
        mine = sorted(mirror.legal(seat))
        theirs = sorted(str(a) for a in state.legal_actions(seat))
        assert mine == theirs, f"{where}: legal actions of seat {seat}"
    assert mirror.to_move() == state.to_move(), where
    assert mirror.is_over() == state.is_over(), where


def cards_in_play(snap: dict[str, Any]) -> Counter[str]:
    return Counter(c for pile in [*snap["hands"], snap["draw"]] for c in pile)


def prepare_reshuffle(state: State, mirror: SoloMirror, seat: int, text: str,
                      where: str) -> SoloMirror | None:
    """If (seat, text) makes the engine reshuffle, check the mirror's own reshuffle and return
    a mirror holding the engine's reshuffled draw order (None if the step reshuffles twice: the
    caller then copies the engine's result); else the mirror unchanged."""
    probe = State.from_snapshot(state.snapshot())
    probe.apply(seat, parse_action(text))
    if probe.reshuffles == state.reshuffles:
        return mirror
    alt = mirror.copy()
    alt.apply(seat, text)
    mine, theirs = alt.snapshot(), engine_snapshot(probe)
    assert cards_in_play(mine) == cards_in_play(theirs), where
    assert [len(h) for h in mine["hands"]] == [len(h) for h in theirs["hands"]], where
    assert (mine["discard"], mine["reshuffles"], len(mine["draw"])) == (
        theirs["discard"], theirs["reshuffles"], len(theirs["draw"])), where
    if probe.reshuffles - state.reshuffles > 1:
        return None
    label = f"solo/round/{state.round_no}/reshuffle/{state.reshuffles + 1}"
    snap = mirror.snapshot()
    snap["draw"] = [c.text for c in Stream(state.seed, label).shuffle(state.discard[:-1])] + snap["draw"]
    snap["discard"] = snap["discard"][-1:]
    snap["reshuffles"] += 1
    return SoloMirror.from_snapshot(snap)


def play_side_by_side(config: Config, seed: int, max_steps: int,
                      visit: Any = None) -> tuple[int, bool]:
    """One round in both; returns (steps, finished). ``visit(state, mirror)`` sees each position."""
    rng = random.Random(seed)
    state = new_round(config, f"mirror/{seed}".encode(), seed % config.players)
    mirror = SoloMirror.from_snapshot(state.snapshot())
    assert mirror.snapshot() == engine_snapshot(state)
    steps = 0
    game = f"Config.preset({config.edition!r}, {config.players}) {config.to_dict()} seed {seed}"
    while not state.is_over() and steps < max_steps:
        where = f"{game} step {steps}"
        check_same(mirror, state, where)
        if visit is not None:
            visit(state, mirror)
        seat, text = pick(state, rng)
        prepared: SoloMirror | None = mirror
        if len(state.draw) <= 2 + max(state.penalty, config.false_catch_penalty, 2):
            prepared = prepare_reshuffle(state, mirror, seat, text, where)
        state.apply(seat, parse_action(text))
        if prepared is None:  # the new draw pile ran out in the same step: copy the engine
            mirror = SoloMirror.from_snapshot(state.snapshot())
        else:
            mirror = prepared
            mirror.apply(seat, text)
        assert mirror.snapshot() == engine_snapshot(state), f"{where}: after {seat} {text}"
        steps += 1
    check_same(mirror, state, f"{game} end")
    if state.is_over():
        assert mirror.points() == [float(p) for p in state.round_scores()]
        assert mirror.evaluate() == mirror.points()
    return steps, state.is_over()


@pytest.mark.parametrize(("edition", "players", "options", "rounds", "cap"), CASES,
                         ids=[f"{e}-{n}p-{'-'.join(o) or 'preset'}" for e, n, o, _, _ in CASES])
def test_mirror_follows_the_engine(edition: str, players: int, options: dict[str, Any],
                                   rounds: int, cap: int) -> None:
    config = Config.preset(edition, players, **options)
    finished = 0
    for seed in range(rounds):
        _, over = play_side_by_side(config, 1000 * players + seed, cap)
        finished += over
    assert finished >= rounds // 2


def test_snapshot_round_trips() -> None:
    config = Config.preset("anniversary", 4)
    state = new_round(config, b"rt", 0)
    mirror = SoloMirror.from_snapshot(state.snapshot())
    assert mirror.copy().snapshot() == mirror.snapshot() == engine_snapshot(state)
    with pytest.raises(ValueError):
        mirror.apply(state.to_move() or 0, "catch:9")


# --- determinization, candidates, keys, rollouts -------------------------------------------
def public(snap: dict[str, Any]) -> dict[str, Any]:
    keys = ("discard", "turn", "direction", "colour", "penalty", "penalty_kind", "jump", "laid_by",
            "solo", "solo_also", "winner")
    return {k: snap.get(k) for k in keys}


def check_sample(state: State, seat: int, seed: int) -> SoloMirror:
    obs = state.observation(seat)
    sample = SoloInfoSet(obs, state.config.to_dict()).sample(seed)
    snap, real = sample.snapshot(), state.snapshot()
    hands = snap["hands"]
    assert hands[seat] == obs["hand"]
    assert [len(h) for h in hands] == obs["hand_sizes"]
    assert len(snap["draw"]) == obs["draw_size"]
    assert public(snap) == public(real)
    for holder, cards in obs["known"].items():
        assert not Counter(cards) - Counter(hands[holder]), f"known cards of seat {holder}"
    everything = Counter(c for pile in [*hands, snap["draw"], snap["discard"]] for c in pile)
    assert everything == Counter(c.text for c in deck(state.config.gifts, state.config.protection))
    react, real_react = snap["react"], real["react"]
    if real_react is None:
        assert react is None
    else:
        assert {k: v for k, v in react.items() if k != "gift"} == {
            k: v for k, v in real_react.items() if k != "gift"}
        assert len(react["gift"]) == len(real_react["gift"])
        if seat in (real_react["by"], real_react["target"]):
            assert react["gift"] == real_react["gift"]
        assert not Counter(react["gift"]) - Counter(hands[react["by"]])
    if real["drawn"] is None:
        assert snap["drawn"] is None
    else:
        assert snap["drawn"] in hands[real["turn"]]
        if seat == real["turn"]:
            assert snap["drawn"] == real["drawn"]
    # what this seat may do depends only on what it knows
    assert sorted(sample.legal(seat)) == sorted(str(a) for a in state.legal_actions(seat))
    return sample


def gift_value(card: Card) -> float:
    """What giving ``card`` away is worth to the heuristic (heuristic_solo._gift_bonus)."""
    return 0.3 * card.points - (40.0 if card.black else 10.0 if card.rank in ("d2", "skip") else 0.0)


def gift_considered(hand: list[str], text: str) -> bool:
    """The search's Gift pruning: the two cards given are among the 4 cards of the rest that
    are most worth giving (ties in face order), unless the Gift gives the whole rest."""
    play = parse_action(text.rstrip("!"))
    if not isinstance(play, Play) or play.card.rank != "gift" or len(play.gift) < 2:
        return True
    rest = [parse_card(c) for c in hand]
    rest.remove(play.card)
    if len(rest) <= 2:
        return True
    top = Counter(sorted(rest, key=lambda c: (-gift_value(c), c.index))[:4])
    return not Counter(play.gift) - top


def check_candidates_and_keys(mirror: SoloMirror, seen: dict[int, str]) -> None:
    waiting = mirror.to_move()
    hands = mirror.snapshot()["hands"]
    for seat in range(len(hands)):
        legal = mirror.legal(seat)
        keys = mirror.legal_keys(seat)
        assert len(set(keys)) == len(keys) == len(legal)
        for key, text in zip(keys, legal, strict=True):
            assert seen.setdefault(key, text) == text, f"key {key} names {seen[key]} and {text}"
        present = set(legal)
        expected = [a for a in legal if not a.startswith("catch:") and a != "solo"
                    and (a.endswith("!") or a + "!" not in present)
                    and gift_considered(hands[seat], a)]
        if seat != waiting:
            expected = [a for a in expected if a not in ("draw", "keep", "decline")]
        assert sorted(mirror.candidates(seat)) == sorted(expected)


SAMPLE_CASES = [("anniversary", 4, {}), ("anniversary", 3, {}), ("anniversary", 7, {}),
                ("classic", 5, {}), ("classic", 2, {}),
                ("classic", 4, {"gifts": True, "protection": True, "multiples": True})]


@pytest.mark.parametrize(("edition", "players", "options"), SAMPLE_CASES,
                         ids=[f"{e}-{n}p-{'-'.join(o) or 'preset'}" for e, n, o in SAMPLE_CASES])
def test_samples_candidates_keys_and_rollouts(edition: str, players: int, options: dict[str, Any]) -> None:
    config = Config.preset(edition, players, **options)
    seen: dict[int, str] = {}
    counter = [0]

    def visit(state: State, mirror: SoloMirror) -> None:
        counter[0] += 1
        k = counter[0]
        check_candidates_and_keys(mirror, seen)
        if k % 3 == 0:
            seat = k % players
            sample = check_sample(state, seat, k)
            check_candidates_and_keys(sample, seen)
            if k % 9 == 0:
                assert sample.rollout_checked(k) < 100000 and sample.is_over()
                assert sample.evaluate() == sample.points()
        if k % 7 == 0:
            ahead = mirror.copy()
            assert ahead.rollout_checked(k) < 100000 and ahead.is_over()
            assert len(mirror.evaluate()) == players

    for seed in range(3):
        play_side_by_side(config, 77 + seed, 600, visit)


def test_rollouts_always_end() -> None:
    for players in range(2, 11):
        for edition in ("classic", "anniversary"):
            config = Config.preset(edition, players)
            for seed in range(10):
                mirror = SoloMirror.from_snapshot(new_round(config, f"r{seed}".encode(), seed).snapshot())
                steps = mirror.copy().rollout(seed)
                assert 0 < steps < 100000
                assert mirror.copy().random_playout(seed) > 0
                ended = mirror.copy()
                assert ended.rollout_checked(seed) == steps and ended.is_over()
                points = ended.points()
                assert ended.evaluate() == points and sorted(points).count(0.0) >= 1


def test_samples_of_an_open_gift_window() -> None:
    """The Gift's cards are seen by giver and target only; the others sample them."""
    config = Config.preset("anniversary", 4)
    hands = ["Rgift R3 G5 B7 Y9", "protR G1 G2", "B1 B2 wd4", "Y1 Y2"]
    rest = Counter(c.text for c in deck(True, True)) - Counter(" ".join(hands).split()) - Counter(["R5"])
    snap = {"game": "solo", "config": config.to_dict(), "seed": "00", "round": 0,
            "hands": [h.split() for h in hands], "draw": sorted(rest.elements()), "discard": ["R5"],
            "turn": 0}
    state = State.from_snapshot(snap)
    state.apply(0, parse_action("Rgift:1:B7,Y9"))
    assert state.react is not None and state.react.pending == [1]
    for seat in range(4):
        for seed in range(20):
            sample = check_sample(state, seat, seed)
            check_candidates_and_keys(sample, {})
            assert sample.copy().rollout_checked(seed) < 100000
    assert check_sample(state, 1, 0).snapshot()["react"]["gift"] == ["B7", "Y9"]
    gifts = {tuple(check_sample(state, 2, seed).snapshot()["react"]["gift"]) for seed in range(20)}
    assert len(gifts) > 1


def test_the_largest_action_list() -> None:
    """One hand of all but 10 cards after a Pass hands: about 74,000 legal actions."""
    config = Config.preset("anniversary", 10)
    others = ["Rd2", "Gd2", "Bd2", "Yd2", "Rskip", "Gskip", "Bskip", "Yskip", "Rrev"]
    hand = Counter(c.text for c in deck(True, True)) - Counter([*others, "pass"])
    snap = {"game": "solo", "config": config.to_dict(), "seed": "00", "round": 0,
            "hands": [sorted(hand.elements()), *[[c] for c in others]], "draw": [], "discard": ["pass"],
            "turn": 0, "colour": None}
    state = State.from_snapshot(snap)
    mirror = SoloMirror.from_snapshot(snap)
    legal = mirror.legal(0)
    assert len(legal) > 70000
    assert sorted(legal) == sorted(str(a) for a in state.legal_actions(0))
    assert len(set(mirror.legal_keys(0))) == len(legal)


def odd_position(rng: random.Random) -> dict[str, Any]:
    """A random position with small hands made of runs of one number, identical pairs,
    Gifts and Protections: where SOLO calls, multiples and windows are decided."""
    edition = rng.choice(["classic", "anniversary"])
    options = rng.choice([{}, {}, {"multiples": True, "gifts": True, "protection": True},
                          {"mixed_stacking": True}, {"self_jump_in": True}])
    config = Config.preset(edition, rng.randint(2, 6), **options)
    pool = [c.text for c in deck(config.gifts, config.protection)]
    rng.shuffle(pool)

    def take(match: Any, count: int = 1) -> list[str]:
        found = [c for c in pool if match(c)][:count]
        for c in found:
            pool.remove(c)
        return found

    hands: list[list[str]] = []
    for _ in range(config.players):
        hand: list[str] = []
        for _ in range(rng.randint(1, 3)):
            part = rng.choice(["number", "number", "pair", "gift", "prot", "any"])
            if part == "number":
                number = str(rng.randint(1, 9))
                hand += take(lambda c, v=number: c[1:] == v, rng.randint(1, 4))
            elif part == "pair":
                face = rng.choice(pool)
                hand += take(lambda c, f=face: c == f, 2)
            elif part in ("gift", "prot"):
                hand += take(lambda c, p=part: p in c)
            else:
                hand += take(lambda c: True, rng.randint(1, 2))
        hands.append(hand or take(lambda c: True))
    top = take(lambda c: not c.startswith(("wild", "wd4", "pass", "prot")))[0]
    snap: dict[str, Any] = {"game": "solo", "config": config.to_dict(), "seed": "00", "round": 0,
                            "hands": hands, "draw": pool, "discard": [top],
                            "turn": rng.randrange(config.players), "jump": rng.random() < 0.5,
                            "laid_by": rng.randrange(config.players)}
    if rng.random() < 0.3:
        snap["colour"] = None
    elif top.endswith("d2") and rng.random() < 0.5:
        snap.update(penalty=2, penalty_kind="d2")
    return snap


def test_odd_positions_and_every_move_from_them() -> None:
    rng = random.Random(5)
    for _ in range(600):
        snap = odd_position(rng)
        state = State.from_snapshot(snap)
        mirror = SoloMirror.from_snapshot(snap)
        assert mirror.snapshot() == engine_snapshot(state)
        check_same(mirror, state, str(snap))
        for seat in range(state.n):
            for action in state.legal_actions(seat):
                after = State.from_snapshot(snap)
                after.apply(seat, action)
                mine = mirror.copy()
                mine.apply(seat, str(action))
                assert mine.snapshot() == engine_snapshot(after), f"{snap} {seat} {action}"
                check_same(mine, after, f"{snap} {seat} {action}")
        assert mirror.copy().rollout_checked(len(snap["draw"])) < 100000


def scripted(config: Config, hands: list[str], top: str, script: list[tuple[int, str]],
             draw: str = "G1 G2 G3 G4 G6 G7 G8 G9", **more: Any) -> tuple[State, SoloMirror]:
    """Play ``script`` from a made-up position in the engine and the mirror side by side."""
    snap: dict[str, Any] = {"game": "solo", "config": config.to_dict(), "seed": "", "round": 0,
                            "hands": [h.split() for h in hands], "draw": draw.split(),
                            "discard": top.split(), "turn": 0, "jump": True, "laid_by": None, **more}
    state = State.from_snapshot(snap)
    mirror = SoloMirror.from_snapshot(state.snapshot())
    for seat, text in script:
        check_same(mirror, state, f"before {seat} {text}")
        state.apply(seat, parse_action(text))
        mirror.apply(seat, text)
        assert mirror.snapshot() == engine_snapshot(state), f"after {seat} {text}"
    check_same(mirror, state, "end")
    return state, mirror


MISSED_CALLS = [
    ("window", "Rrev R5 G5 B5", [(0, "Rrev"), (0, "R5"), (1, "catch:0")], 4),
    ("window", "Rrev R5 G5 B5 Y5", [(0, "Rrev"), (0, "R5!"), (1, "catch:0")], 5),
    ("window", "Rrev R5 G5 B5 Y5", [(0, "Rrev!"), (0, "R5"), (1, "catch:0")], 5),
    ("with_play", "Rrev R5 G5 B5", [(0, "Rrev"), (0, "R5"), (1, "draw")], 4),
]


@pytest.mark.parametrize(("call", "hand0", "script", "size0"), MISSED_CALLS)
def test_own_later_play_keeps_a_missed_call_rule_1_8_15(call: str, hand0: str,
                                                       script: list[tuple[int, str]], size0: int) -> None:
    """docs/rules.md 1.8.6, 1.8.15 in the mirror: the issue's 2-player anniversary position."""
    state, mirror = scripted(Config.preset("anniversary", 2, call=call), [hand0, "Y1 Y2 Y3 Y4"], "R3",
                             script)
    assert len(state.hands[0]) == size0


ANNIVERSARY4 = Config.preset("anniversary", 4)
CLASSIC_GP = Config.preset("classic", 4, gifts=True, protection=True)
SWAP = ["Rswap G1", "Y1 G7", "protB B5 B6", "Y4 G8"]
GIFT3 = ["Rgift R1 G2 B3", "protY Y1 Y2", "Y3 Y4", "G4 B4"]
GIFT1 = ["Rgift R5", "protR Y1 Y2", "Y3 Y4", "G4 B4"]
SETTLED_CALLS = [
    (ANNIVERSARY4, SWAP, [(0, "Rswap:2!"), (2, "protB"), (3, "catch:0")]),
    (ANNIVERSARY4, SWAP, [(0, "Rswap:2"), (2, "protB"), (3, "catch:0")]),
    (ANNIVERSARY4, ["Rswap G1", "Y1 G7", "B5 B6", "Y4 G8"], [(0, "Rswap:2!"), (3, "catch:0")]),
    (CLASSIC_GP, GIFT3, [(0, "Rgift:1:R1,G2"), (1, "protY"), (1, "Y1")]),
    (CLASSIC_GP, GIFT3, [(0, "Rgift:1:R1,G2"), (1, "decline"), (1, "R1")]),
    (ANNIVERSARY4, GIFT1, [(0, "Rgift:1:R5!"), (1, "protR"), (2, "catch:0")]),
    (ANNIVERSARY4, GIFT1, [(0, "Rgift:1:R5"), (1, "protR"), (2, "catch:0")]),
    (Config.preset("anniversary", 3), ["pass G1", "protR Y1 Y2", "protB Y3 Y4"],
     [(0, "pass!"), (1, "protR"), (2, "protB"), (1, "catch:0")]),
    (CLASSIC_GP, ["Rgift G1", "protR Y2", "Y3 Y4", "G4 B4"],
     [(0, "Rgift:1:G1"), (1, "protR"), (1, "draw"), (2, "draw")]),
]


@pytest.mark.parametrize(("config", "hands", "script"), SETTLED_CALLS)
def test_calls_on_plays_a_protection_may_cancel_rule_1_8_14(config: Config, hands: list[str],
                                                            script: list[tuple[int, str]]) -> None:
    """docs/rules.md 1.8.14 in the mirror: the positions of tests/engine/test_solo_windows.py."""
    scripted(config, hands, "R3", script, draw="B7 B8 B9 B9 G5 G6 G7 G8", turn=0)


def test_the_jump_in_window_at_a_setup_without_a_number_card_rule_1_8_16(monkeypatch: Any) -> None:
    """docs/rules.md 1.8.16: the setup ran out of cards; the mirror offers the same jump-ins."""
    only_actions = [parse_card(t) for t in
                    "Rskip Gskip Brev Yrev Rd2 Gd2 Bswap Yswap Rrev Bskip".split()] * 2
    monkeypatch.setattr("cardtable.engine.solo.state.deck", lambda gifts, protection: list(only_actions))
    jumps = 0
    for i in range(40):
        state = new_round(Config.preset("classic", 2), b"jump%d" % i, 0)
        mirror = SoloMirror.from_snapshot(state.snapshot())
        check_same(mirror, state, f"seed jump{i}")
        if state.top in state.hands[0]:
            jumps += 1
            text = next(str(a) for a in state.legal_actions(0) if str(a).split(":")[0] == state.top.text)
            state.apply(0, parse_action(text))
            mirror.apply(0, text)
            assert mirror.snapshot() == engine_snapshot(state)
    assert jumps > 0


# --- endgames rich in Gifts, Swaps, Pass hands and Protections (hypothesis) ----------------
ENDGAME_FACES = ("Rgift Ggift Rswap Gswap pass pass protR protG protB R5 G5 B5 Y5 R5 Rrev Grev "
                 "Rskip R3 G3 B7").split()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 4), st.sampled_from(["window", "with_play"]), st.data())
def test_endgames_with_settled_calls_match_the_engine(players: int, call: str, data: st.DataObject) -> None:
    """docs/rules.md 1.8.6, 1.8.14, 1.8.15: short hands of action cards, random moves (late calls
    and catches included); the mirror agrees with the engine at every step."""
    faces = list(ENDGAME_FACES)
    hands = []
    for _ in range(players):
        size = data.draw(st.integers(1, 4))
        hand = [faces.pop(data.draw(st.integers(0, len(faces) - 1))) for _ in range(size)]
        hands.append(" ".join(hand))
    config = Config.preset("anniversary", players, call=call)
    state, mirror = scripted(config, hands, "R9", [], draw=" ".join(["Y1", "Y2", "B1", "B2", "G1", "G2"] * 3))
    for step in range(30):
        if state.is_over() or len(state.draw) < 8:
            break
        actors = state.actors()
        seat = data.draw(st.sampled_from(actors)) if data.draw(st.booleans()) else state.to_move()
        assert seat is not None
        texts = sorted(str(a) for a in state.legal_actions(seat))
        text = data.draw(st.sampled_from(texts))
        state.apply(seat, parse_action(text))
        mirror.apply(seat, text)
        assert mirror.snapshot() == engine_snapshot(state), f"step {step}: {seat} {text}"
        check_same(mirror, state, f"after step {step}")


# --- docs/rules.md 1.8.17: several SOLO windows at once -------------------------------------------
ANNIVERSARY3 = Config.preset("anniversary", 3)
SWAP3 = ["Rswap B1", "protB G1", "Y1 Y2 Y3"]
SWAPPED = [(0, "Rswap:1"), (1, "protB")]
TWO_WINDOWS = [  # (config, hands, script, the hands at the end)
    (ANNIVERSARY3, SWAP3, [*SWAPPED, (2, "catch:0")], ["B1 G7 G8", "G1", "Y1 Y2 Y3"]),
    (ANNIVERSARY3, SWAP3, [*SWAPPED, (1, "catch:0"), (0, "catch:1")], ["B1 G7 G8", "G1 G5 G6", "Y1 Y2 Y3"]),
    (ANNIVERSARY3, SWAP3, [*SWAPPED, (0, "solo"), (2, "catch:0"), (2, "catch:1")],
     ["B1", "G1 G5 G6", "Y1 Y2 Y3 G7 G8"]),
    (ANNIVERSARY3, SWAP3, [*SWAPPED, (0, "solo"), (1, "draw"), (0, "catch:1"), (2, "catch:0")],
     ["B1", "G1 G6 G7 G8", "Y1 Y2 Y3 G4 G5"]),
    (ANNIVERSARY3, ["pass G1", "protR Y1", "protB Y3"],
     [(0, "pass"), (1, "protR"), (2, "protB"), (1, "catch:0"), (1, "catch:2")],
     ["G1 G7 G8", "Y1", "Y3 G5 G6"]),
    (Config.preset("classic", 3, gifts=True, protection=True), ["Rgift B1", "Y1 Y2 Y3", "protB G1"],
     [(0, "Rgift:2:B1"), (2, "protB"), (1, "draw")], ["B1 G5 G6", "Y1 Y2 Y3 G4", "G1 G7 G8"]),
]


@pytest.mark.parametrize(("config", "hands", "script", "final"), TWO_WINDOWS)
def test_two_windows_in_the_mirror_rule_1_8_17(config: Config, hands: list[str],
                                               script: list[tuple[int, str]], final: list[str]) -> None:
    """The positions of tests/engine/test_solo_windows.py (1.8.17): the protector's window and
    the cancelled player's, each with its own late call and catch; classic charges the
    protector first. Top R6, draw pile B7 B8 G4..G8 (G8 on top)."""
    state, mirror = scripted(config, hands, "R6", script, draw="B7 B8 G4 G5 G6 G7 G8")
    assert [sorted(h) for h in mirror.snapshot()["hands"]] == [sorted(h.split()) for h in final]


def test_two_windows_in_snapshots_and_samples_rule_1_8_17() -> None:
    """Both windows read back from a snapshot and from every seat's observation (the search's
    samples keep them, and what a seat may do depends only on what it knows); bad windows
    are refused."""
    rest = Counter(c.text for c in deck(True, True)) - Counter(" ".join([*SWAP3, "R6"]).split())
    state, _ = scripted(ANNIVERSARY3, SWAP3, "R6", SWAPPED, draw=" ".join(sorted(rest.elements())))
    snap = state.snapshot()
    assert [w["seat"] for w in [snap["solo"], *snap["solo_also"]]] == [1, 0]
    for seat in range(3):
        for seed in range(5):
            sample = check_sample(state, seat, seed)
            assert sample.copy().rollout_checked(seed) < 100000
    seat0, seat2 = {"seat": 0, "called": False}, {"seat": 2, "called": False}
    for also in ([{"seat": 1, "called": True}], [seat0, seat2]):  # the same seat twice; three windows
        with pytest.raises(ValueError):
            SoloMirror.from_snapshot({**snap, "solo_also": also})


def owing_rests(seat: int) -> list[str]:
    """Hands left after the play that one play could empty (multiples on), then two that cannot."""
    gift = ["Ggift", "Bgift", "Ygift", None][seat]
    owing = [f"B{seat + 1}", f"R{seat + 5} G{seat + 5} Y{seat + 5}"]
    if gift:
        owing.append(f"{gift} Y{seat + 1}")
    return owing + [f"B{seat + 1} G{seat + 2}", f"G{seat + 5} Y{seat + 6}"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 4), st.sampled_from(["window", "with_play"]), st.sampled_from(["gift", "swap", "pass"]),
       st.data())
def test_endgames_where_a_protection_leaves_two_windows_match_the_engine_rule_1_8_17(
        players: int, call: str, kind: str, data: st.DataObject) -> None:
    """docs/rules.md 1.8.17: seat 0 plays a Gift, Swap or Pass hands keeping a hand that may need a
    call, its target (for Pass hands every other seat) protects keeping one that may need a
    call, each "!" made or not. Then one window per seat owing a call, the last protector's
    first; in window mode each uncalled one can be caught by another seat, in with_play mode
    the next action of the seat in turn charges every other uncalled one in that order; and
    random moves on (late calls and catches included) keep the mirror equal to the engine."""
    rests = [data.draw(st.sampled_from(owing_rests(seat))).split() for seat in range(players)]
    target = data.draw(st.integers(1, players - 1))
    protectors = list(range(1, players)) if kind == "pass" else [target]
    hands = []
    for seat in range(players):
        lead = {"gift": ["Rgift"], "swap": ["Rswap"], "pass": ["pass"]}[kind] if seat == 0 else []
        shield = [["protR", "protG", "protB"][seat - 1]] if seat in protectors else []
        spare = ["Y9", "Rrev", f"G{seat + 6}"]
        others = rests[seat] if seat == 0 or shield else spare[:data.draw(st.integers(1, 3))]
        hands.append(" ".join(lead + shield + others))
    config = Config.preset("anniversary", players, call=call)
    state, mirror = scripted(config, hands, "R9", [], draw=" ".join(["Y1", "Y2", "B1", "B2", "G1", "G2"] * 3))

    def step(seat: int, text: str) -> list[str]:
        text = str(parse_action(text))  # the canonical text (a Gift's cards in card order)
        if text.endswith("!") and text not in {str(a) for a in state.legal_actions(seat)}:
            text = text[:-1]
        events = state.apply(seat, parse_action(text))
        mirror.apply(seat, text)
        assert mirror.snapshot() == engine_snapshot(state), f"{seat} {text}"
        check_same(mirror, state, f"after {seat} {text}")
        return [e.kind for e in events]

    bang = data.draw(st.booleans())
    gift = ",".join(rests[0][:2])
    lead = {"gift": f"Rgift:{target}:{gift}", "swap": f"Rswap:{target}", "pass": "pass"}[kind]
    step(0, lead + ("!" if bang else ""))
    marks = {}
    for seat in protectors:
        marks[seat] = data.draw(st.booleans())
        step(seat, ["protR", "protG", "protB"][seat - 1] + ("!" if marks[seat] else ""))
    last = protectors[-1]
    owes = [state.needs_call([parse_card(c) for c in rest]) for rest in rests]
    expected = [(last, marks[last])] if owes[last] else []
    if owes[0]:
        expected.append((0, bang))
    assert [(w.seat, w.called) for w in state.windows] == expected
    event(f"{len(expected)} SOLO windows")
    missed = [seat for seat, called in expected if not called]
    if call == "window":
        for owner in missed:
            catcher = (owner + 1) % players
            probe = State.from_snapshot(state.snapshot())
            assert [e.kind for e in probe.apply(catcher, parse_action(f"catch:{owner}"))] == ["catch"]
            assert len(probe.hands[owner]) == len(state.hands[owner]) + 2
    else:
        mover = state.to_move()
        assert mover is not None
        probe = State.from_snapshot(state.snapshot())
        charged = [e.seat for e in probe.apply(mover, parse_action("draw")) if e.kind == "penalty"]
        assert charged == [seat for seat in missed if seat != mover]
    for _ in range(20):
        if state.is_over() or len(state.draw) < 8:
            break
        seat = data.draw(st.sampled_from(state.actors())) if data.draw(st.booleans()) else state.to_move()
        assert seat is not None
        step(seat, data.draw(st.sampled_from(sorted(str(a) for a in state.legal_actions(seat)))))
