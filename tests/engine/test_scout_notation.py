"""The SCOUT text notation: cards and actions, parse and str round-trip (engine/scout/actions.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable.engine.errors import ParseError
from cardtable.engine.scout import (
    Card,
    Pass,
    Scout,
    ScoutShow,
    Show,
    TurnChoice,
    parse_action,
    parse_card,
)


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("flip", TurnChoice(True)),
        ("keep", TurnChoice(False)),
        ("show:0", Show(0, 0)),
        ("show:12", Show(12, 12)),
        ("show:3-5", Show(3, 5)),
        ("show:0-10", Show(0, 10)),
        ("scout:R:9@0", Scout("R", 9, 0)),
        ("scout:L:10@11", Scout("L", 10, 11)),
        ("scout:L:1@3+show:2-4", ScoutShow(Scout("L", 1, 3), Show(2, 4))),
        ("scout:R:7@0+show:0", ScoutShow(Scout("R", 7, 0), Show(0, 0))),
        ("pass", Pass()),  # docs/rules.md 2.7.4, option voluntary_pass
    ],
)
def test_canonical_texts_round_trip(text: str, action: object) -> None:
    assert parse_action(text) == action
    assert str(parse_action(text)) == text
    assert str(action) == text


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "expected flip"),
        ("Flip", "expected flip"),
        (" flip", "expected flip"),
        ("keep ", "expected flip"),
        ("Pass", "expected flip"),
        ("pass ", "expected flip"),
        ("show:", "show:I"),
        ("show:3-3", "I < J"),
        ("show:5-3", "I < J"),
        ("show:03", "show:I"),
        ("show:-1", "show:I"),
        ("show:1-", "show:I"),
        ("show:1-2 ", "show:I"),
        ("show:1000", "show:I"),
        ("scout:X:3@1", "scout:E:V@P"),
        ("scout:l:3@1", "scout:E:V@P"),
        ("scout:L:0@1", "scout:E:V@P"),
        ("scout:L:11@1", "scout:E:V@P"),
        ("scout:L:3", "scout:E:V@P"),
        ("scout:L:3@", "scout:E:V@P"),
        ("scout:L:3@1+", "scout:E:V@P"),
        ("scout:L:3@1+show:2-2", "I < J"),
        ("scout:L:3@1+scout:L:3@1", "scout:E:V@P"),
        ("scout:L:3@1+show:1+show:2", "scout:E:V@P"),
    ],
)
def test_bad_action_texts(text: str, why: str) -> None:
    with pytest.raises(ParseError, match=why) as info:
        parse_action(text)
    assert repr(text) in str(info.value)  # the message names the text
    assert "\n" not in str(info.value)


def test_non_text_is_refused() -> None:
    with pytest.raises(ParseError):
        parse_action(3)  # type: ignore[arg-type]
    with pytest.raises(ParseError):
        parse_card(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["7/3", "1/10", "10/1", "9/8"])
def test_card_texts_round_trip(text: str) -> None:
    card = parse_card(text)
    assert str(card) == text
    assert card.up == int(text.split("/")[0])


@pytest.mark.parametrize("text", ["7/7", "0/3", "11/2", "7-3", "07/3", "7/", "/3", "7/3/1", " 7/3"])
def test_bad_card_texts(text: str) -> None:
    with pytest.raises(ParseError, match="bad card"):
        parse_card(text)


def test_actions_are_values() -> None:
    a, b = parse_action("scout:L:1@3+show:2-4"), parse_action("scout:L:1@3+show:2-4")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert parse_action("show:1") != parse_action("show:1-2")
    assert parse_action("scout:L:1@3") != parse_action("scout:R:1@3")
    combo = ScoutShow(Scout("L", 1, 3), Show(2, 4))
    assert combo == a
    with pytest.raises(AttributeError):
        combo.scout = Scout("R", 1, 3)  # type: ignore[misc]
    assert Card(3, 7) != Card(7, 3)


indices = st.integers(0, 999)
shows = st.one_of(
    indices.map(lambda i: Show(i, i)),
    st.tuples(indices, indices).filter(lambda t: t[0] < t[1]).map(lambda t: Show(*t)),
)
scouts = st.builds(Scout, st.sampled_from("LR"), st.integers(1, 10), indices)
actions = st.one_of(
    st.sampled_from([TurnChoice(True), TurnChoice(False)]),
    shows,
    scouts,
    st.builds(ScoutShow, scouts, shows),
)


@settings(max_examples=300, deadline=None)
@given(actions)
def test_every_action_round_trips(action: object) -> None:
    text = str(action)
    assert parse_action(text) == action
    assert str(parse_action(text)) == text


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="showcutkeplfiLR:@+-0123456789/ ", max_size=24))
def test_arbitrary_text_parses_canonically_or_fails_cleanly(text: str) -> None:
    try:
        action = parse_action(text)
    except ParseError:
        return
    assert str(action) == text  # only canonical texts are accepted
