"""Hidden hands: each machine's part in a deal (``dealing.Dealing``), driven through a reliable
ordered log and lossy, reordering member-to-member messages, ends with every machine holding the
deal an honest run gives; an author that sends points other than the digest it logged never gets
them used."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable.engine.shuffle import Stream
from cardtable.p2p.hidden.bundles import StepChunk, Want
from cardtable.p2p.hidden.deal import run
from cardtable.p2p.hidden.dealing import Dealing, Out, Propose, Send
from cardtable.p2p.hidden.group import card_points, mul, scalar
from tests.p2p.test_deck import TABLE, identities, seeds, spec_for


class Room:
    """n machines, a log (every proposal committed in order, delivered to all) and a network that
    drops ``loss`` of the messages and delivers the rest in a seeded random order."""

    def __init__(self, n: int, size: int, loss: float, salt: int, deal_no: int = 0) -> None:
        self.members = [i.key for i in identities(n)]
        self.seeds = seeds(n, salt)
        self.points = card_points(TABLE, "x", [f"c{i}" for i in range(size)])
        self.spec = spec_for(self.members, size, deal_no=deal_no)
        self.machines = [Dealing(self.spec, m, s, self.points)
                         for m, s in zip(self.members, self.seeds, strict=True)]
        self.log: list[list[Any]] = []
        self.applied = [0] * n
        self.wire: list[tuple[bytes, StepChunk | Want, bytes]] = []  # (to, item, from)
        self.rng = Stream(b"room", f"{n}/{size}/{loss}/{salt}")
        self.loss = loss

    def handle(self, sender: int, outs: list[Out]) -> None:
        for out in outs:
            if isinstance(out, Propose):
                self.log.append(out.payload)
            elif isinstance(out, Send):
                self.wire.append((out.to, out.item, self.members[sender]))

    def step(self) -> bool:
        """Deliver one thing; False when nothing is left to deliver."""
        for k, machine in enumerate(self.machines):
            if self.applied[k] < len(self.log):
                payload = self.log[self.applied[k]]
                self.applied[k] += 1
                self.handle(k, machine.on_logged(payload))
                return True
        if not self.wire:
            return False
        to, item, sender = self.wire.pop(self.rng.below(len(self.wire)))
        if self.rng.below(1000) < self.loss * 1000:
            return True
        k = self.members.index(to)
        if isinstance(item, Want):
            self.handle(k, self.machines[k].on_want(item))
        else:
            self.handle(k, self.machines[k].on_chunk(item))
        return True

    def resend_timer(self) -> None:
        for k, machine in enumerate(self.machines):
            asked = machine.want()
            if asked is not None:
                self.wire.append((asked[0], asked[1], self.members[k]))

    def play(self, rounds: int = 200) -> None:
        self.handle(0, self.machines[0].start())
        for _ in range(rounds):
            while self.step():
                pass
            if all(m.deal.complete for m in self.machines):
                return
            self.resend_timer()


@settings(max_examples=12, deadline=None)
@given(n=st.integers(2, 5), size=st.sampled_from([7, 28, 45, 61]), loss=st.sampled_from([0.0, 0.2, 0.4]),
       salt=st.integers(0, 1000))
def test_every_machine_ends_with_the_honest_deal_through_loss_and_reordering(n: int, size: int, loss: float,
                                                                             salt: int) -> None:
    room = Room(n, size, loss, salt)
    room.play()
    honest = run(room.spec, room.seeds, room.points)
    for machine in room.machines:
        assert machine.deal.complete
        assert machine.deal.digests == honest.digests and machine.deal.slots == honest.slots
    kinds = [len(p) for p in room.log]
    assert kinds.count(4) == 2 * n - 1  # one digest per step but the last, which is in full
    assert len(room.log) == 2 * n - 1 + -(-size // 20)


def test_points_other_than_the_logged_digest_are_never_used() -> None:
    room = Room(3, 28, 0.0, 1)
    cheat = room.machines[1]
    honest_on_want, honest_advance = cheat.on_want, cheat._advance

    def lying(outs: list[Out]) -> list[Out]:  # member 1 sends altered chunks of its step
        return [Send(o.to, StepChunk(o.item.deal_no, o.item.step, o.item.first,
                                     (mul(scalar(2), o.item.points[0]),) + o.item.points[1:]))
                if isinstance(o, Send) else o for o in outs]
    cheat._advance = lambda: lying(honest_advance())  # type: ignore[method-assign]
    cheat.on_want = lambda want: lying(honest_on_want(want))  # type: ignore[method-assign]
    room.play(rounds=20)
    receiver = room.machines[2]
    assert len(receiver.deal.digests) == 2 and 1 not in receiver.deal.points  # stuck before step 2
    asked = receiver.want()
    assert asked is not None and asked[0] == room.members[1] and asked[1].step == 1
    assert not any(m.deal.complete for m in room.machines)
