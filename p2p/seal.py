"""The passphrase seal: an Argon2id key per table, and an AEAD around every datagram.

A table with a passphrase has a 16-byte **salt**: ``table_salt(table id)``, a one-way hash of
the random id its host drew when it created the table, so it is random, differs per table,
is kept wherever the table is (its log starts with the id: a restart finds it again) and
reveals nothing of the id. Its key is ``Argon2id(passphrase, salt)`` (PyNaCl's ``pwhash``,
libsodium's interactive limits: ``OPSLIMIT``, ``MEMLIMIT``), derived once per (passphrase,
salt) in a process (``derive`` caches it).

A sealed datagram is the clear head (magic, version, flags: ``p2p/wire.py``), the salt, a
24-byte nonce and the body encrypted with XChaCha20-Poly1305 (16-byte tag), the head and
salt as associated data. Nonces come from the operating system (``os.urandom``), not from
a peer's seeded stream: a seed used twice (tests, a replayed run) would repeat nonces under
one key, which breaks the cipher, and nothing a peer decides depends on them, so seeded runs
stay deterministic in all but the ciphertext.

``Keyring`` holds a listener's keys, one per salt it heard: strangers can send beacons with
ever-new salts, and each key costs ``MEMLIMIT`` and about 0.1 s of CPU, so it derives at most
``DERIVE_BURST`` at once and then one per ``DERIVE_EVERY`` seconds, and keeps at most
``KEYRING_SIZE`` keys (a key that opened a beacon is evicted last).
"""

from __future__ import annotations

import collections
import functools
import hashlib
import os
import unicodedata
from dataclasses import dataclass, field

import nacl.exceptions
import nacl.pwhash.argon2id as argon2id
from nacl.bindings import (
    crypto_aead_xchacha20poly1305_ietf_ABYTES,
    crypto_aead_xchacha20poly1305_ietf_decrypt,
    crypto_aead_xchacha20poly1305_ietf_encrypt,
    crypto_aead_xchacha20poly1305_ietf_NPUBBYTES,
)

SALT_BYTES = 16
NONCE_BYTES = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES  # 24
MAC_BYTES = crypto_aead_xchacha20poly1305_ietf_ABYTES  # 16
KEY_BYTES = 32
OVERHEAD = SALT_BYTES + NONCE_BYTES + MAC_BYTES
"""Bytes a seal adds to a datagram (56), taken from the body's budget."""
OPSLIMIT = argon2id.OPSLIMIT_INTERACTIVE
MEMLIMIT = argon2id.MEMLIMIT_INTERACTIVE
"""Argon2id's limits: 2 passes over 64 MiB (about 0.1 s of one core: docs/security.md)."""

KEYRING_SIZE = 16
DERIVE_BURST = 4
DERIVE_EVERY = 2.0


@dataclass(frozen=True, slots=True)
class Seal:
    """The key of one table's passphrase, and the salt it was derived with."""

    salt: bytes
    key: bytes = field(repr=False)

    def close(self, head: bytes, body: bytes) -> bytes:
        """``head`` + salt + nonce + ``body`` encrypted (head and salt authenticated too)."""
        aad = head + self.salt
        nonce = os.urandom(NONCE_BYTES)
        return aad + nonce + crypto_aead_xchacha20poly1305_ietf_encrypt(body, aad, nonce, self.key)

    def open(self, data: bytes, head: int) -> bytes | None:
        """The body of a datagram sealed with this key after ``head`` clear bytes; None if the
        salt is another's or anything was changed."""
        start = head + SALT_BYTES
        if len(data) < start + NONCE_BYTES + MAC_BYTES or data[head:start] != self.salt:
            return None
        nonce = data[start:start + NONCE_BYTES]
        try:
            return bytes(crypto_aead_xchacha20poly1305_ietf_decrypt(data[start + NONCE_BYTES:], data[:start],
                                                                    nonce, self.key))
        except nacl.exceptions.CryptoError:
            return None


def salt_of(data: bytes, head: int) -> bytes | None:
    """The salt of a datagram sealed after ``head`` clear bytes (None: too short to be one)."""
    if len(data) < head + OVERHEAD:
        return None
    return bytes(data[head:head + SALT_BYTES])


def table_salt(table_id: bytes) -> bytes:
    """The salt of a table: a one-way hash of its random id."""
    return hashlib.blake2b(table_id, digest_size=SALT_BYTES, person=b"cardtable-salt").digest()


@functools.lru_cache(maxsize=32)
def derive(passphrase: str, salt: bytes) -> Seal:
    """The key of ``passphrase`` for ``salt`` (Argon2id; cached: each pair is derived once)."""
    secret = unicodedata.normalize("NFC", passphrase).encode("utf-8")
    key = argon2id.kdf(KEY_BYTES, secret, bytes(salt), opslimit=OPSLIMIT, memlimit=MEMLIMIT)
    return Seal(bytes(salt), key)


def for_table(passphrase: str | None, table_id: bytes) -> Seal | None:
    """The seal of table ``table_id`` (None without a passphrase)."""
    return None if passphrase is None else derive(passphrase, table_salt(table_id))


class Keyring:
    """A listener's keys for one passphrase, one per salt heard, derived within bounds (see
    the module docstring). ``derive`` (the cached ``derive``) is called only within them."""

    def __init__(self, passphrase: str | None, *, burst: int = DERIVE_BURST, every: float = DERIVE_EVERY,
                 size: int = KEYRING_SIZE) -> None:
        self.passphrase = passphrase
        self.burst, self.every, self.size = burst, every, size
        self.tokens = float(burst)
        self.refilled: float | None = None
        self.derived = 0
        self._keys: collections.OrderedDict[bytes, Seal] = collections.OrderedDict()
        self._opened: set[bytes] = set()

    def pin(self, seal: Seal) -> None:
        """Hold ``seal`` (a key derived elsewhere, e.g. the peer's own), as one that opens."""
        self._keys[seal.salt] = seal
        self._opened.add(seal.salt)
        self._trim()

    def get(self, salt: bytes, now: float) -> Seal | None:
        """The key for ``salt``; None without a passphrase or when no derivation is allowed now."""
        seal = self._keys.get(salt)
        if seal is not None:
            self._keys.move_to_end(salt)
            return seal
        if self.passphrase is None:
            return None
        if self.refilled is not None:
            self.tokens = min(float(self.burst), self.tokens + max(0.0, now - self.refilled) / self.every)
        self.refilled = now
        if self.tokens < 1:
            return None
        self.tokens -= 1
        self.derived += 1
        seal = derive(self.passphrase, salt)
        self._keys[salt] = seal
        self._trim()
        return seal

    def opened(self, salt: bytes) -> None:
        """``salt``'s key opened an authentic beacon: keep it longest."""
        if salt in self._keys:
            self._opened.add(salt)

    def __len__(self) -> int:
        return len(self._keys)

    def _trim(self) -> None:
        while len(self._keys) > self.size:
            victim = next((s for s in self._keys if s not in self._opened), next(iter(self._keys)))
            del self._keys[victim]
            self._opened.discard(victim)
