"""Freshness: a replayed datagram, from any address, changes nothing.

Every signed message (and the MAC of every short heartbeat) carries the sender's *stamp*: an
integer that grows with every datagram it sends, under the signature. A sender's stamps
are the microseconds of its wall clock (``Stamps``), never less than one more than the last
one, and never less than a floor kept in its store (``stamp``, raised ten minutes ahead at a
time), so they keep growing across restarts even if the clock steps back a little; after a
restart they go on from that floor at the clock's pace.

A receiver (``Seen``) keeps, per member, the highest stamp it accepted and the last
``WINDOW`` stamps it accepted. A datagram is

- ``NEWEST``: above every stamp seen from that sender. Only such a datagram may move the
  sender's address (proof of liveness a replay cannot give: its stamp is new);
- ``FRESH``: older than the newest but not seen and not older than the window (the network
  reordered it): handled, but it moves no address;
- ``REPLAY``: seen before, or older than the window: dropped (``replayed``), before it
  changes anything (term, timers, liveness, addresses).

Only members are tracked (``p2p.admission`` says who), so the memory is bounded by the
seats. The newest stamp of each member is persisted (``SAVE_STEP``), so that a replay after
a restart is refused too.
"""

from __future__ import annotations

import collections
from typing import Final

NEWEST: Final = "newest"
FRESH: Final = "fresh"
REPLAY: Final = "replay"

WINDOW = 64
"""Stamps remembered per sender (reordered datagrams within them are still handled)."""
SAVE_STEP = 1_000_000
"""A receiver saves its senders' newest stamps when one has moved this far (µs) since the
last save; after a restart it refuses everything up to the saved stamp plus this step (so
nothing it may have seen is new again; a sender that restarts within the step is not heard
for at most that long)."""
RESERVE_US = 600_000_000
"""How far ahead (µs) a sender reserves stamps in its store: one lazy write per ten minutes."""


class Stamps:
    """A sender's stamps: ``next(now)`` with ``now`` the peer's clock and ``offset`` the wall
    clock minus it (set by the adapter; 0 in the simulation, whose clock never goes back)."""

    def __init__(self, floor: int = 0) -> None:
        self.last = max(0, floor)
        self.reserved = self.last
        self.offset = 0.0
        self.ahead: int | None = None  # how far the floor is ahead of the clock at the first stamp

    def next(self, now: float) -> tuple[int, int | None]:
        """The next stamp, and a new reservation to persist (or None). After a restart the stamps
        go on from the floor at the clock's pace (not one microsecond a datagram), so that a
        receiver that restarted too, and refuses ``SAVE_STEP`` past what it saved, hears this
        sender again within about that long of the clock."""
        clock = int((self.offset + now) * 1_000_000)
        if self.ahead is None:
            self.ahead = max(0, self.last - clock)
        self.last = max(self.last + 1, clock + self.ahead)
        if self.last < self.reserved:
            return self.last, None
        self.reserved = self.last + RESERVE_US
        return self.last, self.reserved


class Seen:
    """What a receiver has seen of each member's stamps."""

    def __init__(self) -> None:
        self.top: dict[bytes, int] = {}
        self.floor: dict[bytes, int] = {}
        self.recent: dict[bytes, collections.deque[int]] = {}

    def check(self, key: bytes, stamp: int) -> str:
        """Classify (and record) a stamp from ``key``: ``NEWEST``, ``FRESH`` or ``REPLAY``."""
        recent = self.recent.setdefault(key, collections.deque(maxlen=WINDOW))
        if stamp > self.top.get(key, 0):
            self.top[key] = stamp
            recent.append(stamp)
            return NEWEST
        floor = max(self.floor.get(key, 0), min(recent) if len(recent) == WINDOW else 0)
        if stamp <= floor or stamp in recent:
            return REPLAY
        recent.append(stamp)
        return FRESH

    def to_save(self, saved: dict[bytes, int]) -> bool:
        """Whether some sender's newest stamp is ``SAVE_STEP`` past what ``saved`` holds."""
        return any(key not in saved or top > saved[key] + SAVE_STEP for key, top in self.top.items())

    def restore(self, key: bytes, top: int) -> None:
        """After a restart: nothing at or below ``top`` from ``key`` is new."""
        self.top[key] = max(self.top.get(key, 0), top)
        self.floor[key] = max(self.floor.get(key, 0), top)

    def forget(self, keep: set[bytes]) -> None:
        """Drop what is known of keys no longer in ``keep``."""
        for key in [k for k in self.top if k not in keep]:
            del self.top[key]
            self.floor.pop(key, None)
            self.recent.pop(key, None)
