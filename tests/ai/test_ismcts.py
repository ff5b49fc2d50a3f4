"""The search itself: budgets, legality of its answers, determinism, out-of-turn roots."""

from __future__ import annotations

from typing import Any

import pytest

from cardtable.ai._search import search  # built by pip install: its absence is a failure, not a skip
from cardtable.ai.bots import RandomBot
from cardtable.ai.driver import play_match
from cardtable.engine.match import Match
from cardtable.engine.scout import Config as ScoutConfig
from cardtable.engine.solo import Config as SoloConfig

CONFIGS = [SoloConfig.preset("classic", 4), SoloConfig.preset("anniversary", 5),
           SoloConfig.preset("classic", 2), ScoutConfig(players=2), ScoutConfig(players=4),
           ScoutConfig(players=5)]


def positions(config: Any, count: int) -> list[tuple[Match, int]]:
    """Mid-game positions reached by random play, with the seat the game waits for."""
    out = []
    for k in range(count):
        seed = f"positions/{k}".encode()
        match = Match(config, seed)
        try:
            bots = [RandomBot(seed, s) for s in range(config.players)]  # the positions tuned on
            play_match(match, bots, max_actions=3 + 7 * k)
        except RuntimeError:
            pass
        if not match.is_over():
            seat = match.to_move()
            assert seat is not None
            out.append((match, seat))
    return out


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.describe())
def test_the_search_answers_a_legal_move_and_repeats_itself(config: Any) -> None:
    for match, seat in positions(config, 6):
        obs = match.observation(seat)
        text, stats = search(config.game, obs, obs["config"], seat, iterations=300, seed=7)
        assert text in {str(a) for a in match.legal_actions(seat)}
        assert stats["iterations"] == 300
        assert 1 <= stats["nodes"] <= 301
        assert search(config.game, obs, obs["config"], seat, iterations=300, seed=7)[0] == text


@pytest.mark.parametrize("config", [SoloConfig.preset("anniversary", 4), ScoutConfig(players=4)],
                         ids=lambda c: c.describe())
def test_each_root_move_is_one_child_and_every_iteration_passes_one(config: Any) -> None:
    """A move seen again in another determinization finds its child (the key index), never
    grows a second one; every iteration goes through exactly one root child."""
    widest = 0
    for match, seat in positions(config, 4):
        obs = match.observation(seat)
        _, stats = search(config.game, obs, obs["config"], seat, iterations=2000, seed=3)
        texts = [text for text, _, _ in stats["children"]]
        assert len(set(texts)) == len(texts)
        assert sum(visits for _, visits, _ in stats["children"]) == 2000
        widest = max(widest, len(texts))
    assert widest > 5


@pytest.mark.parametrize("config", [SoloConfig.preset("anniversary", 4), ScoutConfig(players=4)],
                         ids=lambda c: c.describe())
