"""Out-of-turn fairness: a jump-in, catch or call that lost its race is told; the computer
players' reaction time and the rate at which they forget a SOLO call are options."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.widgets import Static

from cardtable.ai.bots import ForgetsCalls, make_bot, parse_bot_spec, with_forget
from cardtable.cli.controller import Controller
from cardtable.cli.main import main
from cardtable.cli.player_words import Note
from cardtable.cli.session import LocalSession
from cardtable.cli.tui import TableApp
from cardtable.engine.errors import ParseError
from tests.cli.test_client_controller import client, solo_match


def race() -> Any:
    """cpu 1 is to move on R5; seat 0 holds the other R5 and may jump in until cpu 1 plays R7."""
    return solo_match(["R5 G3", "R7 G1 G2", "B1 B3", "Y1 Y2"], discard="R5", turn=1, jump=True, laid_by=3)


def test_pilot_a_jump_in_that_lost_its_race_is_told() -> None:
    session = LocalSession(race(), 0, "heuristic")
    app = TableApp(Controller(session), bot_delay=None)
    seen: dict[str, Any] = {}

    async def main_() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            seen["offered"] = "j" in app.screen.active_bindings and app.check_action("jump", ())
            assert session.step()  # cpu 1 plays R7 before our key press lands
            await pilot.press("j")
            await pilot.pause()
            seen["status"] = str(app.query_one("#status", Static).render())

    asyncio.run(main_())
    assert seen["offered"]
    assert "too late: cpu 1 played first" in seen["status"]


def test_a_refused_jump_in_names_who_was_first() -> None:
    session, c = client(race())
    session._emit(Note("play", 2, "jumps in with R5", {"cards": ["R5"], "jump": True}))
    session._emit(Note("refused", 0, "R5 is not legal now"))
    assert c.message == "too late: cpu 2 jumped in first"
    assert c.log[-1] == "Too late: cpu 2 jumped in first."


def test_an_old_action_is_no_race() -> None:
    now = [0.0]
    session, c = client(race(), clock=lambda: now[0])
    session._emit(Note("play", 2, "jumps in with R5"))
    now[0] = 60.0
    assert c.catch() == "nobody to catch now"


def call_position() -> tuple[dict[str, Any], list[Any]]:
    """Seat 0 plays its second-to-last card: the play goes with a SOLO call."""
    m = solo_match(["R7 B2", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], edition="classic")
    return m.observation(0), m.legal_actions(0)


@pytest.mark.parametrize("spec", ["heuristic", "ismcts:fast"])
def test_bots_forget_a_call_at_the_rate_asked(spec: str) -> None:
    obs, legal = call_position()
    if spec.startswith("ismcts"):
        try:  # a missing search is reported by its own tests
            make_bot(spec, b"x", 0)
        except ParseError:
            pytest.skip("the compiled search is not built (setup.py build_ext)")
    forgetful = make_bot(with_forget(spec, 0.5), b"s", 0)
    assert isinstance(forgetful, ForgetsCalls) and forgetful.name == make_bot(spec, b"s", 0).name
    assert not isinstance(make_bot(with_forget(spec, 0.0), b"s", 0), ForgetsCalls)
    if spec == "heuristic":  # (the search needs a whole deal to sample from, not this made-up one)
        assert str(make_bot(spec, b"s", 0).choose(obs, legal)) == "R7!"
        assert str(make_bot(with_forget(spec, 1.0), b"s", 0).choose(obs, legal)) == "R7"
        forgot = sum(str(make_bot(with_forget(spec, 0.3), f"s{i}".encode(), 0).choose(obs, legal)) == "R7"
                     for i in range(400))
        assert 80 <= forgot <= 160  # 0.3 of 400 is 120


def test_a_forgotten_call_is_not_made_late() -> None:
    m = solo_match(["R7 B2", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"])  # anniversary: late calls allowed
    bot = make_bot("heuristic/forget=1", b"s", 0)
    assert isinstance(bot, ForgetsCalls)
    action = bot.choose(m.observation(0), m.legal_actions(0))
    assert str(action) == "R7"
    m.apply(0, action)
    assert "solo" in [str(a) for a in m.legal_actions(0)]  # a late call is legal ...
    assert bot.react(m.observation(0), m.legal_actions(0)) is None  # ... and forgotten


def test_forget_specs_are_checked() -> None:
    assert parse_bot_spec("ismcts:fast/forget=0.25") == ("ismcts", "fast")
    assert with_forget("random", 0.5) == "random"  # the random bot always calls
    for bad in ("heuristic/forget=2", "heuristic/forget=often", "random/forget=0.1"):
        with pytest.raises(ParseError):
            parse_bot_spec(bad)


def test_play_takes_a_forget_rate_and_rejects_a_bad_one(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["play", "solo", "--plain", "--forget-calls", "1.5"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "--forget-calls" in err and "Traceback" not in err


def test_plain_a_typed_jump_in_that_lost_its_race_is_told() -> None:
    import io

    from cardtable.cli.plain import PlainClient

    session, c = client(race())
    out, err = io.StringIO(), io.StringIO()
    p = PlainClient(c, out, err, bot_delay=None)
    p.poll()
    assert "you may (seat 0): jump in R5" in out.getvalue()
    c.options()  # what the prompt showed
    assert session.step()  # cpu 1 plays R7 first
    p.feed("R5")
    assert err.getvalue().splitlines()[-1] == "cardtable: too late: cpu 1 played first"
    p.feed("G3")  # not a chance that was offered: the rules' reason, not a race
    assert "too late" not in err.getvalue().splitlines()[-1]
