"""Identities: signatures, and the key file in the config dir."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from cardtable.p2p.identity import Identity, default_path, verify


def test_sign_and_verify() -> None:
    me = Identity.from_seed(b"a" * 32)
    sig = me.sign(b"hello")
    assert len(me.key) == 32 and len(sig) == 64
    assert verify(me.key, b"hello", sig)
    assert not verify(me.key, b"hellO", sig)
    assert not verify(Identity.from_seed(b"b" * 32).key, b"hello", sig)
    assert not verify(me.key, b"hello", sig[:-1] + bytes([sig[-1] ^ 1]))
    assert not verify(b"short", b"hello", sig) and not verify(me.key, b"hello", b"short")
    assert Identity.from_seed(b"a" * 32).key == me.key


def test_pair_keys_agree_between_the_two_and_only_them() -> None:
    a, b, c = (Identity.from_seed(bytes([i]) * 32) for i in (1, 2, 3))
    key = a.pair_key(b.key, b"table")
    assert key is not None and len(key) == 32
    assert b.pair_key(a.key, b"table") == key
    assert c.pair_key(b.key, b"table") != key and c.pair_key(a.key, b"table") != key
    assert a.pair_key(b.key, b"other") != key
    assert a.pair_key(b"short", b"table") is None and a.pair_key(bytes(32), b"table") is None


def test_key_file_is_created_private_and_reloaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDTABLE_HOME", str(tmp_path / "home"))
    path = default_path()
    assert path == tmp_path / "home" / "identity.key"
    first = Identity.load_or_create()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert Identity.load_or_create().key == first.key
    path.write_bytes(b"junk")
    with pytest.raises(ValueError, match="not a cardtable identity"):
        Identity.load_or_create()
