"""The OpenSpiel games: OpenSpiel's own random simulation and serialization checks, the
chance nodes of the deal and the draws, parameters, and a search bot playing each game."""

from __future__ import annotations

import importlib
from collections import Counter
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="needs the envs extra (pip install -e '.[envs]')")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import cardtable.envs.openspiel_games  # noqa: E402,F401  (registers the games)
from cardtable.engine.scout.cards import DECK  # noqa: E402
from cardtable.engine.solo.cards import deck  # noqa: E402


def play_random(state, rng: np.random.Generator, check=None):  # type: ignore[no-untyped-def]
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            assert abs(sum(probs) - 1) < 1e-9
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
        if check:
            check(state)
    return state


@pytest.mark.parametrize("name,params", [
    ("cardtable_solo", {"players": 2, "max_actions": 150}),
    ("cardtable_solo", {"players": 5, "edition": "anniversary", "max_actions": 150}),
    ("cardtable_solo", {"players": 3, "call": "window", "multiples": 1, "max_actions": 100,
                        "false_catches": True, "reward": "win"}),
    ("cardtable_scout", {"players": 3}),
    ("cardtable_scout", {"players": 2, "episode": "match", "reward": "win"}),
    ("cardtable_scout", {"players": 5, "max_actions": 100}),
])
def test_openspiel_random_simulation_and_serialization_checks_pass(name: str, params: dict) -> None:
    game = pyspiel.load_game(name, params)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_the_solo_deal_is_chance_with_the_deck_s_odds() -> None:
    game = pyspiel.load_game("cardtable_solo", {"players": 4, "edition": "anniversary"})
    state = game.new_initial_state()
    assert state.is_chance_node()
    probs = dict(state.chance_outcomes())
    cards = deck(gifts=True, protection=True)
    assert len(probs) == 63 and probs[56] == pytest.approx(4 / len(cards))  # four Wilds in 120
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 56) == "deal wild"
    dealt = 0
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
        dealt += 1
    assert dealt >= 33 and state.current_player() == 1  # 32 cards dealt, then the top card(s)


def test_solo_draws_are_chance_nodes_and_no_card_is_lost_across_reshuffles() -> None:
    game = pyspiel.load_game("cardtable_solo", {"players": 10, "max_actions": 400})
    full = Counter(c.text for c in deck(gifts=False, protection=False))
    draws = 0

    def check(state):  # type: ignore[no-untyped-def]
        nonlocal draws
        p = state.p
        if p.round is None:
            return
        draws += p.chance is not None and p.chance.kind == "draw"
        held = Counter(c.text for h in p.round.hands for c in h)
        assert held + Counter(c.text for c in p.round.draw + p.round.discard) == full

    state = play_random(game.new_initial_state(), np.random.default_rng(1), check)
    assert draws > 0
    assert state.p.round.reshuffles > 0


def test_information_states_differ_with_private_cards_and_hide_others() -> None:
    game = pyspiel.load_game("cardtable_solo", {"players": 3})
    a, b = game.new_initial_state(), game.new_initial_state()
    # Same deal except that seat 0's first card (dealt first by round 0's order: seat 1) differs.
    for state, first in ((a, 0), (b, 1)):
        state.apply_action(first)
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[-1][0])
    assert a.information_state_string(1) != b.information_state_string(1)
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.information_state_string(2) == b.information_state_string(2)


def test_parameters_reach_the_engine_config() -> None:
    game = pyspiel.load_game("cardtable_solo", {"players": 6, "edition": "anniversary", "gifts": 0,
                                                "threshold": 300})
    config = game.config
    assert (config.players, config.edition, config.gifts, config.protection, config.threshold) == (
        6, "anniversary", False, True, 300)
    assert game.num_players() == 6
    with pytest.raises(Exception, match="players must be 2 to 10"):
        pyspiel.load_game("cardtable_solo", {"players": 12})


def play_out(game: Any, bot: Any, rng: Any) -> Any:
    """A whole game: ``bot`` plays seat 0 (each move legal), chance and the rest at random."""
    state = game.new_initial_state()
    searched = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        elif state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            searched += 1
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert searched > 0
    return state


@pytest.mark.parametrize("name,params", [("cardtable_solo", {"players": 2, "max_actions": 25}),
                                         ("cardtable_scout", {"players": 3, "max_actions": 25})])
def test_openspiel_mcts_plays_each_game(name: str, params: dict) -> None:
    """A training-free smoke test: OpenSpiel's MCTS bot (random rollouts) plays seat 0."""
    game = pyspiel.load_game(name, params)
    rs = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=6,
                       evaluator=mcts.RandomRolloutEvaluator(1, rs), random_state=rs)
    state = play_out(game, bot, np.random.default_rng(0))
    assert len(state.returns()) == game.num_players()


@pytest.mark.parametrize("name,params", [("cardtable_solo", {"players": 4, "edition": "anniversary"}),
                                         ("cardtable_scout", {"players": 4})])
def test_resampled_worlds_keep_what_the_seat_knows_and_vary_the_rest(name: str, params: dict) -> None:
    game = pyspiel.load_game(name, params)
    rng = np.random.default_rng(2)
    state = game.new_initial_state()
    for _ in range(400):  # a position some way into the round
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        elif state.p.round.to_move() == state.current_player() and rng.random() < 0.05:
            break
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert not state.is_terminal() and not state.is_chance_node()
    seat = state.current_player()
    hands = set()
    for k in range(6):
        world = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(k, k + 1))
        assert world.current_player() == seat
        assert world.information_state_string(seat) == state.information_state_string(seat)
        assert world.legal_actions() == state.legal_actions()
        assert world.p.round.hands[seat] == state.p.round.hands[seat]
        hands.add(str([[str(c) for c in h] for h in world.p.round.hands]))
    assert len(hands) > 1


