"""Inference (ai/scout_clues.py, ai/_infer.pxi): the clues read from one seat's observations,
the belief they give on constructed positions, determinism, no peeking, time budgets."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from typing import Any

import pytest

from cardtable.ai._search import (
    ScoutClueSet,
    ScoutInfoSet,
    ScoutMirror,
    SoloClueSet,
    SoloInfoSet,
    SoloMirror,
    search,
)
from cardtable.ai.bots import make_bot
from cardtable.ai.driver import asking_order
from cardtable.ai.heuristic import HeuristicBot
from cardtable.ai.ismcts import IsmctsBot, parse_level
from cardtable.ai.scout_clues import ScoutClueReader
from cardtable.ai.solo_clues import SoloClueReader
from cardtable.engine.errors import ParseError
from cardtable.engine.match import Match
from cardtable.engine.scout import Config as ScoutConfig
from cardtable.engine.solo import Config as SoloConfig
from tests.ai.test_ismcts import _swap_hidden, positions


def heuristic_round(players: int, seed: bytes, me: int, until: int = 10_000) -> tuple[
        Match, ScoutClueReader, list[tuple[int, str, list[str]]], list[dict[str, Any]]]:
    """The first round of a match of heuristic bots, to its end or to ``me``'s first turn
    after ``until`` moves, ``me``'s clue reader fed every observation it is given and every
    move it made; the moves made (seat, text, the active set it faced) and ``me``'s
    observations when it was asked to play."""
    match = Match(ScoutConfig(players=players), seed)
    bots = [HeuristicBot(seed, s) for s in range(players)]
    reader = ScoutClueReader(me)
    moves: list[tuple[int, str, list[str]]] = []
    mine: list[dict[str, Any]] = []
    while match.state.round_no == 0:
        waiting = match.to_move()
        assert waiting is not None
        if len(moves) >= until and waiting == me and match.state.phase == "play":
            break
        for k in range(1, players + 1):
            seat = (waiting + k) % players
            if seat not in set(match.actors()):
                continue
            obs = match.observation(seat)
            if seat == me:
                reader.see(obs)
                if obs["phase"] == "play":
                    mine.append(obs)
            legal = match.legal_actions(seat)
            action = bots[seat].choose(obs, legal) if seat == waiting else bots[seat].react(obs, legal)
            if action is not None:
                if seat == me:
                    reader.note(str(action))
                moves.append((seat, str(action), [str(c) for c in match.state.active]))
                match.apply(seat, action)
                break
    return match, reader, moves, mine


def test_the_clues_are_the_moves_the_other_seats_made() -> None:
    """Over a few rounds at 3-5 players, nearly every clue names the move its seat made, the
    set it faced and (for a show) a position set that holds the true one; the turn clues are
    every other seat's flip or keep."""
    right = wrong = 0
    for players in (3, 4, 5):
        for k in range(3):
            _, reader, moves, _ = heuristic_round(players, f"clues/{k}".encode(), k % players)
            plays = [m for m in moves if m[1] not in ("flip", "keep") and m[0] != k % players]
            turns = [m for m in moves if m[1] in ("flip", "keep") and m[0] != k % players]
            clues = [c for c in reader.clues if c["kind"] in ("show", "scout", "scout_show")]
            assert sorted((c["seat"], c["kind"]) for c in reader.clues if c["kind"] in ("flip", "keep")) == \
                sorted((m[0], m[1]) for m in turns)
            for clue, (seat, text, faced) in zip(clues, plays, strict=False):
                kind = "scout_show" if "+show" in text else "scout" if text.startswith("scout") else "show"
                ok = clue["seat"] == seat and clue["kind"] == kind and sorted(clue["before"]) == sorted(faced)
                if kind == "show":
                    ok = ok and int(text[5:].split("-")[0]) in clue["q"]
                right += ok
                wrong += not ok
    assert right > 60 and wrong <= 0.1 * right, (right, wrong)


def test_two_players_give_no_clues() -> None:
    _, reader, moves, _ = heuristic_round(2, b"two", 0)
    assert len(moves) > 4 and reader.clues == []


