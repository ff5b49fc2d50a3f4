"""OpenSpiel's contract (envs/observers.py, Position.resampled): observers build the view asked
for or raise; resampled worlds keep every seat's information state; the perfect-recall
information-state tensor is refused in so many words."""

from __future__ import annotations

from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="needs the envs extra (pip install -e '.[envs]')")

import numpy as np  # noqa: E402
from open_spiel.python.observation import INFO_STATE_OBS_TYPE, make_observation  # noqa: E402

import cardtable.envs.openspiel_games  # noqa: E402,F401  (registers the games)
from cardtable.envs import scout_codec, solo_codec  # noqa: E402

PUBLIC = pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                    private_info=pyspiel.PrivateInfoType.NONE)


def step_random(state: Any, rng: np.random.Generator) -> None:
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    else:
        state.apply_action(int(rng.choice(state.legal_actions())))


def dealt(game: Any, first: int) -> Any:
    """A state after the deal whose first chance outcome (the first card dealt) is ``first``."""
    state = game.new_initial_state()
    state.apply_action(first)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[-1][0])
    return state


@pytest.mark.parametrize("name,params", [("cardtable_solo", {"players": 3, "edition": "anniversary"}),
                                         ("cardtable_solo", {"players": 4, "edition": "anniversary"}),
                                         ("cardtable_scout", {"players": 4})])
def test_resampling_for_any_seat_keeps_every_seat_s_information_state(name: str, params: dict) -> None:
    """For the seat asked and for the others alike (the offers out of turn depend on hidden
    cards: worlds that would ask someone else are drawn again)."""
    game = pyspiel.load_game(name, params)
    rng = np.random.default_rng(0)
    worlds = idle_varied = 0
    for _ in range(4):
        state = game.new_initial_state()
        for _ in range(500):
            if state.is_terminal():
                break
            if not state.is_chance_node() and rng.random() < 0.15:
                strings = [state.information_state_string(q) for q in range(game.num_players())]
                for seat in range(game.num_players()):
                    world = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0, 1))
                    worlds += 1
                    assert [world.information_state_string(q)
                            for q in range(game.num_players())] == strings
                    assert world.current_player() == state.current_player()
                    assert world.p.round.hands[seat] == state.p.round.hands[seat]
                    if seat != state.current_player():
                        idle_varied += world.p.round.hands != state.p.round.hands
            step_random(state, rng)
    assert worlds > 300 and idle_varied > worlds // 4


def test_resampling_is_refused_at_chance_nodes() -> None:
    game = pyspiel.load_game("cardtable_solo", {"players": 3})
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="only where a seat is asked"):
        state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0, 1))


@pytest.mark.parametrize("name", ["cardtable_solo", "cardtable_scout"])
def test_the_perfect_recall_tensor_is_refused_and_the_string_kept(name: str) -> None:
    game = pyspiel.load_game(name, {"players": 3})
    assert not game.get_type().provides_information_state_tensor
    assert game.get_type().provides_information_state_string
    state = dealt(game, 0)
    with pytest.raises(ValueError, match="no perfect-recall information-state tensor"):
        state.information_state_tensor(0)
    observer = make_observation(game, INFO_STATE_OBS_TYPE)
    assert observer.tensor is None
    assert observer.string_from(state, 0) == state.information_state_string(0)
    assert state.information_state_string(0).startswith("seat 0\nround 0 dealt")


@pytest.mark.parametrize("kind", [
    pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                               private_info=pyspiel.PrivateInfoType.ALL_PLAYERS),
    pyspiel.IIGObservationType(perfect_recall=False, public_info=False,
                               private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER),
    pyspiel.IIGObservationType(perfect_recall=True, public_info=True,
                               private_info=pyspiel.PrivateInfoType.NONE),
])
def test_views_the_games_cannot_build_raise(kind: Any) -> None:
    game = pyspiel.load_game("cardtable_scout", {"players": 3})
    with pytest.raises(ValueError, match="offer no"):
        make_observation(game, kind)
    with pytest.raises(ValueError, match="parameters"):
        make_observation(game, None, {"x": 1})


@pytest.mark.parametrize("name,seat,private", [("cardtable_solo", 1, ("hand",)),
                                               ("cardtable_scout", 0, ())])
def test_the_public_view_hides_the_observer_s_cards(name: str, seat: int, private: tuple[str, ...]) -> None:
    game = pyspiel.load_game(name, {"players": 3})
    a, b = dealt(game, 0), dealt(game, 1)  # the first card dealt (to ``seat``) differs
    public = make_observation(game, PUBLIC)
    default = make_observation(game)
    views = []
    for state in (a, b):
        public.set_from(state, seat)
        default.set_from(state, seat)
        views.append((public.tensor.copy(), public.string_from(state, seat), default.tensor.copy(),
                      default.string_from(state, seat)))
        assert np.array_equal(default.tensor, state.observation_tensor(seat))
        assert default.string_from(state, seat) == state.observation_string(seat)
    assert np.array_equal(views[0][0], views[1][0]) and views[0][1] == views[1][1]
    assert not np.array_equal(views[0][2], views[1][2]) and views[0][3] != views[1][3]
    assert views[0][0].any()  # the public part is there (hand sizes, the top card...)
    for block in private:
        start, shape = solo_codec.LAYOUT.offsets[block]
        assert not views[0][0][start:start + int(np.prod(shape))].any()


def test_scout_s_public_view_shows_the_observer_s_scouted_cards_only() -> None:
    game = pyspiel.load_game("cardtable_scout", {"players": 3})
    rng = np.random.default_rng(3)
    state = game.new_initial_state()
    while state.is_chance_node() or not any(any(k) for k in state.p.round.known):
        step_random(state, rng)
    seat = next(s for s, k in enumerate(state.p.round.known) if any(k))
    public = make_observation(game, PUBLIC)
    public.set_from(state, seat)
    start, shape = scout_codec.LAYOUT.offsets["hands"]
    own = public.tensor[start:start + int(np.prod(shape))].reshape(shape)[0]
    shown = [bool(row.any()) for row in own[:len(state.p.round.hands[seat])]]
    assert shown == list(state.p.round.known[seat])
    default = make_observation(game)
    default.set_from(state, seat)
    mine = default.tensor[start:start + int(np.prod(shape))].reshape(shape)[0]
    assert all(row.any() for row in mine[:len(state.p.round.hands[seat])])
