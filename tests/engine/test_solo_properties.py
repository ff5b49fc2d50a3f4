"""Properties of the SOLO engine over random play, 2 to 10 players, both presets."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardtable.engine.errors import IllegalAction
from cardtable.engine.log import encode_log, replay
from cardtable.engine.match import Match
from cardtable.engine.shuffle import Stream
from cardtable.engine.solo import Config, State, deck, new_round, parse_action
from cardtable.engine.solo.actions import CALL, DECLINE, DRAW, KEEP, Catch, Play
from cardtable.engine.solo.cards import FACES

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
configs = st.builds(lambda e, n: Config.preset(e, n), st.sampled_from(["classic", "anniversary"]),
                    st.integers(2, 10))
seeds = st.binary(min_size=1, max_size=8)


def random_step(state: State, rng: Stream) -> tuple[int, object]:
    """Mostly the waiting seat's non-meta moves; sometimes anyone's anything (catches too)."""
    if rng.below(10) == 0:
        actors = state.actors()
        seat = actors[rng.below(len(actors))]
        legal = state.legal_actions(seat)
        return seat, legal[rng.below(len(legal))]
    seat = state.to_move()
    assert seat is not None
    legal = [a for a in state.legal_actions(seat) if not isinstance(a, Catch) and a != CALL]
    return seat, legal[rng.below(len(legal))]


def all_cards(state: State) -> Counter[str]:
    snap = state.snapshot()
    return Counter(c for pile in [*snap["hands"], snap["draw"], snap["discard"]] for c in pile)


def probe_actions(state: State, seat: int) -> list[object]:
    """Well-formed actions to try: every face alone, the words, catches, others' moves."""
    probes: list[object] = [DRAW, KEEP, CALL, DECLINE, *(Catch(t) for t in range(state.n))]
    probes += [Play((face,)) for face in FACES if face.rank not in ("wild", "wd4", "swap", "gift")]
    probes += [Play((face,), colour="R") for face in FACES if face.rank in ("wild", "wd4")]
    for other in range(state.n):
        probes += state.legal_actions(other)[:40]
    return probes


@SETTINGS
@given(configs, seeds)
def test_cards_conserved_and_snapshots_round_trip(config: Config, seed: bytes) -> None:
    state = new_round(config, seed, 0)
    expected = Counter(c.text for c in deck(config.gifts, config.protection))
    assert sum(expected.values()) == (120 if config.gifts else 112)
    rng = Stream(seed, "test/driver")
    for _ in range(400):
        if state.is_over():
            break
        seat, action = random_step(state, rng)
        state.apply(seat, action)
        assert all_cards(state) == expected
        snap = state.snapshot()
        assert State.from_snapshot(snap).snapshot() == snap


@SETTINGS
@given(configs, seeds)
def test_legal_actions_and_apply_agree(config: Config, seed: bytes) -> None:
    state = new_round(config, seed, 0)
    rng = Stream(seed, "test/agree")
    for _ in range(40):
        if state.is_over():
            break
        for seat in range(state.n):
            legal = state.legal_actions(seat)
            snap = state.snapshot()
            for action in legal[:: max(1, len(legal) // 6)]:  # a spread of the legal moves
                State.from_snapshot(snap).apply(seat, action)
            legal_set = set(legal)
            for action in probe_actions(state, seat):
                if action in legal_set:
                    continue
                with pytest.raises(IllegalAction):
                    state.apply(seat, action)  # type: ignore[arg-type]
                assert state.snapshot() == snap
            assert (seat in state.actors()) == bool(legal)
        seat, action = random_step(state, rng)
        state.apply(seat, action)


@SETTINGS
@given(configs, seeds)
def test_notation_round_trips(config: Config, seed: bytes) -> None:
    state = new_round(config, seed, 0)
    rng = Stream(seed, "test/notation")
    for _ in range(150):
        if state.is_over():
            break
        for seat in state.actors():
            for action in state.legal_actions(seat):
                assert parse_action(str(action)) == action
        seat, action = random_step(state, rng)
        state.apply(seat, action)


@settings(max_examples=8, deadline=None)
@given(configs, seeds)
def test_random_matches_end_and_replays_reproduce_digests(config: Config, seed: bytes) -> None:
    match = Match(config, seed)
    rng = Stream(seed, "test/match")
    entries: list[tuple[int, str]] = []
    digests = []
    while not match.is_over():
        assert len(entries) < 60_000, "random play did not end"
        seat, action = random_step(match.state, rng)
        match.apply(seat, action)
        entries.append((seat, str(action)))
        digests.append(match.digest() if len(entries) % 16 == 0 else "")
    again = Match(config, seed)
    for (seat, text), digest in zip(entries, digests, strict=False):
        again.apply(seat, text)
        assert not digest or again.digest() == digest
    digests.append(match.digest())
    assert again.digest() == digests[-1]
    assert again.winners() == match.winners() and match.winners()
    result = replay(encode_log(config, seed, entries))
    assert result.error is None and result.match is not None
    assert result.match.digest() == digests[-1]
