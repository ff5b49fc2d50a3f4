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

A beacon's nonce carries a **name tag**: 8 random bytes, then a keyed BLAKE2b (16 bytes) of
the salt and those bytes under the table name's key, ``Argon2id(passphrase, name_salt(name))``.
A joiner that types ``join NAME --passphrase P`` derives that key once and checks the tag of
every sealed datagram it hears (a microsecond): only salts whose tag holds are worth a table
key, and a stranger without the passphrase cannot make one hold (``Keyring.named``).

``Keyring`` holds a listener's keys, one per salt it heard: strangers can send beacons with
ever-new salts, and each key costs ``MEMLIMIT`` and about 0.1 s of CPU, so it derives within
two budgets: salts whose name tag holds, at most ``DERIVE_BURST`` at once then one per
``NAMED_EVERY`` seconds; other salts (the caller offers only those heard again at a beacon's
rate: ``p2p/discovery.py``), at most ``DERIVE_BURST`` at once then one per ``DERIVE_EVERY``
seconds. It keeps at most ``KEYRING_SIZE`` keys (a key that opened a beacon is evicted last).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import hashlib
import hmac
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
NAMED_EVERY = 0.5
"""Seconds per derivation for salts whose name tag holds (only someone with the passphrase and
the name, or a replay of the table's own beacons, makes those)."""
TAG_RANDOM = 8
"""Random bytes at the start of a beacon's nonce; the name tag fills the other 16."""


@dataclass(frozen=True, slots=True)
class Seal:
    """The key of one table's passphrase, and the salt it was derived with."""

    salt: bytes
    key: bytes = field(repr=False)
    passphrase: str | None = field(default=None, repr=False, compare=False)
    """The passphrase it was derived from (``derive``): for the name key of its beacons."""
    name_key: bytes | None = field(default=None, repr=False, compare=False)
    """Set on a beacon's seal (``for_beacon``): its nonces carry the name tag."""

    def for_beacon(self, name: str) -> Seal:
        """This seal for a beacon of table ``name``: its nonces carry the name tag."""
        if self.passphrase is None:
            return self
        return dataclasses.replace(self, name_key=name_key(self.passphrase, name))

    def close(self, head: bytes, body: bytes) -> bytes:
        """``head`` + salt + nonce + ``body`` encrypted (head and salt authenticated too)."""
        aad = head + self.salt
        nonce = os.urandom(NONCE_BYTES)
        if self.name_key is not None:
            nonce = nonce[:TAG_RANDOM] + _name_tag(self.name_key, self.salt, nonce[:TAG_RANDOM])
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


def name_salt(name: str) -> bytes:
    """The salt of a table name's key (any case: ``join`` finds names in any case)."""
    text = unicodedata.normalize("NFC", name).lower().encode("utf-8")
    return hashlib.blake2b(text, digest_size=SALT_BYTES, person=b"cardtable-name").digest()


def name_key(passphrase: str, name: str) -> bytes:
    """The key of a table name's tag: Argon2id of the passphrase with the name's salt (cached)."""
    return derive(passphrase, name_salt(name)).key


def _name_tag(key: bytes, salt: bytes, random: bytes) -> bytes:
    data = b"cardtable/beacon/" + salt + random
    return hashlib.blake2b(data, key=key, digest_size=NONCE_BYTES - TAG_RANDOM).digest()


def name_tagged(key: bytes, data: bytes, head: int) -> bool:
    """Whether the datagram sealed after ``head`` clear bytes carries the name tag of ``key``."""
    if len(data) < head + OVERHEAD:
        return False
    salt, nonce = data[head:head + SALT_BYTES], data[head + SALT_BYTES:head + SALT_BYTES + NONCE_BYTES]
    return hmac.compare_digest(nonce[TAG_RANDOM:], _name_tag(key, bytes(salt), bytes(nonce[:TAG_RANDOM])))


@functools.lru_cache(maxsize=32)
def derive(passphrase: str, salt: bytes) -> Seal:
    """The key of ``passphrase`` for ``salt`` (Argon2id; cached: each pair is derived once)."""
    secret = unicodedata.normalize("NFC", passphrase).encode("utf-8")
    key = argon2id.kdf(KEY_BYTES, secret, bytes(salt), opslimit=OPSLIMIT, memlimit=MEMLIMIT)
    return Seal(bytes(salt), key, passphrase)


def for_table(passphrase: str | None, table_id: bytes) -> Seal | None:
    """The seal of table ``table_id`` (None without a passphrase)."""
    return None if passphrase is None else derive(passphrase, table_salt(table_id))


class _Budget:
    """A token bucket: ``burst`` at once, then one per ``every`` seconds."""

    def __init__(self, burst: int, every: float) -> None:
        self.burst, self.every = burst, every
        self.tokens = float(burst)
        self.refilled: float | None = None

    def take(self, now: float) -> bool:
        if self.refilled is not None and self.every > 0:
            self.tokens = min(float(self.burst), self.tokens + max(0.0, now - self.refilled) / self.every)
        self.refilled = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Keyring:
    """A listener's keys for one passphrase, one per salt heard, derived within bounds (see
    the module docstring). ``derive`` (the cached ``derive``) is called only within them, and
    once for the name sought (``name``: set by ``join NAME``), whose key checks name tags."""

    def __init__(self, passphrase: str | None, *, burst: int = DERIVE_BURST, every: float = DERIVE_EVERY,
                 named_every: float = NAMED_EVERY, size: int = KEYRING_SIZE) -> None:
        self.passphrase = passphrase
        self.size = size
        self.name: str | None = None
        self.derived = 0
        self._budgets = (_Budget(burst, every), _Budget(burst, named_every))
        self._name_key: tuple[str, bytes] | None = None
        self._keys: collections.OrderedDict[bytes, Seal] = collections.OrderedDict()
        self._opened: set[bytes] = set()

    def pin(self, seal: Seal) -> None:
        """Hold ``seal`` (a key derived elsewhere, e.g. the peer's own), as one that opens."""
        self._keys[seal.salt] = seal
        self._opened.add(seal.salt)
        self._trim()

    def named(self, data: bytes, head: int) -> bool:
        """Whether the sealed datagram ``data`` (``head`` clear bytes) carries the name tag of the
        name sought with this passphrase (False when there is no name or no passphrase)."""
        if self.passphrase is None or self.name is None:
            return False
        if self._name_key is None or self._name_key[0] != self.name:
            self._name_key = (self.name, name_key(self.passphrase, self.name))
        return name_tagged(self._name_key[1], data, head)

    def held(self, salt: bytes) -> Seal | None:
        """The key of ``salt`` if it is held (no derivation)."""
        seal = self._keys.get(salt)
        if seal is not None:
            self._keys.move_to_end(salt)
        return seal

    def get(self, salt: bytes, now: float, named: bool = False) -> Seal | None:
        """The key for ``salt``; None without a passphrase or when no derivation is allowed now
        (``named``: the salt's name tag holds, the other budget)."""
        seal = self.held(salt)
        if seal is not None or self.passphrase is None:
            return seal
        if not self._budgets[named].take(now):
            return None
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
