"""``cardtable watch``: a kept log opens the replay view; a spectator's table (no seat) shows the
public view only, in the Textual table and in line mode, and takes no move."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from cardtable.cli import play_cmd, replay_view
from cardtable.cli.controller import Controller
from cardtable.cli.main import main
from cardtable.cli.net_session import NetSession
from cardtable.cli.plain import PlainClient
from cardtable.cli.tui import TableApp
from cardtable.cli.watch_cmd import kept_log
from cardtable.p2p.simnet import SimNet
from cardtable.p2p.spectators import SILENCE
from tests.cli.test_client_talk import SimSeat, settle
from tests.p2p import all_over
from tests.p2p.test_hidden_table import hidden_table
from tests.p2p.test_spectators import watcher


def shown(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Path, bytes]]:
    """What the replay view is asked to show (instead of running it)."""
    calls: list[tuple[Path, bytes]] = []
    monkeypatch.setattr(play_cmd, "need_terminal", lambda: None)
    monkeypatch.setattr(replay_view, "view", lambda path, data: calls.append((path, data)))
    return calls


def test_watch_log_opens_the_replay_view_of_a_file_or_of_a_home_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = shown(monkeypatch)
    log = tmp_path / "game.ctlog"
    log.write_bytes(b"a log")
    home = tmp_path / "home"
    home.mkdir()
    (home / "table.log").write_bytes(b"a table log")
    for target in (log, home):
        with pytest.raises(SystemExit) as end:
            main(["watch", str(target)])
        assert end.value.code == 0
    assert calls == [(log, b"a log"), (home / "table.log", b"a table log")]
    assert kept_log("kitchen") is None and kept_log(str(tmp_path)) is None  # a name, a dir with no log


def spectator_session() -> tuple[SimNet, Any, SimSeat, NetSession]:
    net = SimNet(3)
    nodes = hidden_table(net, 3, 3)
    node, spectator = watcher(net, nodes[0])
    seat = SimSeat(net, node)
    return net, spectator, seat, NetSession(seat, spectator)


def test_a_spectators_table_shows_the_players_and_no_hand_and_takes_no_move() -> None:
    net, spectator, _, session = spectator_session()
    app = TableApp(Controller(session), bot_delay=None)
    seen: dict[str, str] = {}

    async def scenario() -> None:
        async with app.run_test(size=(160, 50)) as pilot:
            await pilot.pause()
            assert net.run(lambda: spectator.table.match is not None and spectator.log_length > 40, limit=60)
            app.refresh_view()
            await pilot.pause()
            for widget in ("title", "players", "hand"):
                seen[widget] = str(app.query_one(f"#{widget}", Static).render())
            seen["refused"] = str(session.propose("flip"))
            keys = {b.binding.description for b in app.screen.active_bindings.values()
                    if app.check_action(b.binding.action, ())}
            seen["talk"] = str("Talk" in keys)

    asyncio.run(scenario())
    assert seen["title"].endswith("· watching")
    assert seen["hand"] == "(you are watching: no seat, no hand)"
    assert all(f"p{i}" in seen["players"] for i in range(3)) and "you" not in seen["players"]
    assert seen["refused"] != "None" and not spectator.queue
    assert seen["talk"] == "False"  # a spectator is no member: the footer offers no talk
    obs = session.observation()
    assert obs is not None and obs["hand"] == []


def test_the_public_view_hides_what_only_one_seat_knows() -> None:
    """On an open table every machine could compute every hand: the spectator's view shows none."""
    from cardtable.cli.public_view import public_observation
    from cardtable.engine.match import Match
    from cardtable.engine.scout import Config as ScoutConfig
    from cardtable.engine.solo import Config as SoloConfig

    for config in (ScoutConfig(players=3), SoloConfig.preset("classic", 3)):
        match = Match(config, b"s" * 32)
        obs = public_observation(match)
        sizes = [len(match.observation(s)["hand"]) for s in range(3)]
        assert obs["hand"] == [] and obs["hand_sizes"] == sizes
        if obs["game"] == "scout":
            assert obs["known"] == [[None] * n for n in obs["hand_sizes"]]
        else:
            assert obs["known"] == {} and obs["drawn"] in (True, False)


def test_a_spectator_in_line_mode_follows_the_match_to_its_end() -> None:
    net, _, seat, session = spectator_session()
    out = io.StringIO()
    plain = PlainClient(Controller(session), out, out, bot_delay=None)
    while not all_over(net) and net.now < 600:
        settle(net, seat, 1.0)
        plain.poll()
    text = out.getvalue()
    assert all_over(net) and "match over" in text.lower() and "your turn" not in text


def test_a_spectator_that_leaves_stops_at_once_and_the_match_goes_on() -> None:
    net, spectator, seat, session = spectator_session()
    assert net.run(lambda: spectator.table.match is not None, limit=60)
    notes: list[Any] = []
    session.subscribe(notes.append)
    session.leave()
    assert spectator.left and session.phase() == "left" and not spectator.queue
    assert "You leave the table: you stop watching; the match goes on" in [n.text for n in notes]
    players = [p for p in net.peers() if p is not spectator]
    assert net.run(lambda: all(p.table.phase == "over" for p in players), limit=600)
    net.run_for(SILENCE + 1)
    assert not any(p.spectators for p in players)  # dropped once silent


def test_the_players_read_who_watches_by_a_name_without_escapes() -> None:
    from cardtable.cli.player_words import table_words
    from cardtable.cli.words import Speaker

    speak = Speaker(0, ["ann", "bea"])
    came = table_words("spectator", {"name": "cy\x1b[2J", "watching": 1}, speak)
    gone = table_words("spectator_gone", {"name": "cy", "watching": 0}, speak)
    assert (came, gone) == ("cy[2J is watching (1 spectator)", "cy stopped watching (0 spectators)")


def test_watch_a_missing_log_says_so_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as end:
        main(["watch", str(tmp_path / "gone.ctlog")])
    assert end.value.code == 1
    assert capsys.readouterr().err.strip() == f"cardtable: error: no log at {tmp_path / 'gone.ctlog'} " \
                                              "(a table's name has no '/' and no .log ending)"
