"""The lobby's door: a join needs a round trip from its address before anything is spent on it.

A ``JOIN`` with a join proposal from a non-member is first answered with a cookie (a
``PROBE`` whose nonce is the cookie) sent to the address it came from; only a ``JOIN`` that
carries a valid cookie has its signatures verified and is appended. The cookie is a keyed
BLAKE2b of the joiner's key and address and the current ten-second window, under a secret
only this sequencer knows (``Door.secret``), so nothing is stored, nothing is appended and no
seat is taken for a stranger.

Answers are rationed **per source** (a joiner's address and key, the pair its cookie is
bound to): at most one per ``TICK`` seconds to each, and never more than one per ``JOIN``
received, so a flood of forged joins, from any number of spoofed addresses, costs the
sequencer at most one signed answer per datagram and never delays a real joiner's cookie
(at most a tick after its first ``JOIN`` that arrives). A ``JOIN`` from a member's address is
not answered (``p2p/membership.py``): a member would answer the cookie, so answers turned on the
members would cost them a signature each. What is remembered for that is a
fixed table of ``SLOTS`` slots (a keyed hash of the source, 4 bytes, and the tick it was
answered in, 4 bytes), allocated once: a flood from ever-new sources overwrites slots, which
can only let a source be answered again sooner, and grows nothing.
"""

from __future__ import annotations

import hashlib
import hmac

COOKIE_BYTES = 16
WINDOW = 10.0
"""Seconds a cookie stays valid (the current window and the one before)."""
TICK = 0.5
"""A source is answered at most once per tick (a joiner sends its ``JOIN`` every 0.25 s)."""
SLOTS = 4096
"""Sources remembered (8 bytes each, 32 KiB in all)."""

Addr = tuple[str, int]


class Door:
    """Cookies for joiners, and who was answered lately."""

    def __init__(self, secret: bytes) -> None:
        self.secret = secret
        self.answered = 0
        self._slots = bytearray(8 * SLOTS)

    def cookie(self, key: bytes, addr: Addr, now: float, back: int = 0) -> bytes:
        window = int(now // WINDOW) - back
        data = b"cardtable/cookie/" + key + f"{addr[0]}:{addr[1]}/{window}".encode()
        return hashlib.blake2b(data, key=self.secret, digest_size=COOKIE_BYTES).digest()

    def valid(self, cookie: bytes | None, key: bytes, addr: Addr, now: float) -> bool:
        return cookie is not None and any(hmac.compare_digest(cookie, self.cookie(key, addr, now, back))
                                          for back in (0, 1))

    def may_answer(self, key: bytes, addr: Addr, now: float) -> bool:
        """Whether the source (``key`` at ``addr``) may be answered now: not yet in this tick."""
        data = b"cardtable/source/" + key + f"{addr[0]}:{addr[1]}".encode()
        digest = hashlib.blake2b(data, key=self.secret, digest_size=8).digest()
        at = 8 * (int.from_bytes(digest[:4], "big") % SLOTS)
        tick = (int(now // TICK) + 1) & 0xFFFFFFFF  # 0: a slot never used
        mark = digest[4:] + tick.to_bytes(4, "big")
        if self._slots[at:at + 8] == mark:
            return False
        self._slots[at:at + 8] = mark
        self.answered += 1
        return True
