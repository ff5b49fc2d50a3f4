"""The host's forms in the lobby of the table view (``cli/lobby_forms.py``): ``o`` opens the
options form (every key ``set`` takes, its value now; Enter sends what changed as one ``set``,
checked first: a bad value is one line in the form; Esc cancels), ``x`` asks which seat to free
(only while another player holds one); the Options line tells how long the match runs."""

from __future__ import annotations

import asyncio
import io
from typing import Any

from textual.widgets import Input, OptionList, Static, Switch

from cardtable.cli.controller import Controller
from cardtable.cli.lobby_forms import FreeSeatForm, OptionsForm
from cardtable.cli.net_session import NetSession
from cardtable.cli.plain import PlainClient
from cardtable.cli.table_controls import settings
from cardtable.cli.tui import TableApp
from cardtable.engine import scout, solo
from cardtable.p2p.simnet import SimNet
from tests.cli.test_client_lobby_controls import ControlSeat
from tests.cli.test_client_talk import settle


def solo_lobby() -> tuple[SimNet, list[ControlSeat], TableApp]:
    """A 4-seat SOLO table: the host (its table view, ``bot_delay`` None), bea, two free seats."""
    net = SimNet(8)
    nodes = [net.node("kitchen"), net.node("bea")]
    host = net.host(nodes[0], solo.Config.preset("classic", 4), 0, auto=None, bots="heuristic")
    assert host.table_id is not None
    net.join(nodes[1], host.table_id, nodes[0].addr, auto="heuristic", bots="heuristic")
    assert net.run(lambda: all(len(p.table.members()) == 2 for p in net.peers()), limit=60)
    seats = [ControlSeat(net, n) for n in nodes]
    assert nodes[0].peer is not None
    return net, seats, TableApp(Controller(NetSession(seats[0], nodes[0].peer)), bot_delay=None)


def footer_keys(app: TableApp) -> set[str]:
    return {key for key, b in app.screen.active_bindings.items() if b.binding.show}


def test_o_opens_the_options_form_a_bad_value_is_one_line_and_enter_sets_them() -> None:
    net, seats, app = solo_lobby()
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            seen["options line"] = [ln for ln in app.controller.lobby_lines() if ln.startswith("Options")]
            await pilot.press("o")
            await pilot.pause()
            form = app.screen
            assert isinstance(form, OptionsForm)
            seen["players"] = form.query_one("#set-players", Input).value
            seen["gifts"] = form.query_one("#set-gifts", Switch).value
            await pilot.press("1", "1", "enter")  # the players' field is selected: typing replaces it
            await pilot.pause()
            seen["problem"] = str(form.query_one("#problem", Static).render())
            seen["still open"] = app.screen is form
            form.query_one("#set-players", Input).value = "3"
            form.query_one("#set-gifts", Switch).value = True
            form.query_one("#set-pool", Input).value = "300"
            form.query_one("#set-players", Input).focus()
            await pilot.press("enter")
            await pilot.pause()
            seen["closed"] = not isinstance(app.screen, OptionsForm)
            settle(net, seats[0], 1.0)
            seats[1].tell()
            app.refresh_view()
            await pilot.pause()
            seen["after"] = [line for line in app.controller.lobby_lines() if line.startswith("Options")]

    asyncio.run(main())
    assert seen["options line"] == ["Options: SOLO classic, 4 players · pools of 500: highest pool wins, "
                                    "ends below 0"]
    assert seen["players"] == "4" and seen["gifts"] is False
    assert seen["still open"] and seen["problem"].startswith("bad SOLO config")
    assert "\n" not in seen["problem"]
    assert seen["closed"]
    for peer in net.peers():
        config = peer.table.config
        assert (config.players, config.gifts, config.pool) == (3, True, 300)
    assert seen["after"] == ["Options: SOLO classic, 3 players · pools of 300: highest pool wins, "
                             "ends below 0"]


def test_esc_cancels_the_options_form_and_nothing_is_sent() -> None:
    net, seats, app = solo_lobby()

    async def main() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("o")
            await pilot.pause()
            await pilot.press("3")
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, OptionsForm)
            settle(net, seats[0], 1.0)

    asyncio.run(main())
    assert all(p.table.config.players == 4 for p in net.peers())


def test_x_asks_which_seat_to_free_and_frees_it() -> None:
    net, seats, app = solo_lobby()
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            seen["keys before"] = footer_keys(app)
            await pilot.press("x")
            await pilot.pause()
            form = app.screen
            assert isinstance(form, FreeSeatForm)
            box = form.query_one("#seats", OptionList)
            seen["title"] = str(box.border_title)
            seen["seats"] = [str(box.get_option_at_index(i).prompt) for i in range(box.option_count)]
            await pilot.press("enter")
            await pilot.pause()
            settle(net, seats[0], 1.0)
            app.refresh_view()
            await pilot.pause()
            seen["keys after"] = footer_keys(app)

    asyncio.run(main())
    assert seen["title"].startswith("Free which seat?") and seen["seats"] == ["seat 1: bea"]
    assert all(p.table.seats[1].owner is None for p in net.peers())
    assert {"x", "o", "n"} <= seen["keys before"]
    assert "x" not in seen["keys after"] and "o" in seen["keys after"]  # nobody else holds a seat now


def test_set_takes_several_keys_at_once_and_alone_lists_them() -> None:
    config = solo.Config(players=4)
    assert settings(config, 1, "players=3 cpu=0 pool=300") == (solo.Config(players=3, pool=300), 0)
    assert settings(config, 0, "players=3 gifts=maybe") == "gifts is on or off"
    listed = str(settings(config, 1, ""))
    assert listed.startswith("set KEY=VALUE (several at once too): cpu=1, players=4, gifts=off")
    assert "rounds=0" in listed and "edition" not in listed
    net = SimNet(3)
    node = net.node("kitchen")
    peer = net.host(node, scout.Config(players=3), 0, auto=None, bots="heuristic")
    net.run_for(0.5)
    out = io.StringIO()
    session = NetSession(ControlSeat(net, node), peer)
    PlainClient(Controller(session), out, io.StringIO(), bot_delay=None).poll()
    assert "Options: SCOUT, 3 players · highest total wins after 3 rounds" in out.getvalue().splitlines()


def test_the_help_page_and_plain_help_tell_the_host_keys_and_set_several() -> None:
    from cardtable.cli.plain import HELP
    from cardtable.cli.rules import table_keys

    keys = table_keys("solo")
    assert "`n` / `x` / `o`" in keys and "the options form" in keys and "free a seat (choose which)" in keys
    assert "set players=3 cpu=1" in HELP and "set alone lists the keys" in HELP
