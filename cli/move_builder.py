"""Building a move step by step: the legal actions narrowed down to one, a question at a time."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cardtable.cli.player_words import solo_move_label
from cardtable.cli.words import COLOURS, plural


@dataclass(frozen=True)
class Choice:
    key: str
    label: str


@dataclass(frozen=True)
class Question:
    """One step of building an action: what to ask and the answers that lead to a legal action."""

    kind: str
    prompt: str
    choices: tuple[Choice, ...]


@dataclass
class _Dim:
    kind: str
    prompt: str
    keys: Callable[[Any], tuple[str, ...]]
    label: Callable[[str], str]
    order: Callable[[str], Any] | None = None


class Builder:
    """Narrows a list of legal actions down to one, one question at a time.

    Every answer keeps only the actions that fit it, so whatever is built is legal. A question
    with a single possible answer is not asked. The SOLO call is not a question: it is made if
    the player armed it (the SOLO! key) and the play allows one.
    """

    def __init__(self, game: str, actions: Sequence[Any], obs: dict[str, Any], names: Sequence[str],
                 call: bool = False) -> None:
        self.game = game
        self.candidates = list(actions)
        self.obs = obs
        self.names = list(names)
        self.call = call
        self.answers: dict[str, str] = {}
        self.dims = _solo_dims(self) if game == "solo" else _scout_dims(self)
        self.pos = 0

    def question(self) -> Question | None:
        """The next question, or None when the action is determined."""
        while self.pos < len(self.dims):
            dim = self.dims[self.pos]
            keys: list[str] = []
            for a in self.candidates:
                for k in dim.keys(a):
                    if k not in keys:
                        keys.append(k)
            if len(keys) > 1:
                if dim.order is not None:
                    keys.sort(key=dim.order)
                return Question(dim.kind, dim.prompt, tuple(Choice(k, dim.label(k)) for k in keys))
            if keys:
                self.answers[dim.kind] = keys[0]
            self.pos += 1
        return None

    def top(self) -> Question | None:
        """The first question (the move), even when it has a single answer."""
        dim = self.dims[0]
        keys = list(dict.fromkeys(k for a in self.candidates for k in dim.keys(a)))
        return Question(dim.kind, dim.prompt, tuple(Choice(k, dim.label(k)) for k in keys)) if keys else None

    def choose_move(self, key: str) -> None:
        """Answer the first question with ``key`` (ValueError if no legal action starts so)."""
        dim = self.dims[0]
        kept = [a for a in self.candidates if key in dim.keys(a)]
        if not kept:
            raise ValueError(f"{key!r} is not a move now")
        self.candidates, self.answers[dim.kind], self.pos = kept, key, 1

    def answer(self, key: str) -> None:
        """Take the answer ``key`` to the current question (ValueError if it is not a choice)."""
        q = self.question()
        if q is None or key not in {c.key for c in q.choices}:
            raise ValueError(f"{key!r} is not one of the choices")
        dim = self.dims[self.pos]
        self.answers[dim.kind] = key
        self.candidates = [a for a in self.candidates if key in dim.keys(a)]
        self.pos += 1

    def result(self) -> Any | None:
        """The action built, once no question is left (None before)."""
        if self.question() is not None or not self.candidates:
            return None
        if self.game == "solo":
            called = [a for a in self.candidates if getattr(a, "call", False)]
            plain = [a for a in self.candidates if not getattr(a, "call", False)]
            if self.call and called:
                return called[0]
            if plain:
                return plain[0]
        return self.candidates[0]


def _solo_dims(b: Builder) -> list[_Dim]:
    from cardtable.engine.solo.actions import Catch, Play
    from cardtable.engine.solo.cards import CARDS

    obs = b.obs
    hand: list[str] = list(obs.get("hand", []))

    def move_key(a: Any) -> tuple[str, ...]:
        if isinstance(a, Play):
            return (f"multi:{a.card.number}",) if len(a.cards) > 1 else (a.card.text,)
        if isinstance(a, Catch):
            return (str(a),)
        return (str(a),)

    def move_label(key: str) -> str:
        return solo_move_label(key, obs, b.candidates, b.names)

    def cards(a: Any, part: str) -> tuple[str, ...]:
        if not isinstance(a, Play) or len(a.cards) < 2:
            return ()
        if part == "first":
            return (a.cards[0].text,)
        if part == "last":
            return (a.cards[-1].text,)
        return ("+".join(c.text for c in a.cards[1:-1]),)

    def gift1(a: Any) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.text for c in a.gift)) if isinstance(a, Play) else ()

    def gift2(a: Any) -> tuple[str, ...]:
        if not isinstance(a, Play) or not a.gift:
            return ()
        rest = [c.text for c in a.gift]
        first = b.answers.get("gift1")
        if first in rest:
            rest.remove(first)
        return tuple(rest[:1]) if rest else ("none",)

    def target_label(key: str) -> str:
        t = int(key)
        sizes = obs.get("hand_sizes", [])
        size = f", {plural(sizes[t], 'card')}" if t < len(sizes) else ""
        who = b.names[t] if t < len(b.names) else f"seat {t}"
        return f"seat {t} ({who}{size})"

    def colour_label(key: str) -> str:
        held = sum(1 for c in hand if c.startswith(key) and not c.startswith("prot"))
        return f"{COLOURS.get(key, key)} ({key}; you hold {held})"

    def attr(name: str) -> Callable[[Any], tuple[str, ...]]:
        def keys(a: Any) -> tuple[str, ...]:
            value = getattr(a, name, None) if isinstance(a, Play) else None
            return () if value is None else (str(value),)
        return keys

    def by_card(key: str) -> tuple[int, list[int]]:
        """Cards in canonical order (several joined by + after fewer)."""
        parts = [CARDS[t].index if t in CARDS else -1 for t in key.split("+")]
        return len(parts), parts

    return [
        _Dim("move", "Choose a move", move_key, move_label),
        _Dim("first", "Multiples: the first card (it must fit)", lambda a: cards(a, "first"), str, by_card),
        _Dim("last", "Multiples: the last card (the new top)", lambda a: cards(a, "last"), str, by_card),
        _Dim("middle", "Multiples: the cards in between", lambda a: cards(a, "middle"),
             lambda k: k.replace("+", " "), by_card),
        _Dim("colour", "Name a colour", attr("colour"), colour_label),
        _Dim("target", "Choose a seat", attr("target"), target_label),
        _Dim("gift1", "Choose a card to give", gift1, str, by_card),
        _Dim("gift2", "Choose the second card to give", gift2, str, by_card),
    ]


def _scout_dims(b: Builder) -> list[_Dim]:
    from cardtable.engine.scout.actions import Scout, ScoutShow, Show, TurnChoice
    from cardtable.engine.scout.cards import Card, parse_card
    from cardtable.engine.scout.state import describe_show

    obs = b.obs
    hand = [parse_card(t) if t != "?" else Card(0, 0) for t in obs.get("hand", [])]  # ?: not open yet
    active = [parse_card(t) for t in obs.get("active", [])]

    def kind(a: Any) -> tuple[str, ...]:
        if isinstance(a, TurnChoice) or str(a) == "pass":  # pass: option voluntary_pass
            return (str(a),)
        return ({Show: "show", Scout: "scout", ScoutShow: "scoutshow"}[type(a)],)

    def scout_of(a: Any) -> Scout | None:
        return a if isinstance(a, Scout) else a.scout if isinstance(a, ScoutShow) else None

    def show_of(a: Any) -> Show | None:
        return a if isinstance(a, Show) else a.show if isinstance(a, ScoutShow) else None

    def scout_part(part: str) -> Callable[[Any], tuple[str, ...]]:
        def keys(a: Any) -> tuple[str, ...]:
            s = scout_of(a)
            return () if s is None else (str(getattr(s, part)),)
        return keys

    def show_part(part: str) -> Callable[[Any], tuple[str, ...]]:
        def keys(a: Any) -> tuple[str, ...]:
            s = show_of(a)
            return () if s is None else (str(getattr(s, part)),)
        return keys

    def current_hand() -> list[Card]:
        """The hand the show's indices refer to (after the insertion, for Scout & Show)."""
        if b.answers.get("move") != "scoutshow" or "pos" not in b.answers:
            return hand
        end, value, pos = b.answers.get("end", "L"), int(b.answers["value"]), int(b.answers["pos"])
        card = active[0] if end == "L" else active[-1]
        card = card if card.up == value else card.turned()
        return hand[:pos] + [card] + hand[pos:]

    def move_label(key: str) -> str:
        return {"flip": "flip: turn your whole hand around", "keep": "keep your hand as dealt",
                "show": "show cards from your hand", "scout": "scout a card from the table",
                "scoutshow": "Scout & Show (once per round)",
                "pass": "pass: end the round (voluntary pass)"}.get(key, key)

    def end_label(key: str) -> str:
        card = active[0] if key == "L" else active[-1]
        return f"the {'left' if key == 'L' else 'right'} end ({card})"

    def value_label(key: str) -> str:
        end = b.answers.get("end", "L")
        card = active[0] if end == "L" else active[-1]
        other = card.down if card.up == int(key) else card.up
        return f"{key} up ({key}/{other})"

    def pos_label(key: str) -> str:
        p = int(key)
        if not hand:
            return f"{p}: into your empty hand"
        if p == 0:
            return f"{p}: at the left end, before {hand[0]}"
        if p == len(hand):
            return f"{p}: at the right end, after {hand[-1]}"
        return f"{p}: between {hand[p - 1]} and {hand[p]}"

    def first_label(key: str) -> str:
        h = current_hand()
        i = int(key)
        return f"{i}: from {h[i]}" if i < len(h) else key

    def last_label(key: str) -> str:
        h = current_hand()
        first, last = int(b.answers.get("from", key)), int(key)
        return f"{last}: {describe_show(h[first:last + 1])}" if last < len(h) else key

    return [
        _Dim("move", "Choose a move", kind, move_label),
        _Dim("end", "Scout which end of the set", scout_part("end"), end_label),
        _Dim("value", "Which value up", scout_part("value"), value_label),
        _Dim("pos", "Insert it where", scout_part("pos"), pos_label),
        _Dim("from", "Show from which card", show_part("first"), first_label),
        _Dim("to", "Show up to which card", show_part("last"), last_label),
    ]
