"""Who may speak to a peer: the membership check every datagram passes before it counts.

The guarantee that lives here (docs/security.md): nothing a non-member sends changes a
member's term, role, log, store, address book or seat. ``speaker`` classifies the sender of
a decoded message *before* its signature is verified (cheap checks first) and before any
term is looked at:

- ``MEMBER``: a member of the table by this peer's whole log (or a leaver the sequencer is
  still telling), or, while this peer holds no log yet (a newcomer, or a peer that lost its
  store), the sequencer it was sent to: the key a member named (``peer.sponsor``, from a
  beacon or a ``REDIRECT``), from an address the peer contacted (``peer.contacts``: else a
  replay of its first datagram from elsewhere would set its address), or, when no key is
  known, whoever answers from the address the peer itself contacted (a round trip);
- ``ASKING``: a ``JOIN`` from a non-member: handled by the lobby (``p2p.lobby``), which
  never records anything about it until its join is in the log;
- ``WATCHER``: a spectator's ``APPEND_OK`` to the sequencer that keeps it (``p2p/spectators.py``:
  it moves nothing but the spectator's own view); a spectator's ``WATCH`` is ``ASKING``, as it
  passes the same door;
- ``STRANGER``: anything else; dropped as ``not a member``. That includes a key this log
  says never joined, left or was evicted, whatever it signs and whatever entries it carries
  (its own authentic ``join`` entry included): a peer that holds a log takes an ``APPEND``
  only from a member of that log. (A peer that lags behind a join whose member became
  sequencer learns of it from another sequencer its log knows, after an election.)

Terms: a member's term may move only by at most ``MAX_TERM_STEP`` at a time, so that terms
stay far below the wire's limit whatever a (modified) member sends.
"""

from __future__ import annotations

from collections.abc import Container, Sized
from typing import TYPE_CHECKING, Final, Protocol

from cardtable.p2p import wire
from cardtable.p2p.wire import AppendOk, Join, Propose, Watch

if TYPE_CHECKING:
    from cardtable.p2p.peer_state import Addr
    from cardtable.p2p.table import Roster

MEMBER: Final = "member"
ASKING: Final = "asking"
WATCHER: Final = "watcher"
STRANGER: Final = "stranger"

MAX_TERM_STEP = 2**20
"""The largest step a term may take at once (an election takes one step; a member cut off
for a day climbs about 70,000). At this step, 2**42 messages separate a term from the wire's
limit of 2**63 - 1."""


class Listener(Protocol):
    """What ``speaker`` reads of a peer (``p2p.peer.Peer`` is one)."""

    @property
    def roster(self) -> Roster: ...  # the membership over its whole log
    @property
    def log(self) -> Sized: ...
    @property
    def sponsor(self) -> bytes | None: ...
    @property
    def contact(self) -> Addr | None: ...
    @property
    def contacts(self) -> Container[Addr]: ...
    @property
    def spectators(self) -> Container[bytes]: ...  # the sequencer's
    @property
    def followers(self) -> Container[bytes]: ...  # the sequencer's


def speaker(peer: Listener, msg: wire.Message, addr: Addr) -> str:
    """Who sent ``msg`` as far as this peer can tell without verifying a signature."""
    members = peer.roster.members
    if isinstance(msg, Join):
        return MEMBER if msg.key in members else ASKING
    if isinstance(msg, Watch):
        return ASKING
    if isinstance(msg, AppendOk) and msg.key in peer.spectators and msg.key not in members:
        return WATCHER
    if isinstance(msg, Propose):
        return MEMBER if msg.key in members else STRANGER
    if not peer.log:  # no log yet: only the sequencer it was sent to, where it was sent
        if peer.sponsor is not None:
            return MEMBER if msg.key == peer.sponsor and addr in peer.contacts else STRANGER
        return MEMBER if addr == peer.contact else STRANGER
    if msg.key in members:
        return MEMBER
    if isinstance(msg, AppendOk) and msg.key in peer.followers:
        return MEMBER  # a leaver the sequencer is still telling
    return STRANGER
