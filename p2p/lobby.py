"""The lobby's door: a join needs a round trip from its address before anything is spent on it.

A ``JOIN`` with a join proposal from a non-member is first answered with a cookie (a
``PROBE`` whose nonce is the cookie) sent to the address it came from; only a ``JOIN`` that
carries a valid cookie has its signatures verified and is appended. The cookie is a keyed
BLAKE2b of the joiner's key and address and the current ten-second window, under a secret
only this sequencer knows (``Door.secret``), so the sequencer keeps no state per stranger:
a flood of forged joins from fresh keys or spoofed addresses costs it one MAC and, at most
``ANSWERS_PER_SECOND`` times a second, one signed answer; nothing is stored, nothing is
appended, no seat is taken. Nothing about a non-member is ever recorded until its join is
in the log (then it is a member).
"""

from __future__ import annotations

import hashlib
import hmac

COOKIE_BYTES = 16
WINDOW = 10.0
"""Seconds a cookie stays valid (the current window and the one before)."""
ANSWERS_PER_SECOND = 20
"""Cookies a sequencer sends at most per second (a flood of joins gets no more)."""

Addr = tuple[str, int]


class Door:
    """Cookies for joiners, and the rate at which they are handed out."""

    def __init__(self, secret: bytes) -> None:
        self.secret = secret
        self.second = -1
        self.answered = 0

    def cookie(self, key: bytes, addr: Addr, now: float, back: int = 0) -> bytes:
        window = int(now // WINDOW) - back
        data = b"cardtable/cookie/" + key + f"{addr[0]}:{addr[1]}/{window}".encode()
        return hashlib.blake2b(data, key=self.secret, digest_size=COOKIE_BYTES).digest()

    def valid(self, cookie: bytes | None, key: bytes, addr: Addr, now: float) -> bool:
        return cookie is not None and any(hmac.compare_digest(cookie, self.cookie(key, addr, now, back))
                                          for back in (0, 1))

    def may_answer(self, now: float) -> bool:
        """Whether another cookie may go out this second."""
        second = int(now)
        if second != self.second:
            self.second, self.answered = second, 0
        self.answered += 1
        return self.answered <= ANSWERS_PER_SECOND
