"""The heuristic bots (ai/heuristic*.py): legality, strength against random play, a few
decisions whose right answer is obvious, and determinism.

Hand-built positions are ``State.from_snapshot`` dicts; the bot gets exactly what a seat gets:
``state.observation(seat)`` and ``state.legal_actions(seat)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from cardtable.ai.bots import RandomBot
from cardtable.ai.driver import play_match
from cardtable.ai.heuristic import HeuristicBot
from cardtable.engine.match import Match, match_seed
from cardtable.engine.scout import Config as ScoutConfig
from cardtable.engine.scout import State as ScoutState
from cardtable.engine.solo import Config as SoloConfig
from cardtable.engine.solo import State as SoloState

SEED = b"heuristic-tests"


# --- helpers ------------------------------------------------------------------------------
class Checked:
    """Wraps a bot: every ``choose`` must return a member of ``legal``, every ``react`` a
    member of ``legal`` or None. Counts the out-of-turn actions the bot took."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.name = bot.name
        self.reactions = 0
        self.choices = 0

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any:
        action = self.bot.choose(obs, legal)
        assert action in legal, f"choose returned {action} not in {[str(a) for a in legal]}"
        self.choices += 1
        return action

    def react(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        action = self.bot.react(obs, legal)
        assert action is None or action in legal, f"react returned {action}"
        if action is not None:
            self.reactions += 1
        return action


def solo_config(edition: str, players: int) -> SoloConfig:
    # Smaller pools / thresholds keep the many legality matches short; the rules are the same.
    if edition == "classic":
        return SoloConfig.preset("classic", players, pool=150)
    return SoloConfig.preset("anniversary", players, threshold=150)


def solo_state(edition: str, hands: list[str], discard: str, turn: int | None = 0, **more: Any) -> SoloState:
    """A SOLO position: one hand text per seat; the discard pile as text, top card last."""
    config = SoloConfig.preset(edition, len(hands))
    snap: dict[str, Any] = {
        "game": "solo",
        "config": config.to_dict(),
        "seed": SEED.hex(),
        "round": 0,
        "hands": [h.split() for h in hands],
        "draw": "B1 B2 B3 G4 G5 G6 Y7 Y8 Y9 R1 R2 R3".split(),
        "discard": discard.split(),
        "turn": turn,
    }
    snap.update(more)
    return SoloState.from_snapshot(snap)


def scout_state(hands: list[str], *, active: str = "", owner: int | None = None, turn: int = 0,
                phase: str = "play", chips: list[int] | None = None,
                scout_show: list[bool] | None = None) -> ScoutState:
    """A SCOUT position: one hand text per seat (``"5/1 6/2"``), the active set likewise."""
    n = len(hands)
    hand_lists = [h.split() for h in hands]
    return ScoutState.from_snapshot({
        "config": {"game": "scout", "players": n},
        "seed": SEED.hex(),
        "round": 0,
        "phase": phase,
        "turn": turn if phase == "play" else None,
        "flipped": [False] * n if phase == "play" else [None] * n,
        "hands": hand_lists,
        "known": [[False] * len(h) for h in hand_lists],
        "active": active.split(),
        "owner": owner,
        "captured": [[] for _ in range(n)],
        "chips": chips if chips is not None else [3 if n == 2 else 0] * n,
        "scout_show": scout_show if scout_show is not None else [n > 2] * n,
        "set_aside": [],
        "exempt": None,
    })


def choose(state: Any, seat: int) -> str:
    legal = state.legal_actions(seat)
    action = HeuristicBot(SEED, seat).choose(state.observation(seat), legal)
    assert action in legal
    return str(action)


def react(state: Any, seat: int) -> str | None:
    legal = state.legal_actions(seat)
    action = HeuristicBot(SEED, seat).react(state.observation(seat), legal)
    assert action is None or action in legal
    return None if action is None else str(action)


# --- legality -----------------------------------------------------------------------------
@pytest.mark.parametrize("edition", ["classic", "anniversary"])
@pytest.mark.parametrize("players", range(2, 11))
def test_solo_moves_are_always_legal(edition: str, players: int) -> None:
    config = solo_config(edition, players)
    took_out_of_turn = 0
    for game in range(2):
        seed = match_seed(101, game * 100 + players)
        if game == 0:  # heuristic bots only
            bots = [Checked(HeuristicBot(seed, s)) for s in range(players)]
        else:  # heuristic and random seats alternating
            bots = [Checked(HeuristicBot(seed, s) if s % 2 == 0 else RandomBot(seed, s))
                    for s in range(players)]
        result = play_match(Match(config, seed), bots)
        assert result.winners
        took_out_of_turn += sum(b.reactions for b in bots if b.name == "heuristic")
    assert took_out_of_turn > 0  # the react path was exercised (jump-ins, calls, catches)


@pytest.mark.parametrize("players", range(2, 6))
def test_scout_moves_are_always_legal(players: int) -> None:
    for game in range(4):
        seed = match_seed(102, game * 10 + players)
        if game % 2 == 0:
            bots = [Checked(HeuristicBot(seed, s)) for s in range(players)]
        else:
            bots = [Checked(HeuristicBot(seed, s) if s % 2 == 0 else RandomBot(seed, s))
                    for s in range(players)]
        result = play_match(Match(ScoutConfig(players), seed), bots)
        assert len(result.winners) >= 1
        assert all(b.choices > 0 for b in bots)


# --- strength -------------------------------------------------------------------------------
MATCHES = 40


def win_rate(config: Any, matches: int = MATCHES) -> float:
    """The heuristic's share of the wins against random seats, rotated through every seat."""
    n = config.players
    won = 0.0
    for i in range(matches):
        seed = match_seed(2024, i)
        me = i % n
        bots = [HeuristicBot(seed, s) if s == me else RandomBot(seed, s) for s in range(n)]
        result = play_match(Match(config, seed), bots)
        if me in result.winners:
            won += 1 / len(result.winners)
    return won / matches


@pytest.mark.parametrize("config", [
    SoloConfig.preset("classic", 4),
    SoloConfig.preset("anniversary", 4),
    ScoutConfig(4),
], ids=["solo-classic", "solo-anniversary", "scout"])
def test_heuristic_beats_three_random_players(config: Any) -> None:
    rate = win_rate(config)
    print(f"\n{config.describe()}: heuristic wins {rate:.1%} of {MATCHES} matches against 3 random")
    assert rate > 0.5  # parity is 25%


# --- SOLO decisions -------------------------------------------------------------------------
def test_solo_call_is_made_with_the_play() -> None:
    s = solo_state("classic", ["R5 G7", "B1 B2", "B3 B4", "B5 B6"], "G2 R3")
    assert choose(s, 0) == "R5!"


def test_solo_late_call_and_catch_in_window_mode() -> None:
    hands = ["G7", "B1 B2 B3", "Y1 Y2 Y3", "G1 G2 G3"]
    s = solo_state("anniversary", hands, "R5 R9", turn=1, laid_by=0, solo={"seat": 0, "called": False})
    assert react(s, 0) == "solo"
    assert react(s, 2) == "catch:0"
    assert choose(s, 1) == "catch:0"  # before playing, which would close the window


def test_solo_never_false_catches() -> None:
    hands = ["G7", "B1 B2 B3", "Y1 Y2 Y3", "G1 G2 G3"]
    called = solo_state("anniversary", hands, "R5 R9", turn=1, laid_by=0, solo={"seat": 0, "called": True})
    assert any(str(a) == "catch:0" for a in called.legal_actions(2))  # offered, but it would be false
    assert react(called, 2) is None
    assert react(solo_state("anniversary", hands, "R5 R9", turn=1, laid_by=0), 2) is None
    assert choose(called, 1) == "draw"  # nothing fits R9; no catch


def test_solo_stacks_a_draw_two() -> None:
    s = solo_state("anniversary", ["R5 G7 Bd2 protG", "B1 B2 B3", "B4 B5", "Y1 Y2"], "R4 Rd2",
                   penalty=2, penalty_kind="d2")
    assert choose(s, 0) == "Bd2"


def test_solo_protects_against_a_large_penalty_but_draws_a_small_one() -> None:
    big = solo_state("anniversary", ["R5 G7 B1 Y2 protG", "B1 B2 B3", "B4 B5", "Y1 Y2"], "R4 wd4",
                     colour="B", penalty=8, penalty_kind="wd4")
    assert choose(big, 0) == "protG"
    small = solo_state("anniversary", ["R5 G7 B1 Y2 protG", "B1 B2 B3", "B4 B5", "Y1 Y2"], "R4 Rd2",
                       penalty=2, penalty_kind="d2")
    assert choose(small, 0) == "draw"


def test_solo_wild_names_the_colour_held_most() -> None:
    s = solo_state("classic", ["wild B1 B2 B5 G3", "R1 R2", "R3 R4", "R5 R6"], "G8 Y7")
    assert choose(s, 0) == "wild:B"
    s = solo_state("classic", ["wild G1 B2 G5 G3", "R1 R2", "R3 R4", "R5 R6"], "G8 Y7")
    assert choose(s, 0) == "wild:G"


def test_solo_keeps_the_black_card_when_a_coloured_one_fits() -> None:
    s = solo_state("classic", ["wild Y1 B2 G5 G3", "R1 R2 R3", "R3 R4 R5", "R5 R6 R7"], "G8 Y7")
    assert choose(s, 0) == "Y1"


def test_solo_swaps_with_the_shortest_hand_only_when_it_helps() -> None:
    hands = ["Rswap G1 G2 B3 B4 Y5 Y6", "R1 R2 R3 R4 R5", "B1 B2", "Y1 Y2 Y3 Y4 Y5 Y6"]
    assert choose(solo_state("classic", hands, "G9 R8"), 0) == "Rswap:2"
    longer = ["Rswap G1", "R1 R2 R3 R4 R5", "B1 B2 B3", "Y1 Y2 Y3 Y4 Y5 Y6"]
    assert choose(solo_state("classic", longer, "G9 R8"), 0) == "draw"


def test_solo_draw_two_against_a_next_player_about_to_go_out() -> None:
    s = solo_state("classic", ["R5 Rd2 G7 B1", "Y9", "B3 B4 B5", "Y1 Y2 Y3"], "G2 R3")
    assert choose(s, 0) == "Rd2"
    reverse = solo_state("classic", ["R5 G7 B1", "Y9 Y8 Y7", "B3 B4 B5", "Y1"], "G2 R3", direction=-1)
    assert choose(reverse, 0) == "R5"  # seat 3 moves next; nothing to aim at seat 1


def test_solo_gift_goes_to_the_shortest_hand_without_black_cards() -> None:
    s = solo_state("anniversary", ["Rgift R9 wd4 B1 G2 Y3", "R1 R2 R3 R4 R5", "B4 B5", "Y1 Y2 Y3 Y4"],
                   "G2 R3")
    action = choose(s, 0)
    assert action.startswith("Rgift:2:")
    gifted = action.split(":")[2].split(",")
    assert "wd4" not in gifted and "R9" in gifted


def test_solo_jumps_in_with_the_identical_card() -> None:
    s = solo_state("classic", ["R1 R2 R3", "B1 B2 B3", "G7 Y4 Y5", "B4 B5 B6"], "R5 G7",
                   turn=0, laid_by=3, jump=True)
    assert react(s, 2) == "G7"
    assert react(s, 1) is None  # nothing identical to jump in with


def test_solo_protects_against_a_harmful_swap_only() -> None:
    window = {"kind": "swap", "by": 1, "target": 0, "pending": [0], "protected": [], "gift": []}
    bad = solo_state("anniversary", ["protG B1", "R1 R2 R3 R4 R5 R6", "B4 B5", "Y1 Y2"], "R4 Rswap",
                     turn=None, laid_by=1, react=window)
    assert choose(bad, 0) == "protG!"  # one card left: the call goes with it
    good = solo_state("anniversary", ["protG B1 B2 B3 B4 B5", "R1", "B4 B5", "Y1 Y2"], "R4 Rswap",
                      turn=None, laid_by=1, react=window)
    assert choose(good, 0) == "decline"


def test_solo_plays_the_drawn_card_but_keeps_a_drawn_protection() -> None:
    drew = solo_state("anniversary", ["G7 B1 Y2 R6", "B1 B2 B3", "B4 B5", "Y1 Y2"], "R4", drawn="R6")
    assert choose(drew, 0) == "R6"
    prot = solo_state("anniversary", ["G7 B1 Y2 protR", "B1 B2 B3", "B4 B5", "Y1 Y2"], "R4", drawn="protR")
    assert choose(prot, 0) == "keep"


def test_solo_plays_multiples() -> None:
    s = solo_state("anniversary", ["R5 G5 B5 Y9 R1", "B1 B2 B3", "B4 B6", "Y1 Y2"], "G2 R3")
    action = choose(s, 0)
    assert action.count("+") == 2 and action.startswith("R5")


# --- SCOUT decisions ------------------------------------------------------------------------
def test_scout_flips_a_hand_whose_flipped_form_has_a_long_run() -> None:
    s = scout_state(["9/5 7/4 10/3 6/2 8/1", "1/2 1/3", "1/4 1/5", "1/6 1/7"], phase="turn_choice")
    assert choose(s, 0) == "flip"
    assert react(s, 0) == "flip"  # the same decision when offered out of turn
    kept = scout_state(["5/9 4/7 3/10 2/6 1/8", "1/2 1/3", "1/4 1/5", "1/6 1/7"], phase="turn_choice")
    assert choose(kept, 0) == "keep"


def test_scout_scouts_the_card_that_completes_a_run() -> None:
    s = scout_state(["2/4 5/10 6/10 9/5 3/8", "1/2", "1/4", "1/6"], active="7/1 8/2 9/3", owner=3,
                    scout_show=[False, True, True, True])
    assert choose(s, 0) == "scout:L:7@3"  # 2 5 6 [7] 9 3: the run 5-6-7


def test_scout_scout_and_show_when_it_enables_a_much_better_show() -> None:
    others = ["2/8 2/9 2/10", "3/8 3/9 3/10", "4/8 4/9 4/10"]
    s = scout_state(["5/2 6/4 1/9 3/7 1/10", *others], active="7/10 8/10", owner=3)
    assert choose(s, 0) == "scout:L:7@2+show:0-2"  # 5-6-7 beats the single 8 left
    s = scout_state(["5/2 6/4 1/9 3/7 1/10", *others], active="7/10 8/10", owner=3,
                    scout_show=[False, True, True, True])
    assert choose(s, 0) == "scout:L:7@2"  # without the chip: scout the 7 into the run


def test_scout_shows_the_whole_hand_when_it_can() -> None:
    s = scout_state(["4/1 5/2 6/3", "7/8", "7/9", "7/10"], active="3/9 3/10", owner=3)
    assert choose(s, 0) == "show:0-2"


def test_scout_two_players_show_rather_than_spend_a_chip() -> None:
    s = scout_state(["9/1 9/2 1/3 5/2", "4/3 7/8"], active="6/7", owner=1)
    assert choose(s, 0) == "show:0-1"  # the pair of 9s beats the single 6


# --- determinism ----------------------------------------------------------------------------
@pytest.mark.parametrize("config", [SoloConfig.preset("anniversary", 5, threshold=200), ScoutConfig(4)],
                         ids=["solo", "scout"])
def test_same_seed_same_decisions(config: Any) -> None:
    def run() -> list[tuple[int, str]]:
        seed = match_seed(7, 7)
        bots = [HeuristicBot(seed, s) for s in range(config.players)]
        return play_match(Match(config, seed), bots).entries

    assert run() == run()
