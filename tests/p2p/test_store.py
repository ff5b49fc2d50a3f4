"""Stores: the in-memory one and the file, including a torn tail."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cardtable.p2p.store import FileStore, MemoryStore, Store


def fill(store: Store) -> None:
    store.set_term(3, b"k" * 32)
    store.append([b"e1", b"e2", b"e3"])
    store.truncate(2)
    store.append([b"e3'"])
    store.set_meta("commit", 2)
    store.set_meta("addrs", [[b"k" * 32, "10.0.0.1", 7000]])
    store.set_term(4, None)


@pytest.mark.parametrize("kind", ["memory", "file"])
def test_round_trip(kind: str, tmp_path: Path) -> None:
    store: Store = MemoryStore() if kind == "memory" else FileStore(tmp_path / "t.log")
    fill(store)
    got = (FileStore(tmp_path / "t.log") if kind == "file" else store).load()
    assert (got.term, got.vote) == (4, None)
    assert got.entries == [b"e1", b"e2", b"e3'"]
    assert got.meta == {"commit": 2, "addrs": [[b"k" * 32, "10.0.0.1", 7000]]}


def test_a_missing_file_is_an_empty_store(tmp_path: Path) -> None:
    assert FileStore(tmp_path / "none.log").load().empty()


def test_memory_store_hands_out_copies() -> None:
    store = MemoryStore()
    store.append([b"a"])
    store.load().entries.append(b"b")
    assert store.load().entries == [b"a"]


@pytest.mark.parametrize("cut", [1, 2, 5])
def test_a_torn_tail_is_cut_and_writing_goes_on(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "t.log"
    store = FileStore(path, sync=False)
    store.append([b"one", b"two"])
    whole = path.stat().st_size
    store.append([b"three-is-a-longer-entry"])
    data = path.read_bytes()
    path.write_bytes(data[:-cut])
    again = FileStore(path)
    got = again.load()
    assert got.entries == [b"one", b"two"]
    assert again.cut == len(data) - cut - whole and path.stat().st_size == whole
    again.append([b"four"])
    assert FileStore(path).load().entries == [b"one", b"two", b"four"]


def test_garbage_after_good_records_is_cut(tmp_path: Path) -> None:
    path = tmp_path / "t.log"
    FileStore(path).append([b"one"])
    with open(path, "ab") as f:
        f.write(b"\x93\xa1Z\x01")  # a well-formed record of an unknown kind
    assert FileStore(path).load().entries == [b"one"]
    assert FileStore(path).load().entries == [b"one"]


def test_many_rewrites_are_compacted(tmp_path: Path) -> None:
    path = tmp_path / "t.log"
    store = FileStore(path, sync=False)
    store.append([b"e"])
    for i in range(300):
        store.set_meta("commit", i)
    big = path.stat().st_size
    got = FileStore(path).load()
    assert got.meta["commit"] == 299 and got.entries == [b"e"]
    assert path.stat().st_size < big / 10
    assert FileStore(path).load().meta["commit"] == 299


def test_only_the_commit_index_and_addresses_skip_the_fsync(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Raft needs the term, the vote and the entries stable before it answers; the commit
    index (written on every commit) need not be, nor the relayed addresses."""
    synced: list[int] = []
    monkeypatch.setattr("cardtable.p2p.store.os.fsync", lambda fd: synced.append(fd))
    path = tmp_path / "t.log"
    store = FileStore(path)

    def fsyncs(step: Callable[[], None]) -> int:
        before = len(synced)
        step()
        return len(synced) - before

    assert fsyncs(lambda: store.set_term(2, b"k" * 32)) == 1
    assert fsyncs(lambda: store.append([b"e1", b"e2"])) == 1
    assert fsyncs(lambda: store.truncate(1)) == 1
    assert fsyncs(lambda: store.set_meta("incarnation", 7)) == 1
    assert fsyncs(lambda: store.set_meta("nonce", b"n" * 32)) == 1
    assert fsyncs(lambda: store.set_meta("commit", 1)) == 0
    assert fsyncs(lambda: store.set_meta("addrs", [[b"k" * 32, "10.0.0.1", 7000]])) == 0
    got = FileStore(path).load()  # written all the same (only a power cut could lose them)
    assert got.meta["commit"] == 1 and got.entries == [b"e1"] and got.term == 2


def test_a_lost_commit_index_only_means_learning_it_again(tmp_path: Path) -> None:
    path = tmp_path / "t.log"
    store = FileStore(path)
    store.set_term(1, None)
    store.append([b"e1", b"e2"])
    stable = path.stat().st_size
    store.set_meta("commit", 2)  # lazy: say the power went before it reached the disk
    path.write_bytes(path.read_bytes()[:stable])
    got = FileStore(path).load()
    assert got.entries == [b"e1", b"e2"] and got.term == 1 and "commit" not in got.meta
