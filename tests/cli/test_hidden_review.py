"""A hidden-hands table's log, read back by the machine that kept it: ``replay --view``, ``watch LOG``
and ``review`` work from what that machine saw (every hand of a round once its audit revealed it,
its own hand in the round still in play), ``replay`` tells its own hand in play, and the ``review``
of ``--plain`` (the table's ``v``) reviews a hidden table's last audited round."""

from __future__ import annotations

import asyncio
import io
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from cardtable.cli import play_cmd
from cardtable.cli.controller import Controller
from cardtable.cli.hidden_rounds import EVERY, MINE
from cardtable.cli.log_frames import Frames, load_frames
from cardtable.cli.net_session import NetSession
from cardtable.cli.plain import PlainClient
from cardtable.cli.replay_view import ReplayApp
from cardtable.cli.table_logs import read_meta, read_table_log
from cardtable.engine import scout, solo
from cardtable.p2p.hidden.peek import round_view
from cardtable.p2p.simnet import SimNet
from cardtable.p2p.store import FileStore
from tests.cli.test_client_talk import SimSeat
from tests.cli.test_match_cli import run
from tests.cli.test_peek_cli import hidden_logs

pytest.importorskip("cardtable.ai._search")

CARD = re.compile(r"\d+/\d+")


def mid_round_logs(tmp_path: Path, config: Any = None) -> list[Path]:
    """A 3-seat hidden table (two machines and a computer player, the host's machine playing it;
    SCOUT unless ``config``) stopped in the middle of its second round: round 1 audited, round 2
    in play. Each machine's log on disk."""
    net = SimNet(21)
    paths = [tmp_path / f"p{i}.log" for i in range(2)]
    nodes = [net.node(f"p{i}", FileStore(p, sync=False)) for i, p in enumerate(paths)]
    config = config or scout.Config(players=3)
    host = net.host(nodes[0], config, 1, auto="random", bots="random", deal="hidden")
    assert host.table_id is not None
    net.join(nodes[1], host.table_id, nodes[0].addr, auto="random", bots="random")

    def in_round_two() -> bool:
        t = nodes[1].peer.table if nodes[1].peer is not None else None
        return t is not None and t.match is not None and t.match.round_no == 1 and t.hidden is not None \
            and len(t.hidden.moves) >= 4
    assert net.run(in_round_two, limit=600)
    return paths


def hands_shown(app: ReplayApp) -> dict[str, list[str] | None]:
    """The hands pane: per seat name, its cards (None: not shown)."""
    out: dict[str, list[str] | None] = {}
    for line in str(app.query_one("#hand", Static).render()).splitlines():
        name, _, rest = line.partition(" (seat ")
        cards = rest.split(":", 1)[1]
        out[name.strip()] = None if "not seen by this machine" in cards else CARD.findall(cards)
    return out


Scenario = Callable[[Pilot[Any], ReplayApp], Awaitable[None]]


def run_view(frames: Frames, scenario: Scenario) -> None:
    app = ReplayApp(frames)

    async def main() -> None:
        async with app.run_test(size=(160, 50)) as pilot:
            await pilot.pause()
            await scenario(pilot, app)

    asyncio.run(main())