def scouted_windows(seeds: int = 40) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]]:
    """4-player positions, seat 0 to play, where seat 1 scouted on its last move: seat 0's
    observation, its clues, and that scout clue."""
    for k in range(seeds):
        match, reader, _, _ = heuristic_round(4, f"scouted/{k}".encode(), 0, until=10 + k % 8)
        if match.state.round_no != 0:
            continue
        obs = match.observation(0)
        clues = list(reader.see(obs))
        if len(clues) >= 3 and clues[-3]["kind"] == "scout" and clues[-3]["seat"] == 1:
            yield obs, clues, clues[-3]


def beats(hand: list[str], faced: list[str]) -> bool:
    """``hand`` holds adjacent cards that make a show stronger than ``faced``."""
    def strength(ups: list[int]) -> tuple[int, int, int] | None:
        if len(set(ups)) == 1:
            return (len(ups), 1, ups[0])
        steps = {b - a for a, b in zip(ups, ups[1:], strict=False)}
        return (len(ups), 0, min(ups)) if steps in ({1}, {-1}) else None
    target = strength([int(c.split("/")[0]) for c in faced]) or (0, 0, 0)
    ups = [int(c.split("/")[0]) for c in hand]
    for i in range(len(ups)):
        for j in range(i + 1, len(ups) + 1):
            s = strength(ups[i:j])
            if s is not None and s > target:
                return True
    return False


def test_a_seat_that_scouted_is_believed_less_likely_to_hold_a_show_that_beats_the_set() -> None:
    """Constructed: seat 1 scouted a card off a pair instead of showing. Weighted by that one
    clue, the samples in which its hand held a show beating the pair weigh far less than
    their share of uniform samples."""
    ratios = []
    for obs, _, real in scouted_windows(120):
        up = int(real["card"].split("/")[0])
        pair = [real["card"], f"{up}/{up % 10 + 1}"]
        clue = {**real, "before": pair, "owner": 3, "scout_show": False}
        info = ScoutInfoSet(obs, obs["config"])
        belief = ScoutClueSet([clue], 1.0, 0)
        strong, weights = [], []
        for k in range(200):
            sample = info.sample(k)
            hand = list(sample.snapshot()["hands"][1])
            hand.remove(next(c for c in hand if sorted(c.split("/")) == sorted(real["card"].split("/"))))
            strong.append(beats(hand, pair))
            weights.append(math.exp(belief.logweight(sample)))
        uniform = sum(strong) / len(strong)
        if not 0.2 < uniform < 0.95:
            continue  # nothing to learn where (nearly) every hand or none could beat the set
        believed = sum(w for w, s in zip(weights, strong, strict=True) if s) / sum(weights)
        assert believed < 0.85 * uniform, (uniform, believed)
        ratios.append(believed / uniform)
    assert len(ratios) >= 3 and sum(ratios) / len(ratios) < 0.6


def test_the_clues_weigh_the_true_deal_above_most_uniform_samples() -> None:
    """The true hands, weighed by the clues, weigh more than most uniform samples."""
    ranks = []
    for k in range(8):
        match, reader, _, _ = heuristic_round(4, f"rank/{k}".encode(), k % 4, until=16)
        if match.state.round_no != 0:
            continue
        obs = match.observation(k % 4)
        belief = ScoutClueSet(reader.see(obs), 1.0, 0)
        truth = belief.logweight(ScoutMirror.from_snapshot(match.state.snapshot()))
        info = ScoutInfoSet(obs, obs["config"])
        ranks.append(sum(belief.logweight(info.sample(j)) < truth for j in range(60)) / 60)
    assert len(ranks) >= 4 and sum(ranks) / len(ranks) > 0.75


def test_inference_changes_the_search_and_repeats_itself() -> None:
    obs, clues, _ = next(scouted_windows())
    seat = obs["seat"]
    first = search("scout", obs, obs["config"], seat, iterations=300, seed=4, clues=clues, particles=64)
    again = search("scout", obs, obs["config"], seat, iterations=300, seed=4, clues=clues, particles=64)
    plain = search("scout", obs, obs["config"], seat, iterations=300, seed=4)
    assert (first[0], first[1]["children"]) == (again[0], again[1]["children"])
    assert first[1]["clues"] == len(clues) and 0 < first[1]["particles_alive"] <= 64
    assert first[1]["children"] != plain[1]["children"] and plain[1]["clues"] == 0


