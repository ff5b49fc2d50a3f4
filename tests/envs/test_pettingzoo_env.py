"""The PettingZoo environments: PettingZoo's own tests, every player count, seeding,
equality with the engine, opponents in seats, out-of-turn offers."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo", reason="needs the envs extra (pip install -e '.[envs]')")

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from cardtable.ai.bots import make_bot  # noqa: E402
from cardtable.ai.driver import play_match  # noqa: E402
from cardtable.engine.errors import IllegalAction, ParseError  # noqa: E402
from cardtable.engine.match import Match, match_seed  # noqa: E402
from cardtable.envs import solo_codec  # noqa: E402
from cardtable.envs.pettingzoo_env import scout_env, solo_env  # noqa: E402
from cardtable.envs.table import make_config  # noqa: E402
from tests.envs.helpers import run_random  # noqa: E402

MAKERS = {
    "solo-classic-4": lambda: solo_env(4),
    "solo-anniversary-3": lambda: solo_env(3, rules={"edition": "anniversary"}),
    "solo-custom-5": lambda: solo_env(5, rules={"edition": "classic", "gifts": True, "protection": True,
                                               "multiples": True, "self_jump_in": True,
                                               "mixed_stacking": True}, false_catches=True),
    "scout-3": lambda: scout_env(3),
    "scout-2-match": lambda: scout_env(2, episode="match", reward="win"),
    "solo-opponents": lambda: solo_env(4, opponents={1: "heuristic", 3: "random"}),
}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_pettingzoo_api_and_seed_tests_pass(name: str) -> None:
    api_test(MAKERS[name](), num_cycles=200)
    seed_test(MAKERS[name], num_cycles=100)


@pytest.mark.parametrize("players", range(2, 11))
def test_a_random_solo_episode_ends_for_every_player_count(players: int) -> None:
    env = solo_env(players, rules={"edition": "anniversary" if players % 2 else "classic"})
    out = run_random(env, seed=players)
    table = env.unwrapped.table
    assert table.done and not table.truncated
    winner = table.state.winner
    assert out["returns"][f"player_{winner}"] == 0  # the round's winner empties its hand
    assert all(r <= 0 for r in out["returns"].values())
    assert sum(out["returns"].values()) < 0


@pytest.mark.parametrize("players", range(2, 6))
def test_a_random_scout_match_ends_for_every_player_count(players: int) -> None:
    env = scout_env(players, episode="match")
    out = run_random(env, seed=players)
    match = env.unwrapped.table.match
    assert match.is_over() and len(match.round_scores) == match.config.rounds
    assert out["returns"] == {f"player_{s}": float(t) for s, t in enumerate(match.totals)}


def test_the_same_seed_deals_what_the_engine_and_cardtable_match_deal() -> None:
    env = solo_env(4, rules={"edition": "anniversary"})
    env.reset(seed=7)
    assert env.unwrapped.table.match.digest() == Match(make_config("solo", 4, {"edition": "anniversary"}),
                                                       match_seed(7, 0)).digest()
    env.reset()
    assert env.unwrapped.table.seed == match_seed(7, 1)


@pytest.mark.parametrize("game,players,rules", [("solo", 4, {}), ("solo", 6, {"edition": "anniversary"}),
                                                ("scout", 4, None), ("scout", 2, None)])
def test_the_env_trajectory_is_the_engine_trajectory(game: str, players: int, rules: dict | None) -> None:
    """Random agents in the env; the applied actions replayed on the engine give the same
    position (digest) after every action and the same round scores as the rewards."""
    env = solo_env(players, rules=rules) if game == "solo" else scout_env(players)
    out = run_random(env, seed=11, rng_seed=3)
    table = env.unwrapped.table
    match = Match(table.config, match_seed(11, 0))
    replay = Match(table.config, match_seed(11, 0))
    for seat, text in table.entries:
        replay.apply(seat, text)
    assert replay.digest() == table.match.digest()
    for seat, text in table.entries:
        match.apply(seat, match.parse_action(text))
    sign = -1 if getattr(table.config, "scoring", "") == "penalty" else 1
    assert out["returns"] == {f"player_{s}": float(sign * d) for s, d in enumerate(match.round_scores[0])}


@pytest.mark.parametrize("game,rules", [("solo", {"edition": "anniversary"}), ("solo", {}), ("scout", None)])
def test_engine_actions_said_as_tokens_give_the_engine_trajectory(game: str, rules: dict | None) -> None:
    """A headless bot match's first round, said token by token into the env, lands on the
    same digest after every action."""
    players = 4
    config = make_config(game, players, rules)
    seed = match_seed(5, 0)
    bots = [make_bot("random", seed, s) for s in range(players)]
    entries = play_match(Match(config, seed), bots).entries
    if game == "scout":  # the whole-hand choices are simultaneous: the env asks from the start player
        entries = sorted(entries[:players]) + entries[players:]
    env = solo_env(players, rules=rules) if game == "solo" else scout_env(players)
    env.reset(seed=5)
    table = env.unwrapped.table
    engine = Match(config, seed)
    codec = table.codec
    for seat, text in entries:
        if table.done:
            break
        action = engine.parse_action(text)
        while (decision := table.decision()) is not None and decision.seat != seat:
            assert decision.may_pass, "the env waits for a seat the engine record skips"
            table.say(codec.PASS)
        assert table.decision() is not None and table.decision().seat == seat
        for token in codec.encode(action, seat, players):
            table.say(token)
        engine.apply(seat, action)
        assert table.match.digest() == engine.digest()
    assert table.done


def test_out_of_turn_chances_are_offered_with_a_pass_token() -> None:
    env = solo_env(4)
    total = 0
    for seed in range(3):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        table = env.unwrapped.table
        while not table.done:
            decision = table.decision()
            tokens = table.legal_tokens()
            if decision.may_pass:
                total += 1
                assert solo_codec.PASS in tokens
                assert decision.seat != table.match.to_move()
                plays = table.match.legal_actions(decision.seat)
                assert plays and all(str(a) in {str(p) for p in plays} for a in decision.actions)
            else:
                assert solo_codec.PASS not in tokens
            table.say(int(rng.choice(tokens)))
    assert total > 0


def test_false_catches_are_offered_only_when_asked_for() -> None:
    for false_catches, expect in ((False, False), (True, True)):
        env = solo_env(3, rules={"edition": "anniversary"}, false_catches=false_catches)
        env.reset(seed=1)
        decision = env.unwrapped.table.decision()
        has_catch = any(str(a).startswith("catch:") for a in decision.actions)
        assert has_catch == expect


def test_opponent_bots_fill_their_seats_and_are_never_asked() -> None:
    env = solo_env(4, opponents={1: "ismcts:fast", 2: "heuristic", 3: "random"})
    assert env.possible_agents == ["player_0"]
    out = run_random(env, seed=2)
    table = env.unwrapped.table
    seats = {seat for seat, _ in table.entries}
    assert seats >= {1, 2, 3} and out["steps"] > 0
    replay = Match(table.config, table.seed)
    for seat, text in table.entries:
        replay.apply(seat, text)
    assert replay.digest() == table.match.digest()


def test_bad_options_fail_in_one_line() -> None:
    with pytest.raises(ParseError, match="players must be 2 to 10"):
        solo_env(11)
    with pytest.raises(ParseError, match="SCOUT is for 2 to 5"):
        scout_env(6)
    with pytest.raises(ParseError, match="unknown bot"):
        solo_env(3, opponents={1: "grandmaster"})
    with pytest.raises(ParseError, match="episode must be"):
        solo_env(3, episode="season")
    with pytest.raises(ParseError, match="unknown SOLO option"):
        solo_env(3, rules={"jokers": True})
    env = scout_env(3)
    env.reset(seed=0)
    with pytest.raises(IllegalAction, match="not legal now"):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0]))


def test_win_rewards_are_zero_sum_and_go_to_the_best() -> None:
    env = solo_env(3, reward="win")
    out = run_random(env, seed=4)
    winner = env.unwrapped.table.state.winner
    assert abs(sum(out["returns"].values())) < 1e-9
    assert max(out["returns"], key=out["returns"].get) == f"player_{winner}"
