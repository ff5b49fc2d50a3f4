"""A table that played a rematch keeps both matches in one log: ``stats`` and ``games`` count each,
``replay`` tells both, and the view and ``review`` take the last one (they replayed the first
match's moves on the second's seed, or gave up)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from cardtable.cli import play_cmd
from cardtable.cli.log_frames import Frames, match_moves
from cardtable.cli.replay_view import ReplayApp
from cardtable.engine import scout
from cardtable.engine.match import Match
from cardtable.p2p.simnet import Node, SimNet
from cardtable.p2p.store import FileStore
from tests.cli.test_match_cli import run
from tests.p2p import all_over

SEED = 6


def rematch_home(tmp_path: Path, deal: str) -> tuple[Path, list[Any], Any]:
    """A config dir whose table log holds two finished matches (the host's, with its identity), the
    host's two matches as its table has them, and the host's peer."""
    home = tmp_path / "home"
    home.mkdir()
    net = SimNet(SEED)
    host = net.node("p0", FileStore(home / "table.log", sync=False))
    (home / "identity.key").write_bytes(hashlib.sha256(f"simnet/{SEED}/p0".encode()).digest())
    guest = net.node("p1")
    peer = net.host(host, scout.Config(players=3), 1, auto="random", bots="random", deal=deal)
    assert peer.table_id is not None
    net.join(guest, peer.table_id, host.addr, auto="random", bots="random")
    assert net.run(lambda: all_over(net), limit=600)
    for node in (host, guest):
        agree(net, node)
    assert net.run(lambda: all(p.table.match_no == 1 for p in net.peers()) and all_over(net), limit=600)
    table = peer.table
    return home, [*table.past, table.match], peer


def agree(net: SimNet, node: Node) -> None:
    assert node.peer is not None
    net.handle(node, node.peer.agree_rematch(net.now))


@pytest.mark.parametrize("deal", ["hidden", "open"])
def test_stats_and_games_count_both_matches_of_a_rematch(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          deal: str) -> None:
    home, matches, _ = rematch_home(tmp_path, deal)
    assert len(matches) == 2 and all(m.is_over() for m in matches)
    code, out, err = run(capsys, "stats", "--home", str(home), "--json")
    assert code == 0, err
    (row,) = json.loads(out)["results"]
    assert row["game"] == "SCOUT" and row["finished"] == 2 and row["unfinished"] == 0
    assert row["won"] == sum(0 in m.winners() for m in matches)
    assert row["mean_score"] == round(sum(m.scores()[0] for m in matches) / 2, 2)

    code, out, _ = run(capsys, "games", "--home", str(home))
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3, out
    for k, (line, match) in enumerate(zip(lines, matches, strict=False), start=1):
        totals = " ".join(str(t) for t in match.scores())
        assert f"SCOUT, 3 players at 'p0', match {k} of 2: over, " in line and f"totals {totals} " in line
    assert lines[-1] == "2 games in 1 log; 'cardtable replay FILE' tells one in words"


def test_replay_tells_both_matches_and_the_view_shows_the_last(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    home, (first, second), peer = rematch_home(tmp_path, "open")
    log = home / "table.log"
    code, out, _ = run(capsys, "replay", str(log))
    assert code == 0
    assert f"match 1: over, totals {first.scores()}, winners {first.winners()}" in out
    assert out.splitlines()[-1].startswith("verified: ") and f"match 2 over, totals {second.scores()}" in out

    shown: list[Frames] = []
    monkeypatch.setattr(play_cmd, "need_terminal", lambda: None)
    monkeypatch.setattr(ReplayApp, "run", lambda app, *a, **k: shown.append(app.replay.frames))
    code, _, err = run(capsys, "replay", str(log), "--view")
    assert code == 0, err  # it said "its moves do not replay to its match (a damaged log?)"
    assert "the table played 2 matches (a rematch): this is match 2" in err
    (frames,) = shown
    assert frames.at(len(frames)).digest() == second.digest() and frames.seed == second.seed

    moves = match_moves(peer.log[:peer.commit_index])  # what a LAN session's review replays
    assert moves == frames.moves
    again = Match(second.config, second.seed)
    for seat, action in moves:
        again.apply(seat, action)
    assert again.digest() == second.digest()