@pytest.mark.parametrize("name,params", [("cardtable_solo", {"players": 3, "max_actions": 20}),
                                         ("cardtable_scout", {"players": 2})])
def test_openspiel_ismcts_plays_each_game(name: str, params: dict) -> None:
    """OpenSpiel's ISMCTS (resampling worlds from seat 0's information state) plays seat 0."""
    game = pyspiel.load_game(name, params)
    rs = np.random.RandomState(1)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, 4, random_state=rs,
                           allow_inconsistent_action_sets=True)
    assert play_out(game, bot, rs).is_terminal()


@pytest.mark.parametrize("name,params,specs", [
    ("cardtable_solo", {"players": 4, "edition": "anniversary"},
     ["random", "heuristic", "ismcts:fast", "heuristic"]),
    ("cardtable_scout", {"players": 3}, ["heuristic", "ismcts:fast", "random"]),
])
def test_cardtable_bots_fill_openspiel_seats(name: str, params: dict, specs: list[str]) -> None:
    """OpenSpiel's own bot runner plays a whole round between cardtable bots."""
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    from cardtable.envs.openspiel_bots import CardtableBot

    game = pyspiel.load_game(name, params)
    bots = [CardtableBot(seat, spec) for seat, spec in enumerate(specs)]
    state = game.new_initial_state()
    returns = evaluate_bots(state, bots, np.random.RandomState(3))
    assert state.is_terminal() and state.p.actions < game.settings.max_actions
    assert state.p.round.is_over() and returns != [0.0] * len(specs)


def _engine_round(game: str, config, seed: bytes):  # type: ignore[no-untyped-def]
    """The first round of a headless random-bot match: its (seat, action) entries."""
    from cardtable.ai.bots import make_bot
    from cardtable.ai.driver import play_match
    from cardtable.engine.match import Match

    bots = [make_bot("random", seed, s) for s in range(config.players)]
    entries = play_match(Match(config, seed), bots).entries
    replay = Match(config, seed)
    first = []
    for seat, text in entries:
        replay.apply(seat, text)
        first.append((seat, text))
        if replay.round_scores:
            break
    if game == "scout":  # simultaneous whole-hand choices: OpenSpiel asks from the start player
        first = sorted(first[: config.players]) + first[config.players:]
    return first


@pytest.mark.parametrize("game,params", [("solo", {"players": 4, "edition": "anniversary"}),
                                         ("solo", {"players": 10}), ("scout", {"players": 4})])
def test_an_engine_round_replayed_through_chance_nodes_gives_the_same_positions(game: str,
                                                                                  params: dict) -> None:
    """The engine's own deal and draws, fed as chance outcomes, with the engine's actions said
    as tokens: the OpenSpiel round equals the engine's round after every action."""
    from cardtable.engine.match import match_seed
    from cardtable.engine.shuffle import Stream
    from cardtable.engine.solo.cards import deck as solo_cards
    from cardtable.envs.table import CODECS

    osp = pyspiel.load_game(f"cardtable_{game}", params)
    config, codec = osp.config, CODECS[game]
    seed = match_seed(9, 0)
    module = importlib.import_module(f"cardtable.engine.{game}")
    truth = module.new_round(config, seed, 0)
    state = osp.new_initial_state()
    if game == "solo":
        deal = Stream(seed, "solo/round/0/deal").shuffle(solo_cards(config.gifts, config.protection))
        outcomes = [c.index for c in reversed(deal)]
    else:
        outcomes = [2 * DECK.index(c.pair) + (c.up > c.down) for c in _dealt_order(truth)]
    while state.is_chance_node():
        state.apply_action(outcomes.pop(0))

    def same() -> None:
        a, b = state.p.round.snapshot(), truth.snapshot()
        for key in ("seed", "draw", "reshuffles"):
            a.pop(key, None), b.pop(key, None)
        assert a == b
        if game == "solo":
            assert sorted(c.text for c in state.p.round.draw) == sorted(c.text for c in truth.draw)

    same()
    chance_draws = 0
    for seat, text in _engine_round(game, config, seed):
        action = module.parse_action(text)
        while state.current_player() != seat:
            assert codec.PASS in state.legal_actions()
            state.apply_action(codec.PASS)
        draw, discard = list(getattr(truth, "draw", [])), list(getattr(truth, "discard", []))
        before = getattr(truth, "reshuffles", 0)
        truth.apply(seat, action)
        for token in codec.encode(action, seat, config.players):
            state.apply_action(token)
        if state.is_chance_node():
            picks = [c.index for c in reversed(draw)]
            if truth.reshuffles > before:
                label = f"solo/round/0/reshuffle/{truth.reshuffles}"
                picks += [c.index for c in reversed(Stream(seed, label).shuffle(discard[:-1]))]
            while state.is_chance_node():
                state.apply_action(picks.pop(0))
                chance_draws += 1
        if truth.is_over():
            assert state.is_terminal()
            break
        same()
    assert truth.is_over()
    assert chance_draws > 0 if game == "solo" else chance_draws == 0
    if params["players"] == 10:
        assert truth.reshuffles > 0


def _dealt_order(truth):  # type: ignore[no-untyped-def]
    """SCOUT's cards in the order chance deals them: card i to seat (start + i) mod n."""
    n = truth.players
    return [truth.hands[(truth.start + i) % n][i // n] for i in range(sum(map(len, truth.hands)))]