def test_halving_keeps_the_better_half_of_the_root_each_round(config: Any) -> None:
    """``root="halving"``: the budget is kept; the root's moves are tried in rounds, so as many
    moves reach each visit count as survived to that round (all, then half, ...); the answer is
    the most visited move, which beat the other finalist on mean reward; a seed repeats it; and
    it is not the PUCT search's root."""
    differs = 0
    for match, seat in positions(config, 4):
        obs = match.observation(seat)
        text, stats = search(config.game, obs, obs["config"], seat, iterations=2000, seed=5, root="halving")
        children = stats["children"]
        assert text in {str(a) for a in match.legal_actions(seat)}
        assert stats["iterations"] <= 2000 and sum(v for _, v, _ in children) == stats["iterations"]
        assert children[0][0] == text
        if len(children) > 1:
            assert children[1][1] < children[0][1] or children[1][2] <= children[0][2]
        rounds = [len(children)]  # moves in each round: n, then the better half (rounded up) ...
        while rounds[-1] > 2:
            rounds.append((rounds[-1] + 1) // 2)
        levels = sorted({v for _, v, _ in children})
        assert [sum(v >= level for _, v, _ in children) for level in levels] == rounds
        assert search(config.game, obs, obs["config"], seat, iterations=2000, seed=5,
                      root="halving")[1]["children"] == children
        puct = search(config.game, obs, obs["config"], seat, iterations=2000, seed=5)[1]["children"]
        differs += puct != children
    assert differs > 0
    with pytest.raises(ValueError, match="root"):
        search(config.game, obs, obs["config"], seat, iterations=10, root="tournament")


def test_a_seconds_budget_stops_the_search() -> None:
    match, seat = positions(SoloConfig.preset("anniversary", 4), 2)[-1]
    obs = match.observation(seat)
    for root in ("puct", "halving"):
        _, stats = search("solo", obs, obs["config"], seat, seconds=0.05, seed=1, root=root)
        assert stats["iterations"] > 0 and stats["seconds"] < 1.0


def test_a_deadline_on_the_search_clock_stops_the_search_and_a_past_one_still_answers() -> None:
    """``deadline`` is a time on ``clock()`` (several searches can share one decision's end);
    a search called after it does one iteration (halving: one root move) and still answers."""
    from cardtable.ai._search import clock

    match, seat = positions(SoloConfig.preset("anniversary", 4), 2)[-1]
    obs, legal = match.observation(seat), {str(a) for a in match.legal_actions(seat)}
    for root in ("puct", "halving"):
        text, stats = search("solo", obs, obs["config"], seat, deadline=clock() + 0.05, seed=1, root=root)
        assert text in legal and stats["iterations"] > 0 and stats["seconds"] < 1.0
        text, stats = search("solo", obs, obs["config"], seat, deadline=clock() - 1.0, seed=1, root=root)
        assert text in legal and stats["iterations"] == 1
        # the earlier of seconds and deadline ends it; an iteration budget still counts
        _, stats = search("solo", obs, obs["config"], seat, seconds=30.0, deadline=clock() + 0.05, seed=1,
                          root=root)
        assert stats["seconds"] < 1.0
        _, stats = search("solo", obs, obs["config"], seat, iterations=40, deadline=clock() + 30.0, seed=1,
                          root=root)
        assert stats["iterations"] <= 40


def test_node_pools_are_kept_for_the_next_search_and_a_reused_one_searches_alike() -> None:
    """A search keeps its node pool for a later one instead of freeing it after its deadline;
    a reused pool, full of an earlier tree, changes nothing; the spares stay bounded."""
    from cardtable.ai import _search

    match, seat = positions(ScoutConfig(players=3), 1)[0]
    obs = match.observation(seat)

    def answer() -> tuple[str, dict[str, Any]]:
        text, stats = search("scout", obs, obs["config"], seat, iterations=500, seed=4)
        return text, {k: v for k, v in stats.items() if k not in ("seconds", "stopped")}

    first = answer()
    search("scout", obs, obs["config"], seat, iterations=3000, seed=9)  # another tree in the pool
    assert answer() == first
    for _ in range(3 * _search.SPARE_POOLS):
        search("scout", obs, obs["config"], seat, iterations=50, seed=1)
    assert 1 <= len(_search._spare_pool_sizes()) <= _search.SPARE_POOLS


def test_a_budget_is_required() -> None:
    match, seat = positions(ScoutConfig(players=3), 1)[0]
    obs = match.observation(seat)
    with pytest.raises(ValueError, match="budget"):
        search("scout", obs, obs["config"], seat)


def test_out_of_turn_root_may_wait_or_jump_in() -> None:
    """At an open jump-in window the searcher's answer is a legal jump-in or None (wait)."""
    from cardtable.engine.solo import State

    config = SoloConfig.preset("classic", 4)
    snap = Match(config, b"jump").state.snapshot()
    twin = snap["discard"][-1]
    if twin not in snap["hands"][2]:  # move the twin of the top card to seat 2, in a swap
        pile = next(p for p in [*snap["hands"], snap["draw"]] if twin in p)
        give = snap["hands"][2][0]
        pile[pile.index(twin)] = give
        snap["hands"][2][0] = twin
    match = Match(config, b"jump")
    match.state = State.from_snapshot(snap)
    assert match.to_move() != 2
    jump_ins = {str(a) for a in match.legal_actions(2)}
    assert jump_ins, "seat 2 holds the identical card"
    obs = match.observation(2)
    answers = {search("solo", obs, obs["config"], 2, iterations=400, seed=s, wait=True)[0] for s in range(4)}
    assert answers <= jump_ins | {None}


def _swap_hidden(match: Match, seat: int) -> Match | None:
    """A twin of ``match`` whose hidden cards differ (two unseen cards of other seats, or of an
    other seat and the draw pile, change places) while ``seat``'s observation is identical."""
    snap = match.snapshot()
    state = snap["state"]
    others = [s for s in range(len(state["hands"])) if s != seat]
    places: list[tuple[list[Any], int]] = []
    solo = state.get("game") == "solo"
    for s in others:
        hand = state["hands"][s]
        for i in range(len(hand)):  # SOLO: known[observer][holder] faces; SCOUT: known[holder][i]
            if (hand[i] not in state["known"][seat][s]) if solo else not state["known"][s][i]:
                places.append((hand, i))
    pile = state.get("draw") or state.get("set_aside") or []
    for i in range(len(pile)):
        places.append((pile, i))
    for a in range(len(places)):
        for b in range(a + 1, len(places)):
            (pa, ia), (pb, ib) = places[a], places[b]
            if pa is pb or pa[ia] == pb[ib]:
                continue
            pa[ia], pb[ib] = pb[ib], pa[ia]
            twin = Match.from_snapshot(snap)
            if twin.observation(seat) == match.observation(seat):
                assert twin.snapshot() != match.snapshot()
                return twin
            pa[ia], pb[ib] = pb[ib], pa[ia]
    return None


@pytest.mark.parametrize("config", [SoloConfig.preset("anniversary", 4), SoloConfig.preset("classic", 4),
                                    ScoutConfig(players=4), ScoutConfig(players=2)],
                         ids=lambda c: c.describe())
@pytest.mark.parametrize("options", [{}, {"rollout": "random"}, {"cpuct": 0.0}, {"max_depth": 1},
                                     {"keys": "cards"}, {"keys": "cards", "cpuct": 0.0},
                                     {"opponents": "policy"},
                                     {"opponents": "policy", "keys": "cards", "reward_mode": 1},
                                     {"opponents": "sample", "keys": "cards"},
                                     {"root": "halving", "opponents": "policy", "keys": "cards"}], ids=str)
def test_no_peeking_hidden_cards_do_not_change_the_move_or_the_root_statistics(
        config: Any, options: dict[str, Any]) -> None:
    """Same observation and seed, hidden cards swapped between other hands and the pile: the
    same move and the same visits and mean rewards of every root move."""
    checked = 0
    for match, seat in positions(config, 4):
        twin = _swap_hidden(match, seat)
        if twin is None:
            continue
        answers = []
        for m in (match, twin):
            obs = m.observation(seat)
            answers.append(search(config.game, obs, obs["config"], seat, iterations=400, seed=11, **options))
        assert answers[0][0] == answers[1][0]
        assert answers[0][1]["children"] == answers[1][1]["children"]
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("config", [SoloConfig.preset("anniversary", 4), ScoutConfig(players=4)],
                         ids=lambda c: c.describe())
def test_random_rollouts_answer_legal_moves_deterministically(config: Any) -> None:
    for match, seat in positions(config, 4):
        obs = match.observation(seat)
        text, stats = search(config.game, obs, obs["config"], seat, iterations=500, seed=5, rollout="random")
        assert text in {str(a) for a in match.legal_actions(seat)}
        again = search(config.game, obs, obs["config"], seat, iterations=500, seed=5, rollout="random")
        assert (text, stats["children"]) == (again[0], again[1]["children"])
        assert sum(v for _, v, _ in stats["children"]) == 500


def test_card_keys_change_scouts_tree_and_repeat_themselves() -> None:
    """``keys="cards"`` names the other seats' SCOUT moves by the cards shown: a different tree
    (the root statistics differ somewhere), the same answer for the same seed."""
    differs = 0
    for match, seat in positions(ScoutConfig(players=4), 4):
        obs = match.observation(seat)
        cards = search("scout", obs, obs["config"], seat, iterations=600, seed=3, keys="cards")
        again = search("scout", obs, obs["config"], seat, iterations=600, seed=3, keys="cards")
        assert (cards[0], cards[1]["children"]) == (again[0], again[1]["children"])
        assert cards[0] in {str(a) for a in match.legal_actions(seat)}
        plain = search("scout", obs, obs["config"], seat, iterations=600, seed=3)
        differs += cards[1]["children"] != plain[1]["children"]
    assert differs > 0
    with pytest.raises(ValueError, match="keys"):
        search("scout", obs, obs["config"], seat, iterations=10, keys="colours")


def test_an_unknown_rollout_is_refused() -> None:
    match, seat = positions(ScoutConfig(players=3), 1)[0]
    obs = match.observation(seat)
    with pytest.raises(ValueError, match="rollout"):
        search("scout", obs, obs["config"], seat, iterations=10, rollout="greedy")


def test_a_flat_search_passes_only_the_root_and_its_moves() -> None:
    for config in (SoloConfig.preset("anniversary", 4), ScoutConfig(players=4)):
        match, seat = positions(config, 3)[-1]
        obs = match.observation(seat)
        _, flat = search(config.game, obs, obs["config"], seat, iterations=600, seed=2, max_depth=1)
        _, deep = search(config.game, obs, obs["config"], seat, iterations=600, seed=2)
        assert flat["mean_depth"] == 1.0
        assert flat["nodes"] == 1 + len(flat["children"])
        assert deep["mean_depth"] > 1.0
