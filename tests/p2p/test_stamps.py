"""A sender's stamps across restarts (p2p/freshness.py): they grow, and at the clock's pace."""

from __future__ import annotations

from cardtable.p2p.freshness import NEWEST, REPLAY, RESERVE_US, SAVE_STEP, Seen, Stamps


def test_stamps_grow_across_a_restart_and_a_restarted_receiver_hears_them_again_within_seconds() -> None:
    """The sender restarts from its stored reservation (ahead of its clock), the receiver saves
    what it saw and restarts too, refusing up to that plus ``SAVE_STEP``: two seconds of the
    clock later the sender is heard again. At one microsecond a datagram from the floor it took
    a million datagrams."""
    before = Stamps()
    stamp, reserve = before.next(10.0)
    assert reserve is not None and reserve >= stamp + RESERVE_US
    after = Stamps(reserve)  # restarted: the floor is the reservation, far ahead of the clock
    receiver = Seen()
    first, _ = after.next(11.0)
    assert first > stamp and receiver.check(b"k", first) == NEWEST
    saved = receiver.top[b"k"]
    restarted = Seen()
    restarted.restore(b"k", saved + SAVE_STEP)
    heard = [restarted.check(b"k", after.next(11.0 + t / 100)[0]) for t in range(1, 300)]
    assert heard[0] == REPLAY and NEWEST in heard
    assert heard.index(NEWEST) <= 110  # about SAVE_STEP (1 s) of the clock, at 10 ms a datagram
    stamps = [after.next(20.0)[0] for _ in range(3)]
    assert stamps == sorted(set(stamps))
