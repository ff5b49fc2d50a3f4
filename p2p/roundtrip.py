"""Round trips: how long a peer waits for an answer before it sends again (RFC 6298).

A peer keeps, per member it waits for, a smoothed round trip (SRTT) and its variation
(RTTVAR), from the answers to messages it sent once: an ``APPEND`` and its ``APPEND_OK`` (the
sequencer), a proposal and the ``APPEND`` that brings it back in the log (its author). An
answer to a message that was sent again is no sample (Karn's rule: it may answer either
send). The time to wait, the retransmission timeout (RTO), is ``SRTT + 4 * RTTVAR``, at least
twice SRTT, within ``[lo, hi]`` (``Timeouts.resend`` and ``Timeouts.resend_max``): on a quick
LAN the floor ``lo``; on a link of 20-50 ms each way about 0.15 s, so that an answer on its
way is not overtaken by a resend.

For a member it has no sample of yet, a peer waits the longest RTO it knows of another
member (one LAN: its links are alike); with no sample at all, ``lo``, doubled each time an
answer came only after a resend (so that a slow link is not resent to for ever, which would
never give a sample), until the first sample.
"""

from __future__ import annotations

from dataclasses import dataclass

ALPHA = 1 / 8  # the weight of a new sample in SRTT (RFC 6298)
BETA = 1 / 4  # ... and in RTTVAR
K = 4
MAX_KEYS = 16
"""Members with an estimate (more than a table's seats; the oldest is forgotten first)."""


@dataclass
class Estimate:
    srtt: float
    rttvar: float


class RoundTrips:
    """One peer's round-trip estimates of the members it waits for."""

    def __init__(self, lo: float, hi: float) -> None:
        self.lo, self.hi = lo, max(lo, hi)
        self.estimates: dict[bytes, Estimate] = {}
        self.first = lo

    def sample(self, key: bytes, rtt: float) -> None:
        """The answer to a message sent once to ``key`` came ``rtt`` seconds after it."""
        rtt = max(rtt, 0.0)
        e = self.estimates.pop(key, None)
        if e is None:
            e = Estimate(rtt, rtt / 2)
        else:
            e.rttvar = (1 - BETA) * e.rttvar + BETA * abs(e.srtt - rtt)
            e.srtt = (1 - ALPHA) * e.srtt + ALPHA * rtt
        self.estimates[key] = e  # the most recent last
        while len(self.estimates) > MAX_KEYS:
            del self.estimates[next(iter(self.estimates))]

    def ambiguous(self) -> None:
        """An answer came after a resend: no sample, but before any sample, wait longer."""
        if not self.estimates:
            self.first = min(self.hi, 2 * self.first)

    def timeout(self, key: bytes | None) -> float:
        """How long to wait for ``key``'s answer (None: for anyone's, e.g. votes)."""
        e = self.estimates.get(key) if key is not None else None
        if e is not None:
            return self._rto(e)
        if self.estimates:
            return max(self._rto(e) for e in self.estimates.values())
        return self.first

    def _rto(self, e: Estimate) -> float:
        return min(self.hi, max(self.lo, e.srtt + K * e.rttvar, 2 * e.srtt))