def _twin_deal(match: Match, seat: int) -> dict[str, Any] | None:
    """The deal of ``match`` with two cards swapped that stayed hidden from ``seat`` all along
    (each still in another hand at a position that was never public)."""
    now = match.state.snapshot()
    hidden = [(s, c) for s in range(len(now["hands"])) if s != seat
              for c, known in zip(now["hands"][s], match.state.known[s], strict=True) if not known]
    pair = next(((a, b) for a in hidden for b in hidden if a[0] < b[0]), None)
    if pair is None:
        return None
    deal = Match(match.config, match.seed).snapshot()
    hands = deal["state"]["hands"]

    def where(card: str) -> tuple[int, int]:
        same = sorted(card.split("/"))
        return next((s, i) for s, hand in enumerate(hands) for i, c in enumerate(hand)
                    if sorted(c.split("/")) == same)
    (sa, ia), (sb, ib) = where(pair[0][1]), where(pair[1][1])
    hands[sa][ia], hands[sb][ib] = hands[sb][ib], hands[sa][ia]
    return deal


def test_no_peeking_a_swap_that_keeps_the_public_history_keeps_the_move_and_statistics() -> None:
    """Two deals that differ in two cards that stayed hidden from seat 0, the same moves
    played: seat 0 sees the same observations, so a bot that infers from them makes the same
    move with the same root statistics."""
    checked = 0
    for k in range(4):
        match, _, moves, _ = heuristic_round(4, f"peek/{k}".encode(), 0, until=12 + k)
        if match.state.round_no != 0:
            continue
        deal = _twin_deal(match, 0)
        assert deal is not None
        twin = Match.from_snapshot(deal)
        answers = []
        for m in (Match(match.config, match.seed), twin):
            bot = IsmctsBot(b"peek", 0, "300+infer=1+particles=64")
            for seat, text, _ in moves:
                if seat == 0 or m.state.phase == "turn_choice":
                    bot.clues.see(m.observation(0))
                if seat == 0:
                    bot.clues.note(text)
                m.apply(seat, text)
            obs = m.observation(0)
            answers.append((bot.choose(obs, m.legal_actions(0)), bot.last_stats["children"],
                            list(bot.clues.clues), obs))
        assert answers[0][3] == answers[1][3] and twin.snapshot() != match.snapshot()
        assert answers[0][2] and answers[0][:3] == answers[1][:3]
        checked += 1
    assert checked >= 2


def test_a_time_budget_is_a_level() -> None:
    assert parse_level("1s") == (0, {"seconds": 1.0})
    assert parse_level("0.5s+infer=0") == (0, {"seconds": 0.5, "infer": "0"})
    for bad in ("0s", "1.5x", "-1s", "1.2345s", "s", "10000s"):
        with pytest.raises(ParseError) as err:
            make_bot(f"ismcts:{bad}", b"seed", 0)
        assert "\n" not in str(err.value)


def test_a_bot_with_a_time_budget_keeps_to_it() -> None:
    """A 0.2 s bot answers within a generous multiple of it, having searched."""
    match, reader, _, _ = heuristic_round(4, b"budget", 0, until=6)
    obs = match.observation(0)
    bot = IsmctsBot(b"budget", 0, "0.2s+infer=1")
    bot.clues = reader
    started = time.perf_counter()
    bot.choose(obs, match.legal_actions(0))
    assert time.perf_counter() - started < 2.0
    assert bot.last_stats["iterations"] > 0


def test_a_clue_that_cannot_be_read_is_cut_off_not_overrun() -> None:
    """A show clue longer than any hand could have been, or a scouted card the hand does not
    hold, ends its seat's story: the weight is that of the other clues, nothing is overrun."""
    obs, clues, clue = next(scouted_windows())
    info = ScoutInfoSet(obs, obs["config"])
    sample = info.sample(3)
    cards = [f"{u}/{d}" for u in range(1, 11) for d in range(u + 1, 11)]
    huge = {"seat": 1, "kind": "show", "show": cards, "q": list(range(48)), "before": [],
            "sizes": [10, 10, 10, 10]}
    held = {tuple(sorted(c.split("/"))) for c in sample.snapshot()["hands"][1]}
    missing = {**clue, "card": next(c for c in info.pool if tuple(sorted(c.split("/"))) not in held)}
    for bad in (huge, missing):
        assert ScoutClueSet([bad], 1.0, 0).logweight(sample) == 0.0
        assert ScoutClueSet([*clues, bad], 1.0, 0).logweight(sample) <= 0.0


