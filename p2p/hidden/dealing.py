"""One machine's part in one deal, sans-I/O: what it proposes to the log and sends to the next member.

The table feeds it what the log commits (``on_logged``: a step's digest, or a step in full) and the
step chunks that reach it (``on_chunk``); it answers with ``Propose`` (a payload for the log) and
``Send`` (a ``SECRET`` item for one member). When its turn comes (the previous step's points are in
and match their digest) it computes its step: the last step goes in the log in full, any other
step's digest goes in the log and its chunks to the next member. ``want`` says what to ask again
(the table calls it on its resend timer); ``on_want`` answers such a request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cardtable.p2p.hidden import payloads
from cardtable.p2p.hidden.bundles import STEP_POINTS, StepChunk, Want
from cardtable.p2p.hidden.deal import Deal, DealSpec, make_step, step_digest
from cardtable.p2p.hidden.group import DeckError
from cardtable.p2p.hidden.member import Layer


@dataclass(frozen=True, slots=True)
class Propose:
    payload: list[Any]


@dataclass(frozen=True, slots=True)
class Send:
    to: bytes
    item: StepChunk


Out = Propose | Send


class Dealing:
    """Member ``me`` (a key of ``spec.members``) in the deal ``spec``, with its seed."""

    def __init__(self, spec: DealSpec, me: bytes, seed: bytes, card_points: Sequence[bytes]) -> None:
        if me not in spec.members:
            raise DeckError("not a member of this deal")
        self.spec = spec
        self.deal = Deal(spec)
        self.index = spec.members.index(me)
        self.layer: Layer = spec.layer(seed)
        self.card_points = card_points
        self.mine: dict[int, list[bytes]] = {}  # my steps' points, to send again on request
        self._chunks: dict[int, dict[int, tuple[bytes, ...]]] = {}  # step -> first -> points
        self._proposed: set[int] = set()

    def start(self) -> list[Out]:
        """What to do once the deal may begin (every member's ``deal`` entry is in)."""
        return self._advance()

    def on_logged(self, payload: Any) -> list[Out]:
        """A committed ``deck`` entry of this deal (a digest, or a chunk of a step in full)."""
        item = payloads.read_deck(payload)
        if item.deal_no != self.spec.deal_no:
            return []
        if isinstance(item, payloads.DeckDigest):
            if item.step == len(self.deal.digests):
                self.deal.add(item.digest)
        else:
            chunks = self._chunks.setdefault(item.step, {})
            chunks[item.first] = tuple(item.points)
            whole = self._whole(item.step)
            if whole is not None and item.step == len(self.deal.digests):
                self.deal.add(None, whole)  # a step in full in the log: its digest is its points'
        return self._advance()

    def on_chunk(self, chunk: StepChunk) -> list[Out]:
        """A chunk of the step before this member's, from its author."""
        n = len(self.spec.members)
        if chunk.deal_no != self.spec.deal_no or chunk.step not in (self.index - 1, n + self.index - 1):
            return []
        self._chunks.setdefault(chunk.step, {})[chunk.first] = chunk.points
        return self._advance()

    def on_want(self, want: Want) -> list[Out]:
        """The next member asks again for chunks of a step of this member's."""
        points = self.mine.get(want.step)
        if points is None or want.deal_no != self.spec.deal_no:
            return []
        to = self.spec.members[(self.index + 1) % len(self.spec.members)]
        return [Send(to, StepChunk(self.spec.deal_no, want.step, first,
                                   tuple(points[first:first + STEP_POINTS])))
                for first in want.slots if 0 <= first < len(points) and first % STEP_POINTS == 0]

    def want(self) -> tuple[bytes, Want] | None:
        """Whom to ask, and for what, when the step before this member's is late (None otherwise)."""
        t = len(self.deal.digests)
        if self.deal.complete or self.spec.author(t) != self.index or t == 0 or t - 1 in self.deal.points:
            return None
        have = self._chunks.get(t - 1, {})
        firsts = tuple(f for f in range(0, self.spec.size, STEP_POINTS) if f not in have)
        author = self.spec.members[self.spec.author(t - 1)]
        return author, Want(self.spec.deal_no, t - 1, firsts or tuple(range(0, self.spec.size, STEP_POINTS)))

    def _whole(self, step: int) -> list[bytes] | None:
        """The step from its chunks, once all are in (chunks that do not fit are dropped)."""
        chunks = self._chunks.get(step, {})
        parts = [payloads.DeckChunk(self.spec.deal_no, step, first, list(points))
                 for first, points in chunks.items()]
        try:
            return payloads.join_chunks(parts, self.spec.size)
        except DeckError:
            self._chunks.pop(step, None)
            return None

    def _advance(self) -> list[Out]:
        out: list[Out] = []
        t = len(self.deal.digests)
        if t and t - 1 not in self.deal.points:
            whole = self._whole(t - 1)
            if whole is not None:
                try:
                    self.deal.attach(t - 1, whole)
                except DeckError:
                    self._chunks.pop(t - 1, None)  # not what its author logged: ask again
        if self.deal.complete or self.spec.author(t) != self.index or t in self._proposed:
            return out
        if t and t - 1 not in self.deal.points:
            return out
        points = make_step(self.spec, t, self.layer, self.deal.previous(self.card_points))
        self.mine[t] = points
        self._proposed.add(t)
        if t == self.spec.steps - 1:
            out += [Propose(p) for p in payloads.deck_payloads(self.spec.deal_no, t, points)]
            return out
        out.append(Propose(payloads.digest_payload(self.spec.deal_no, t, step_digest(self.spec, t, points))))
        to = self.spec.members[(self.index + 1) % len(self.spec.members)]
        chunks = {i: tuple(points[i:i + STEP_POINTS]) for i in range(0, len(points), STEP_POINTS)}
        if to == self.spec.members[self.index]:  # a deal of one member: the next step is its own too
            self._chunks[t] = chunks
            return out
        out += [Send(to, StepChunk(self.spec.deal_no, t, i, part)) for i, part in chunks.items()]
        return out
