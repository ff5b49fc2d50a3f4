"""The headless ``host``/``join`` output: a member's misdeed (equivocation, a rewound history,
censorship) is told in the terminal client's words, naming the member, never as a raw map."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from cardtable.cli.net_cmds import _EventPrinter


@pytest.mark.parametrize(("kind", "data", "words"), [
    ("equivocation", {"key": "ab" * 32, "seat": 1, "term": 3, "index": 9},
     "bea (seat 1) sent two different histories as sequencer"),
    ("rewound", {"index": 9}, "Entries from 9 on were a false history"),
    ("censored", {"key": "ab" * 32, "seat": 1, "victim": 0, "term": 3},
     "bea (seat 1) as sequencer left your move out"),
])
def test_a_members_misdeed_is_told_in_words(kind: str, data: dict[str, object], words: str) -> None:
    seats = [SimpleNamespace(name="ann"), SimpleNamespace(name="bea"), SimpleNamespace(name=None)]
    peer = SimpleNamespace(table=SimpleNamespace(seats=seats), my_seat=0, key=b"k")
    text = _EventPrinter(peer, verbose=False).describe(kind, data)
    assert text is not None and text.startswith(words), text
    assert "{" not in text
    assert ("(key abababab)" in text) == ("key" in data)  # the key too, as a headless screen has no names