# --- SOLO ----------------------------------------------------------------------------------

def heuristic_solo(edition: str, seed: bytes, steps: int) -> tuple[int, int]:
    """A SOLO match of heuristic bots for ``steps`` moves, seat 0's clue reader fed every
    observation seat 0 is given: how many of those observations had clues, and in how many
    the true hands broke one."""
    match = Match(SoloConfig.preset(edition, 4), seed)
    bots = [HeuristicBot(seed, s) for s in range(4)]
    reader = SoloClueReader(0)
    with_clues = broken = 0
    for _ in range(steps):
        if match.is_over():
            break
        waiting = match.to_move()
        for seat in asking_order(match):
            obs, legal = match.observation(seat), match.legal_actions(seat)
            if seat == 0 and reader.see(obs):
                truth = SoloMirror.from_snapshot(match.state.snapshot())
                with_clues += 1
                broken += SoloClueSet(reader.clues).logweight(truth) < 0
            action = bots[seat].choose(obs, legal) if seat == waiting else bots[seat].react(obs, legal)
            if action is not None:
                match.apply(seat, action)
                break
    return with_clues, broken


@pytest.mark.parametrize("edition", ["anniversary", "classic"])
def test_solo_draw_clues_hold_for_the_true_hands(edition: str) -> None:
    """Heuristic bots draw only when no card fits: the true hands keep to the clues read
    (nearly always: a heuristic may still draw rather than play a Swap it dislikes)."""
    with_clues = broken = 0
    for k in range(4):
        seen, bad = heuristic_solo(edition, f"solo-clues/{k}".encode(), 500)
        with_clues += seen
        broken += bad
    assert with_clues > (100 if edition == "anniversary" else 40)
    assert broken <= 0.1 * with_clues


def test_a_seat_that_drew_is_believed_not_to_hold_a_card_that_fits() -> None:
    """Constructed: seat 1 drew on a red 5 and has gained nothing since. Weighted by that
    clue, its sampled hands hold a red card, a 5 or a wild card far less often."""
    match = Match(SoloConfig.preset("anniversary", 4), b"solo-belief")
    obs = match.observation(0)
    info = SoloInfoSet(obs, obs["config"])
    belief = SoloClueSet([{"seat": 1, "top": "R5", "colour": "R", "budget": 0}])

    def fitting(hand: list[str]) -> bool:  # a red card, a 5 or a wild card; Swaps and Pass hands aside
        return any(c in ("wild", "wd4") or (c[0] == "R" and c != "Rswap") or (c[0] in "GBY" and c[1:] == "5")
                   for c in hand)
    uniform = weighted = total = 0.0
    for k in range(200):
        sample = info.sample(k)
        w = math.exp(belief.logweight(sample))
        fit = fitting(sample.snapshot()["hands"][1])
        uniform += fit / 200
        weighted += w * fit
        total += w
    assert uniform > 0.8 and weighted / total < 0.35


@pytest.mark.parametrize("edition", ["anniversary", "classic"])
def test_solo_inference_repeats_itself_and_does_not_peek(edition: str) -> None:
    """The same clues and seed, the same answer; two positions that differ only in hidden
    cards (the observation the same), the same move and root statistics."""
    checked = 0
    for m, seat in positions(SoloConfig.preset(edition, 4), 4):
        twin = _swap_hidden(m, seat)
        if twin is None:
            continue
        other = (seat + 1) % 4
        clues = [{"seat": other, "top": m.observation(seat)["top"], "colour": "R", "budget": 0}]
        answers = []
        for x in (m, m, twin):
            obs = x.observation(seat)
            answers.append(search("solo", obs, obs["config"], seat, iterations=300, seed=8, clues=clues,
                                  particles=64))
        assert answers[0][1]["clues"] == 1
        assert (answers[0][0], answers[0][1]["children"]) == (answers[1][0], answers[1][1]["children"])
        assert (answers[0][0], answers[0][1]["children"]) == (answers[2][0], answers[2][1]["children"])
        checked += 1
    assert checked >= 2
