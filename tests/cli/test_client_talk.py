"""Talk at a LAN table in the clients: ``say``/``emote`` in ``--plain``, ``t`` in the table view,
``cardtable replay`` showing the lines, and no terminal escape from a member ever on a screen."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, RichLog

from cardtable.cli.controller import Controller
from cardtable.cli.net_session import NetSession
from cardtable.cli.plain import HELP, PlainClient
from cardtable.cli.tui import TableApp
from cardtable.engine import scout
from cardtable.p2p.simnet import Node, SimNet
from cardtable.p2p.store import FileStore
from tests.cli.test_match_cli import run
from tests.p2p import all_over

ESC = "\x1b[2J\x1b]0;pwned\x07"


class SimSeat:
    """What ``NetSession`` needs of a ``p2p.node.Node``, over a node of the simulated LAN."""

    def __init__(self, net: SimNet, node: Node) -> None:
        self.net, self.node = net, node
        self.on_event: Any = None
        self.told = 0

    def _do(self, call: str, *args: Any) -> None:
        assert self.node.peer is not None
        self.net.handle(self.node, getattr(self.node.peer, call)(*args, self.net.now))
        self.tell()

    def say(self, text: str) -> None:
        self._do("say", text)

    def emote(self, name: str) -> None:
        self._do("emote", name)

    def propose(self, action: str) -> None:
        self._do("propose_action", action)

    def leave(self) -> None:
        self._do("leave")

    def tell(self) -> None:
        """Pass the node's new events to the session (a real node calls ``on_event`` itself)."""
        for _, event in self.node.events[self.told:]:
            if self.on_event is not None:
                self.on_event(event)
        self.told = len(self.node.events)


def table(tmp_path: Path | None = None, guest: str = "bea") -> tuple[SimNet, SimSeat, Node]:
    """A 3-seat SCOUT table: the host (the session's seat, played by a bot), ``guest``, a computer
    player; run until the match has started."""
    net = SimNet(4)
    stores = [FileStore(tmp_path / f"{n}.log", sync=False) if tmp_path else None for n in ("host", "guest")]
    host, other = net.node("kitchen", stores[0]), net.node(guest, stores[1])
    peer = net.host(host, scout.Config(players=3), 1, auto="heuristic", bots="heuristic")
    assert peer.table_id is not None
    net.join(other, peer.table_id, host.addr, auto="heuristic", bots="heuristic")
    assert net.run(lambda: peer.table.match is not None and other.peer is not None
                   and other.peer.table.match is not None, limit=60)
    return net, SimSeat(net, host), other


def settle(net: SimNet, seat: SimSeat, seconds: float = 0.5) -> None:
    net.run_for(seconds)
    seat.tell()


def test_plain_say_and_emote_reach_both_machines_and_others_print_as_name_text() -> None:
    net, seat, other = table()
    assert seat.node.peer is not None and other.peer is not None
    session = NetSession(seat, seat.node.peer)
    out, err = io.StringIO(), io.StringIO()
    plain = PlainClient(Controller(session), out, err, bot_delay=None)
    for line in ("say hello bea", "emote gg", "say    ", "emote dance"):
        assert plain.ready(line)
        plain.feed(line)
    net.handle(other, other.peer.say("hi kitchen!", net.now))
    settle(net, seat)
    plain.poll()
    printed = out.getvalue().splitlines()
    assert "kitchen: hello bea" in printed and "kitchen says good game" in printed
    assert "bea: hi kitchen!" in printed
    assert "Not said: an empty chat line" in printed
    assert any(p.startswith("Not said: no such emote (there are: hi, gg") for p in printed)
    assert [d["line"] for d in other.kinds("chat")] == ["kitchen: hello bea", "kitchen says good game",
                                                       "bea: hi kitchen!"]
    assert "say TEXT" in HELP and "emote NAME" in HELP and "gg" in HELP


def test_escapes_from_a_hostile_member_never_reach_the_screen() -> None:
    """A modified member sends a line with escapes past its own checks (refused by the table), and
    joins under a name full of them (shown without them)."""
    net, seat, other = table(guest=f"bea{ESC}")
    assert seat.node.peer is not None and other.peer is not None
    session = NetSession(seat, seat.node.peer)
    out = io.StringIO()
    plain = PlainClient(Controller(session), out, io.StringIO(), bot_delay=None)
    other.peer._propose(["say", f"look {ESC} here"])
    net.handle(other, other.peer.timer(net.now))
    settle(net, seat)
    net.handle(other, other.peer.say("innocent", net.now))
    settle(net, seat)
    plain.poll()
    text = out.getvalue()
    assert "bea[2J]0;pwned: innocent" in text.splitlines()  # the name, its control characters gone
    assert "look" not in text
    assert not any(ord(ch) < 32 and ch != "\n" for ch in text)
    assert any(d["reason"] == "a chat line may not hold control characters" for d in other.kinds("refused"))


def test_t_opens_a_line_enter_sends_it_esc_takes_it_back() -> None:
    net, seat, _ = table()
    assert seat.node.peer is not None
    session = NetSession(seat, seat.node.peer)
    app = TableApp(Controller(session), bot_delay=None)
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with app.run_test(size=(160, 50)) as pilot:
            talk = app.query_one("#talk", Input)
            seen["hidden"] = not talk.display
            await pilot.press("t")
            seen["open"] = talk.display and talk.has_focus
            await pilot.press(*"never mind", "escape")
            seen["closed"] = (talk.display, talk.value)
            await pilot.press("t", *"well played", "enter")
            await pilot.press("t", *"/wow", "enter")
            await pilot.press("t")
            talk.value = f"x{ESC}y"  # as pasted (typed, the line drops control keys itself)
            await pilot.press("enter")
            settle(net, seat)
            await pilot.pause()
            log = app.query_one("#log", RichLog)
            seen["log"] = [strip.text for strip in log.lines]

    asyncio.run(main())
    assert seen["hidden"] and seen["open"] and seen["closed"] == (False, "")
    lines = seen["log"]
    assert "kitchen: well played" in lines and "kitchen is impressed" in lines
    assert "Not said: a chat line may not hold control characters" in lines
    assert not any("never mind" in line for line in lines)
    assert not any("\x1b" in line for line in lines)


def test_replay_tells_the_talk_in_its_place(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    net, seat, other = table(tmp_path)
    seat.say("good luck")
    net.run_for(0.2)
    assert other.peer is not None
    net.handle(other, other.peer.emote("thinking", net.now))
    net.run_for(0.5)  # (the computer players may have finished the match: talk goes on after it)
    assert net.run(lambda: all_over(net), limit=600)
    code, out, _ = run(capsys, "replay", str(tmp_path / "guest.log"))
    assert code == 0
    told = out.splitlines()
    said = [n for n, line in enumerate(told) if line.endswith(("kitchen: good luck", "bea is thinking..."))]
    assert len(said) == 2 and said[0] < said[1] < len(told) - 1
    assert told[said[0]].split()[0].isdigit()  # numbered like every entry told
