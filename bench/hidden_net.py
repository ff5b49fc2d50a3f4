"""Hidden hands at the table against today's open deal, side by side: whole SCOUT matches on the
simulated LAN (p2p/simnet.py: 0.5-2 ms per datagram, the loss given), the same seeds both ways.

For each case it prints, per match (median over the seeds): the bytes every machine sent (every
datagram, heartbeats included), the actions (moves) and bytes per action, the virtual time from the
first ``deal`` entry of a round to its cards being open for play (the wait a deal adds), and the CPU
time per machine (all peers run in this one process). The ratio column is hidden / open.

    python bench/hidden_net.py              # 3 and 5 players, 0% and 10% loss, 4 seeds
    python bench/hidden_net.py --seeds 8 --bots heuristic
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from cardtable.engine import scout
from cardtable.p2p.simnet import Faults, SimNet


def one_match(players: int, peers: int, cpu: int, loss: float, seed: int, deal: str,
              bots: str) -> dict[str, float]:
    net = SimNet(seed, Faults(loss=loss, dup=loss / 2, reorder=loss))
    nodes = [net.node(f"p{i}") for i in range(peers)]
    start = time.process_time()
    host = net.host(nodes[0], scout.Config(players=players), cpu, auto=bots, bots=bots, deal=deal)
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
    return {"bytes": net.sent_bytes, "moves": moves, "per_move": net.sent_bytes / max(moves, 1),
            "deal_wait_ms": 1000 * statistics.mean(waits) if waits else 0.0, "cpu_ms": 1000 * cpu_s / peers,
            "virtual_s": net.now}


def case(players: int, peers: int, cpu: int, loss: float, seeds: int, bots: str) -> None:
    rows: dict[str, dict[str, float]] = {}
    for deal in ("open", "hidden"):
        runs = [one_match(players, peers, cpu, loss, seed, deal, bots) for seed in range(seeds)]
        rows[deal] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    print(f"SCOUT {players} players ({peers} machines, {cpu} computer), loss {loss:.0%}, {seeds} seeds, "
          f"bots {bots}:")
    print(f"  {'':22}{'open':>12}{'hidden':>12}{'ratio':>8}")
    names = {"bytes": "bytes per match", "moves": "moves per match", "per_move": "bytes per move",
             "deal_wait_ms": "deal wait per round (ms)", "cpu_ms": "CPU per machine (ms)",
             "virtual_s": "match length (s)"}
    for key, name in names.items():
        o, h = rows["open"][key], rows["hidden"][key]
        ratio = f"{h / o:8.2f}" if o else "       -"
        print(f"  {name:22}{o:12.1f}{h:12.1f}{ratio}")


def main(argv: Any = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--bots", default="random")
    args = parser.parse_args(argv)
    for players, peers, cpu in ((3, 3, 0), (5, 5, 0)):
        for loss in (0.0, 0.1):
            case(players, peers, cpu, loss, args.seeds, args.bots)


if __name__ == "__main__":
    main()
