"""Hidden hands at the table against today's open deal, side by side: whole matches on the simulated
LAN (p2p/simnet.py: 0.5-2 ms per datagram, the loss given), the same seeds both ways.

For each case it prints, per match (median over the seeds): the bytes every machine sent (every
datagram, heartbeats included), the actions (moves) and bytes per action, the virtual time from the
first ``deal`` entry of a round to its cards being open for play (the wait a deal adds), for SOLO
the virtual time from a draw being applied on the drawer's machine to that machine opening the card
(the wait a draw adds: one LAN round trip is 1-4 ms here), and the CPU time per machine (all peers
run in this one process). The ratio column is hidden / open.

    python bench/hidden_net.py                   # SCOUT and SOLO, 3 and 5 players, 0% and 10% loss
    python bench/hidden_net.py --game solo --seeds 8 --bots heuristic
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from cardtable.engine import scout, solo
from cardtable.p2p.simnet import Faults, SimNet
from cardtable.p2p.table import TableState


class DrawClock:
    """When each machine's table hands it a drawn card, and when that machine opens it (SOLO)."""

    def __init__(self, net: SimNet) -> None:
        self.net = net
        self.handed: dict[tuple[int, int], float] = {}  # (table, slot) -> when the draw was applied
        self.waits: list[float] = []
        self._apply, self._learn = TableState.apply, TableState.learn

    def __enter__(self) -> DrawClock:
        clock = self

        def apply(table: TableState, entry: Any) -> Any:
            state = table.match.state if table.match is not None else None
            before = len(getattr(state, "handed", []))
            done = clock._apply(table, entry)
            state = table.match.state if table.match is not None else None
            for _, slot in getattr(state, "handed", [])[before:]:
                clock.handed[id(table), slot] = clock.net.now
            return done

        def learn(table: TableState, slot: int, card: int, bit: int) -> None:
            since = clock.handed.pop((id(table), slot), None)
            if since is not None:
                clock.waits.append(clock.net.now - since)
            clock._learn(table, slot, card, bit)

        TableState.apply, TableState.learn = apply, learn  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        TableState.apply, TableState.learn = self._apply, self._learn  # type: ignore[method-assign]


def one_match(game: str, players: int, peers: int, cpu: int, loss: float, seed: int, deal: str,
              bots: str) -> dict[str, float]:
    net = SimNet(seed, Faults(loss=loss, dup=loss / 2, reorder=loss))
    nodes = [net.node(f"p{i}") for i in range(peers)]
    config: Any = scout.Config(players=players) if game == "scout" else \
        solo.Config(players=players, edition="anniversary", gifts=True, protection=True, rounds=1)
    start = time.process_time()
    with DrawClock(net) as draws:
        host = net.host(nodes[0], config, cpu, auto=bots, bots=bots, deal=deal)
        assert host.table_id is not None
        for node in nodes[1:]:
            net.join(node, host.table_id, nodes[0].addr, auto=bots, bots=bots)

        def over() -> bool:
            return all(n.peer is not None and n.peer.table.phase == "over" for n in nodes)

        assert net.run(over, limit=3600), f"seed {seed}: the match did not finish"
    cpu_s = time.process_time() - start
    events = nodes[0].events
    moves = sum(1 for _, e in events
                if e.kind == "applied" and e.data["ok"] and e.data["kind"] in ("act", "keys"))
    waits, began = [], None
    for t, e in events:
        if e.kind == "applied" and e.data["kind"] == "deal" and began is None:
            began = t
        if e.kind == "dealt" and began is not None:
            waits.append(t - began)
            began = None
    out = {"bytes": net.sent_bytes, "moves": moves, "per_move": net.sent_bytes / max(moves, 1),
           "deal_wait_ms": 1000 * statistics.mean(waits) if waits else 0.0, "cpu_ms": 1000 * cpu_s / peers,
           "virtual_s": net.now}
    if game == "solo":
        waits = sorted(draws.waits) or [0.0]
        out["draw_wait_ms"] = 1000 * statistics.median(waits)
        out["draw_wait_p90_ms"] = 1000 * waits[int(0.9 * len(waits))]
    return out


NAMES = {"bytes": "bytes per match", "moves": "moves per match", "per_move": "bytes per move",
         "deal_wait_ms": "deal wait per round (ms)", "draw_wait_ms": "draw wait, median (ms)",
         "draw_wait_p90_ms": "draw wait, 90% (ms)", "cpu_ms": "CPU per machine (ms)",
         "virtual_s": "match length (s)"}


def case(game: str, players: int, peers: int, cpu: int, loss: float, seeds: int, bots: str) -> None:
    rows: dict[str, dict[str, float]] = {}
    for deal in ("open", "hidden"):
        runs = [one_match(game, players, peers, cpu, loss, seed, deal, bots) for seed in range(seeds)]
        rows[deal] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    what = "SCOUT" if game == "scout" else "SOLO anniversary (Gifts, Protection), one round,"
    print(f"{what} {players} players ({peers} machines, {cpu} computer), loss {loss:.0%}, {seeds} seeds, "
          f"bots {bots}:")
    print(f"  {'':26}{'open':>12}{'hidden':>12}{'ratio':>8}")
    for key, name in NAMES.items():
        if key not in rows["open"]:
            continue
        o, h = rows["open"][key], rows["hidden"][key]
        ratio = f"{h / o:8.2f}" if o else "       -"
        print(f"  {name:26}{o:12.1f}{h:12.1f}{ratio}")


def main(argv: Any = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("scout", "solo", "both"), default="both")
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--bots", default="random")
    args = parser.parse_args(argv)
    games = ("scout", "solo") if args.game == "both" else (args.game,)
    for game in games:
        for players, peers, cpu in ((3, 3, 0), (5, 5, 0)):
            for loss in (0.0, 0.1):
                case(game, players, peers, cpu, loss, args.seeds, args.bots)


if __name__ == "__main__":
    main()
