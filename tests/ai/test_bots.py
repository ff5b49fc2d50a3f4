"""Every bot behind one interface: legal answers, determinism, and no peeking."""

from __future__ import annotations

from typing import Any

import pytest

from cardtable.ai.bots import make_bot
from cardtable.engine.match import Match
from cardtable.engine.scout import Config as ScoutConfig
from cardtable.engine.scout import State as ScoutState
from cardtable.engine.solo import Config as SoloConfig
from cardtable.engine.solo import State as SoloState

BOTS = ["random", "heuristic", "ismcts:strong"]


def solo_twins(edition: str) -> tuple[Match, Match, int]:
    """Two matches that differ only in the hidden cards of seats 2 and 3 and the draw pile."""
    one = Match(SoloConfig.preset(edition, 4), b"twins")
    seat = one.to_move()
    assert seat is not None
    snap = one.state.snapshot()
    a, b = (seat + 1) % 4, (seat + 2) % 4
    hands = snap["hands"]
    hands[a], hands[b] = sorted(hands[a][:4] + hands[b][4:]), sorted(hands[b][:4] + hands[a][4:])
    snap["draw"] = list(reversed(snap["draw"]))
    two = Match(one.config, b"twins")
    two.state = SoloState.from_snapshot(snap)
    return one, two, seat


def scout_twins() -> tuple[Match, Match, int]:
    """Two SCOUT matches that differ only in the cards of two other seats."""
    one = Match(ScoutConfig(players=4), b"twins")
    seat = 0
    snap = one.state.snapshot()
    hands = snap["hands"]
    hands[1][0], hands[2][0] = hands[2][0], hands[1][0]
    two = Match(one.config, b"twins")
    two.state = ScoutState.from_snapshot(snap)
    return one, two, seat


def decide(bot_spec: str, match: Match, seat: int) -> str | None:
    bot = make_bot(bot_spec, b"same-seed", seat)
    legal = match.legal_actions(seat)
    obs = match.observation(seat)
    action: Any = bot.choose(obs, legal) if match.to_move() == seat else bot.react(obs, legal)
    return None if action is None else str(action)


@pytest.mark.parametrize("spec", [*BOTS, "ismcts:fast", "ismcts:2000+answer=value", "ismcts:300+trees=3"])
@pytest.mark.parametrize("twins", [lambda: solo_twins("classic"), lambda: solo_twins("anniversary"),
                                   scout_twins], ids=["solo-classic", "solo-anniversary", "scout"])
def test_no_peeking(spec: str, twins: Any) -> None:
    one, two, seat = twins()
    assert one.state.snapshot() != two.state.snapshot(), "the hidden cards must differ"
    assert one.observation(seat) == two.observation(seat), "the seat must see the same"
    assert decide(spec, one, seat) == decide(spec, two, seat)


@pytest.mark.parametrize("spec", BOTS)
@pytest.mark.parametrize("config", [SoloConfig.preset("anniversary", 3, threshold=120),
                                    SoloConfig.preset("classic", 2, pool=60), ScoutConfig(players=3)],
                         ids=lambda c: c.describe())
def test_bots_finish_matches_with_legal_moves_and_repeat_themselves(spec: str, config: Any) -> None:
    from cardtable.ai.driver import play_match

    def play() -> tuple[list[tuple[int, str]], str]:
        match = Match(config, b"legal")
        bots = [make_bot(spec if s == 0 else "heuristic", b"legal", s) for s in range(config.players)]
        result = play_match(match, bots)  # the match applies every move: an illegal one raises
        return result.entries, result.digest

    first = play()
    assert first[0], "the match should have moves"
    assert play() == first
