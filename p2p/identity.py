"""A peer's Ed25519 identity (PyNaCl): sign, verify, pair keys, and keep the key on disk."""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path

import nacl.bindings
import nacl.exceptions
import nacl.signing

KEY_BYTES = 32
SIG_BYTES = 64


class Identity:
    """An Ed25519 signing key; ``key`` is the 32-byte public key that names the peer."""

    __slots__ = ("_signing", "key")

    def __init__(self, signing: nacl.signing.SigningKey) -> None:
        self._signing = signing
        self.key: bytes = bytes(signing.verify_key)

    @classmethod
    def generate(cls) -> Identity:
        return cls(nacl.signing.SigningKey.generate())

    @classmethod
    def from_seed(cls, seed: bytes) -> Identity:
        """A deterministic identity from 32 seed bytes (tests)."""
        return cls(nacl.signing.SigningKey(bytes(seed)))

    @classmethod
    def load_or_create(cls, path: Path | None = None) -> Identity:
        """The identity kept at ``path`` (default: ``default_path()``), created mode 0600 if missing."""
        path = path or default_path()
        if path.exists():
            seed = path.read_bytes()
            if len(seed) != KEY_BYTES:
                raise ValueError(f"{path}: not a cardtable identity key ({len(seed)} bytes)")
            return cls.from_seed(seed)
        path.parent.mkdir(parents=True, exist_ok=True)
        signing = nacl.signing.SigningKey.generate()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(bytes(signing))
        return cls(signing)

    def sign(self, data: bytes) -> bytes:
        """The 64-byte detached signature of ``data``."""
        return bytes(self._signing.sign(data).signature)

    def pair_key(self, other: bytes, context: bytes) -> bytes | None:
        """A 32-byte key that only this identity and ``other`` can compute, for ``context``:
        X25519 of the two Ed25519 keys (converted), hashed with both keys and the context.
        None if ``other`` is not a usable public key."""
        try:
            theirs = nacl.signing.VerifyKey(other).to_curve25519_public_key()
            mine = self._signing.to_curve25519_private_key()
            secret = nacl.bindings.crypto_scalarmult(bytes(mine), bytes(theirs))
        except (nacl.exceptions.CryptoError, ValueError, TypeError, RuntimeError):
            return None
        low, high = sorted((self.key, bytes(other)))
        digest = hashlib.blake2b(secret + low + high + context, digest_size=32, person=b"cardtable-pair")
        return digest.digest()


def default_home() -> Path:
    """``$CARDTABLE_HOME``, or the platform's config dir for cardtable (``~/.config/cardtable`` on
    Linux, ``~/Library/Application Support/cardtable`` on macOS, ``%APPDATA%\\cardtable`` on
    Windows)."""
    home = os.environ.get("CARDTABLE_HOME")
    if home:
        return Path(home)
    import platformdirs

    return Path(platformdirs.user_config_path("cardtable", appauthor=False, roaming=True))


def default_path() -> Path:
    """Where the identity is kept: ``identity.key`` in ``default_home()``."""
    return default_home() / "identity.key"


@lru_cache(maxsize=256)
def _verify_key(key: bytes) -> nacl.signing.VerifyKey | None:
    try:
        return nacl.signing.VerifyKey(key)
    except (nacl.exceptions.CryptoError, ValueError, TypeError):
        return None


def verify(key: bytes, data: bytes, sig: bytes) -> bool:
    """Whether ``sig`` is ``key``'s signature of ``data`` (never raises).

    Results are remembered for a while: duplicated and retransmitted datagrams (Ed25519
    signatures are deterministic, so a resend carries the same bytes) are checked once.
    """
    if len(key) != KEY_BYTES or len(sig) != SIG_BYTES:
        return False
    return _verify(bytes(key), bytes(data), bytes(sig))


@lru_cache(maxsize=8192)
def _verify(key: bytes, data: bytes, sig: bytes) -> bool:
    vk = _verify_key(key)
    if vk is None:
        return False
    try:
        vk.verify(data, sig)
    except (nacl.exceptions.BadSignatureError, nacl.exceptions.CryptoError, ValueError, TypeError):
        return False
    return True
