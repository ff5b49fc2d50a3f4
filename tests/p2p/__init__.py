"""Helpers shared by the p2p tests: build a table on the simulated LAN and check its replicas."""

from __future__ import annotations

from collections import Counter
from typing import Any

from cardtable.engine.match import Match
from cardtable.p2p.peer import Peer
from cardtable.p2p.simnet import Node, SimNet
from cardtable.p2p.table import TableState


def build(net: SimNet, config: Any, peers: int, cpu: int, *, auto: str | None = "random",
          bots: str = "random", passphrase: str | None = None) -> list[Node]:
    """A table of ``peers`` human peers (the first hosts) and ``cpu`` computer seats."""
    nodes = [net.node(f"p{i}") for i in range(peers)]
    host = net.host(nodes[0], config, cpu, auto=auto, bots=bots, passphrase=passphrase)
    for node in nodes[1:]:
        assert host.table_id is not None
        net.join(node, host.table_id, nodes[0].addr, auto=auto, bots=bots, passphrase=passphrase)
    return nodes


def live(net: SimNet) -> list[Peer]:
    return net.peers()


def all_over(net: SimNet) -> bool:
    """Every running peer has applied the end of the match, and all agree how far the log goes."""
    peers = live(net)
    return all(p.table.phase == "over" for p in peers) and len({p.commit_index for p in peers}) == 1


def leader(net: SimNet) -> Peer | None:
    return next((p for p in live(net) if p.is_sequencer), None)


def check_replicas(net: SimNet, expect_over: bool = True) -> None:
    """One history, exactly once, only legal changes, one digest (docs/protocol.md section 5)."""
    peers = live(net)
    assert peers
    n = min(p.commit_index for p in peers)
    logs = {tuple(p.raw[:n]) for p in peers}
    assert len(logs) == 1, "two peers committed different entries"
    for p in peers:
        assert not any(r.startswith("internal") for r in p.dropped), p.dropped
        assert p.table.applied == p.commit_index
    ref = peers[0]
    ids = Counter((e.decoded.author, e.decoded.incarnation, e.decoded.seq) for e in ref.log[:n])
    assert max(ids.values()) == 1, "a proposal is in the log twice"
    digests = {p.table.match.digest() for p in peers if p.table.match is not None and p.commit_index == n}
    assert len(digests) <= 1
    replayed = replay_checked(ref)
    if expect_over:
        assert all(p.table.phase == "over" for p in peers)
        assert replayed.match is not None and replayed.match.is_over()
        assert {p.table.match.digest() for p in peers if p.table.match} == {replayed.match.digest()}


def replay_checked(peer: Peer) -> TableState:
    """Replay a peer's committed log on a fresh table: refused entries change nothing, and the
    accepted actions alone, applied to a fresh engine match, give the same position."""
    table = TableState()
    plain: Match | None = None
    for entry in peer.log[: peer.commit_index]:
        before = table.match.digest() if table.match else None
        done = table.apply(entry)
        if table.match is not None and plain is None:
            plain = Match(table.config, table.match.seed)
        if done.kind == "act" and done.ok:
            assert plain is not None
            plain.apply(entry.decoded.payload[1], entry.decoded.payload[2])
        elif before is not None:
            assert table.match is not None and table.match.digest() == before, done
    if plain is not None:
        assert table.match is not None and plain.digest() == table.match.digest()
    return table
