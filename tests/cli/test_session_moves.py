"""The moves a LAN session replays for a review (``v``): those of the match being played, from its
seed, wherever the seed deals the cards."""

from __future__ import annotations

from types import SimpleNamespace

from cardtable.cli.net_session import NetSession
from cardtable.engine import scout
from cardtable.engine.match import Match
from cardtable.p2p.simnet import SimNet


def test_a_table_of_one_machine_deals_from_its_seed_so_its_moves_replay_the_match() -> None:
    """Hidden hands with one human machine deal from the seed (nobody to hide from): its moves,
    replayed on that seed, give the match the table plays (before, ``v`` said "no review here")."""
    net = SimNet(3)
    node = net.node("solo-host")
    peer = net.host(node, scout.Config(players=3), 2, auto="random", bots="random", deal="hidden")
    assert net.run(lambda: peer.table.match is not None and peer.table.position > 8, limit=60)
    table = peer.table
    assert table.hides() and table.match is not None and not table.match.dealt_by_table
    moves = NetSession(SimpleNamespace(on_event=None), peer).moves()
    assert moves, moves
    replay = Match(table.config, table.match.seed)
    for seat, action in moves:
        replay.apply(seat, action)
    assert replay.digest() == table.match.digest()
