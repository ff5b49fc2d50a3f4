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
    ("bad_entries", {"key": "ab" * 32, "seat": 1, "term": 3, "index": 9},
     "bea (seat 1) as sequencer sent you entries that do not verify"),
])
def test_a_members_misdeed_is_told_in_words(kind: str, data: dict[str, object], words: str) -> None:
    seats = [SimpleNamespace(name="ann"), SimpleNamespace(name="bea"), SimpleNamespace(name=None)]
    peer = SimpleNamespace(table=SimpleNamespace(seats=seats), my_seat=0, key=b"k")
    text = _EventPrinter(peer, verbose=False).describe(kind, data)
    assert text is not None and text.startswith(words), text
    assert "{" not in text
    assert ("(key abababab)" in text) == ("key" in data)  # the key too, as a headless screen has no names


@pytest.mark.parametrize(("kind", "data", "words"), [
    ("rebuild", {"text": "bea left: the other machines rebuild its part of the deal and the round goes on",
                 "member": "ab" * 32}, "bea left: the other machines rebuild"),
    ("returning", {"seat": 1, "name": "bea"}, "bea is back and plays from the next deal"),
    ("round_void", {"text": "round 2 is void because bea left and with two machines dealing there is no "
                            "escrow: nobody scores, it is dealt again"}, "round 2 is void because bea left"),
])
def test_what_becomes_of_a_round_when_a_member_goes_is_told_in_words(kind: str, data: dict[str, object],
                                                                     words: str) -> None:
    peer = SimpleNamespace(table=SimpleNamespace(seats=[]), my_seat=0, key=b"k")
    text = _EventPrinter(peer, verbose=False).describe(kind, data)
    assert text is not None and text.startswith(words) and "{" not in text, text
