"""Resends that follow the link: on a slow link each action goes once; on loss it still comes
quickly (the waits are measured round trips, ``p2p/roundtrip.py``)."""

from __future__ import annotations

from collections import Counter

from bench.net import SimTable
from cardtable.p2p import wire
from cardtable.p2p.roundtrip import RoundTrips

SLOW = (0.02, 0.05)  # one way, per datagram: a round trip of 40-100 ms


def _played(loss: float, seed: int, actions: int) -> SimTable:
    table = SimTable(4, loss, seed, delay=SLOW)
    table.run(lambda: table.harness.timed >= 5)  # the round trips are known from here on
    table.net.trace = []
    assert table.run(lambda: table.harness.timed >= 5 + actions)
    return table


def test_on_a_slow_link_each_action_and_each_entry_goes_once() -> None:
    table = _played(0.0, 3, 60)
    assert table.net.trace is not None
    proposals: Counter[bytes] = Counter()
    entries: Counter[tuple[tuple[str, int], int]] = Counter()
    for _, _, dst, data in table.net.trace:
        msg = wire.decode(data, None).msg
        if isinstance(msg, wire.Propose):
            proposals[msg.proposal] += 1
        elif isinstance(msg, wire.Append):
            entries.update((dst, e.index) for e in msg.entries)
    assert len(proposals) >= 30 and set(proposals.values()) == {1}, proposals.most_common(3)
    assert len(entries) >= 3 * 60 and set(entries.values()) == {1}, entries.most_common(3)


def test_on_a_slow_lossy_link_a_lost_proposal_comes_again_soon() -> None:
    table = _played(0.1, 4, 60)
    latencies = sorted(table.harness.latencies)
    assert latencies[int(0.95 * len(latencies))] < 0.6
    # a proposal goes again only after a round trip could have answered it (today's 50 ms was
    # shorter than this link's round trip), and soon after: within the RTO's ceiling (0.3 s) when
    # it did not come back in the log, or 0.25 s after it did when its commit is lost
    net = table.net
    assert net.trace is not None
    sends: dict[bytes, list[float]] = {}
    for t, _, _, data in net.trace:
        msg = wire.decode(data, None).msg
        if isinstance(msg, wire.Propose):
            sends.setdefault(msg.proposal, []).append(t)
    gaps = [times[1] - times[0] for times in sends.values() if len(times) > 1]
    assert gaps and min(gaps) >= 0.08 and max(gaps) <= 0.4, gaps


def test_round_trip_estimates() -> None:
    rtt = RoundTrips(0.05, 0.3)
    assert rtt.timeout(b"a") == 0.05
    rtt.ambiguous()
    rtt.ambiguous()
    assert rtt.timeout(b"a") == 0.2  # no sample yet: each answer after a resend doubles the wait
    for _ in range(50):
        rtt.sample(b"a", 0.07)
    assert abs(rtt.timeout(b"a") - 0.14) < 1e-6  # steady: SRTT 70 ms, no variation, twice SRTT
    rtt.ambiguous()
    assert abs(rtt.timeout(b"b") - 0.14) < 1e-6  # unknown: the slowest known link
    for _ in range(50):
        rtt.sample(b"c", 0.001)
    assert rtt.timeout(b"c") == 0.05  # the floor
    rtt.sample(b"a", 5.0)
    assert rtt.timeout(b"a") == 0.3  # the ceiling