def test_watch_and_replay_view_open_a_hidden_table_s_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Both commands reach the table view (they said "a hidden-hands table" and exited 1)."""
    _, joiner_log = mid_round_logs(tmp_path)
    shown: list[Frames] = []
    monkeypatch.setattr(play_cmd, "need_terminal", lambda: None)
    monkeypatch.setattr(ReplayApp, "run", lambda app, *a, **k: shown.append(app.replay.frames))
    for argv in (("replay", str(joiner_log), "--view"), ("watch", str(joiner_log)), ("watch", str(tmp_path))):
        if argv[1] == str(tmp_path):
            (tmp_path / "table.log").write_bytes(joiner_log.read_bytes())
        code, _, err = run(capsys, *argv)
        assert code == 0 and err == "", err
    assert len(shown) == 3 and all(len(f) == len(shown[0]) > 0 for f in shown)
    assert [d.known for d in shown[0].dealt] == [EVERY, MINE]


@pytest.mark.parametrize("machine", [0, 1])
def test_the_view_shows_every_hand_of_an_audited_round_and_only_this_machine_s_in_play(
        tmp_path: Path, machine: int) -> None:
    logs = mid_round_logs(tmp_path)
    log = logs[machine]
    kept = read_table_log(log)
    (_, audited), (_, playing) = kept.rounds
    truth = audited.dealt_hands()  # what the audit opened: every hand of round 1, as dealt
    opened = round_view(playing, read_meta(log)).opened
    own = {0: [0, 2], 1: [1]}[machine]  # the host's machine plays the computer player (seat 2)
    frames = load_frames(log, log.read_bytes())
    start = frames.round_starts()[1]
    names = ["p0", "p1", "cpu 2"]

    async def scenario(pilot: Pilot[Any], app: ReplayApp) -> None:
        assert hands_shown(app) == dict(zip(names, truth, strict=True))  # the deal of round 1: every hand
        assert app.query_one("#hand", Static).border_title == "Hands"
        app.action_round_forward()
        await pilot.pause()
        assert app.replay.step == start and "round 2" in str(app.query_one("#title", Static).render())
        shown = hands_shown(app)
        for seat, name in enumerate(names):
            dealt = [opened[slot] for slot in playing.dealt_slots()[seat]] if seat in own else None
            assert shown[name] == dealt, (name, shown)
        assert app.query_one("#hand", Static).border_title == "Hands (what this machine saw)"
        await pilot.press("end")
        shown = hands_shown(app)
        assert [shown[n] is not None for n in names] == [s in own for s in range(3)]
        assert not set(shown["p1" if machine == 0 else "p0"] or [])  # never a card of the other machine

    run_view(frames, scenario)


def test_replay_tells_this_machine_s_hand_in_the_round_in_play(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    _, joiner_log = mid_round_logs(tmp_path)
    code, out, _ = run(capsys, "replay", str(joiner_log))
    assert code == 0
    dealt = [line for line in out.splitlines() if line.startswith("round ")]
    assert dealt[0].startswith("round 1, as dealt (opened at the audit): p0 ") and "; cpu 2 " in dealt[0]
    assert re.fullmatch(r"round 2, in play: this machine's hands as dealt: p1 (\d+/\d+ ){11}\d+/\d+ "
                        r"\(the others' are opened at the round's audit\)", dealt[1]), dealt


def test_review_of_a_hidden_table_reviews_your_seat_in_an_audited_round(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, joiner_log = hidden_logs(tmp_path)
    code, out, err = run(capsys, "review", str(joiner_log), "--level", "fast")
    assert code == 0, err
    assert "no seat of yours" not in err  # the log keeps its machine's seeds: seat 1 is yours
    assert err.startswith("cardtable: round 3 reviewed for p1 (seat 1) by ismcts:fast: "), err
    assert all(re.match(r"round 3, move \d+: p1 \(seat 1\) played ", line) for line in out.splitlines())
    code, out, _ = run(capsys, "review", str(joiner_log), "--level", "fast", "--round", "1", "--all-seats",
                       "--json")
    data = json.loads(out)
    assert code == 0 and data["round"] == 1 and data["seats"] == [0, 1, 2] and data["rated"] > 0
    assert data["flags"] == sorted(data["flags"], key=lambda f: (f["step"], f["seat"]))


def test_a_round_still_in_play_is_not_reviewed_and_says_why_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, joiner_log = mid_round_logs(tmp_path)
    code, _, err = run(capsys, "review", str(joiner_log), "--round", "2", "--level", "fast")
    assert code == 1 and len(err.splitlines()) == 1
    assert "round 2 is still being played: with hidden hands its cards are known once its audit" in err
    code, _, err = run(capsys, "review", str(joiner_log), "--level", "fast")  # the last finished: round 1
    assert code == 0 and "round 1 reviewed for p1 (seat 1)" in err, err


def test_a_solo_review_searches_from_what_the_seat_saw_not_from_every_card(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit knows every card; the search is told only the seat's own cards as they came and the
    cards shown (SOLO's view on slots would otherwise list every other hand as "known")."""
    from cardtable.ai.ismcts import IsmctsBot

    _, joiner_log = hidden_logs(tmp_path, config=solo.Config(players=3, rounds=1, hand_size=7))
    frames = load_frames(joiner_log, joiner_log.read_bytes())
    (d,) = frames.dealt
    full, mine = d.first(), d.seat_first(1)
    assert full.observation(1)["known"] and mine.observation(1)["known"] == {}  # the leak it avoids
    held = set(full.observation(1)["hand"])
    for (seat, _), action in zip(d.moves, d.actions, strict=True):
        full.apply(seat, action)
        mine.apply(seat, action)
        assert mine.observation(1)["hand"] == full.observation(1)["hand"]  # its own hand, all along
        held |= set(full.observation(1)["hand"])

    seen: list[dict[str, Any]] = []
    rate = IsmctsBot.rate
    monkeypatch.setattr(IsmctsBot, "rate", lambda bot, obs, *a: seen.append(obs) or rate(bot, obs, *a))
    code, _, err = run(capsys, "review", str(joiner_log), "--level", "fast", "--threshold", "2")
    assert code == 0 and "round 1 reviewed for p1 (seat 1)" in err, err
    assert seen and all(o["seat"] == 1 for o in seen)
    known = {card for o in seen for cards in o["known"].values() for card in cards}
    assert known <= held, known - held  # only cards that passed through its own hand


def hidden_session() -> tuple[SimNet, SimSeat, NetSession]:
    """A hidden-hands SCOUT table of two machines and a computer player, this session the host's
    seat (played by a bot), run until its first round was audited."""
    net = SimNet(4)
    host, other = net.node("kitchen"), net.node("bea")
    peer = net.host(host, scout.Config(players=3), 1, auto="heuristic", bots="heuristic", deal="hidden")
    assert peer.table_id is not None
    net.join(other, peer.table_id, host.addr, auto="heuristic", bots="heuristic")
    assert net.run(lambda: bool(peer.table.audited) and bool(peer.table.match.round_scores), limit=120)
    seat = SimSeat(net, host)
    return net, seat, NetSession(seat, peer)


def test_plain_review_at_a_hidden_table_reviews_the_last_audited_round() -> None:
    """The same function as the table's v (it answered "no review here" at every LAN table)."""
    _, _, session = hidden_session()
    assert session.match() is not None and session.match().dealt_by_table  # cards dealt by the machines
    out, err = io.StringIO(), io.StringIO()
    PlainClient(Controller(session), out, err, bot_delay=None).feed("review")
    lines = out.getvalue().splitlines()
    assert lines and lines[-1].startswith("review: round 1 reviewed for you by ismcts:strong: "), lines
    assert all(re.match(r"review: round 1, move \d+: you played ", line) for line in lines[:-1]), lines
    assert "no review" not in out.getvalue() and err.getvalue() == ""
