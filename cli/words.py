"""Words for players, made in one place: counts with their nouns, and what happened at the
table (``Speaker``), from the fields engine events carry (kind, seat, cards, colour, target,
counts), never by parsing the engine's own English."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """``1 card``, ``2 cards``, ``0 cards`` (``nouns`` for an irregular plural)."""
    return f"{n} {noun}" if n == 1 else f"{n} {nouns or noun + 's'}"


COLOURS = {"R": "red", "G": "green", "B": "blue", "Y": "yellow"}
PROTECTED_FROM = {"skip": "the Skip", "gift": "the Gift", "swap": "the Swap", "pass": "Pass hands"}


class Speaker:
    """Sentences for one seat (``me``; None: nobody, as in a replay): seats by name, ``you``
    for its own, verbs agreeing with their subject."""

    def __init__(self, me: int | None, names: Sequence[str]) -> None:
        self.me = me
        self.names = list(names)

    def who(self, seat: int | None, possessive: bool = False) -> str:
        if seat is None:
            return "nobody"
        if seat == self.me:
            return "your" if possessive else "you"
        name = self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"
        label = name if name == f"seat {seat}" else f"{name} (seat {seat})"
        return label + ("'s" if possessive else "")

    def says(self, seat: int | None, you: str, other: str) -> str:
        """``You <you>`` for this seat, ``<name> <other>`` for another."""
        if seat is not None and seat == self.me:
            return f"You {you}"
        return f"{self.who(seat)} {other}"

    def event(self, kind: str, seat: int | None, facts: Mapping[str, Any], text: str) -> str:
        """One engine event (its kind, seat and facts) as a sentence."""
        make = getattr(self, "_" + kind, None)
        if make is None or (not facts and kind not in _BARE):
            return self.fallback(seat, text)
        return str(make(seat, facts))

    # --- SOLO ---
    def _play(self, seat: int | None, f: Mapping[str, Any]) -> str:
        what = "+".join(f["cards"])
        if f.get("colour"):
            what += f" naming {COLOURS[f['colour']]}"
        if f.get("target") is not None:
            what += f" at {self.who(f['target'])}"
        if f.get("jump"):
            you, other = f"jump in with {what}", f"jumps in with {what}"
        else:
            you, other = f"play {what}", f"plays {what}"
        if f.get("call"):
            you, other = you + " and call SOLO!", other + " and calls SOLO!"
        return self.says(seat, you, other)

    def _call(self, seat: int | None, f: Mapping[str, Any]) -> str:
        return self.says(seat, "call SOLO!", "calls SOLO!")

    def _keep(self, seat: int | None, f: Mapping[str, Any]) -> str:
        if f.get("hand"):
            return self.says(seat, "keep your hand as dealt", "keeps their hand as dealt")
        return self.says(seat, "keep the card drawn", "keeps the card drawn")

    def _penalty(self, seat: int | None, f: Mapping[str, Any]) -> str:
        cards = plural(f["count"], "card")
        return self.says(seat, f"did not call SOLO and draw {cards}", f"did not call SOLO and draws {cards}")

    def _catch(self, seat: int | None, f: Mapping[str, Any]) -> str:
        target, cards = f["target"], plural(f["count"], "card")
        if target == self.me:
            return f"{self.who(seat)} catches you: you draw {cards}"
        caught = f"{self.who(target)}, who draws {cards}"
        return self.says(seat, f"catch {caught}", f"catches {caught}")

    def _false_catch(self, seat: int | None, f: Mapping[str, Any]) -> str:
        target, cards = self.who(f["target"]), plural(f["count"], "card")
        return self.says(seat, f"catch {target} wrongly and draw {cards}",
                         f"catches {target} wrongly and draws {cards}")

    def _draw(self, seat: int | None, f: Mapping[str, Any]) -> str:
        count, penalty = f["count"], f.get("penalty")
        if penalty:
            short = "" if count == penalty else f" (of {penalty}: the pile ran out)"
            cards = plural(count, "card")
            return self.says(seat, f"draw {cards} as a penalty{short}", f"draws {cards} as a penalty{short}")
        if not count:
            return self.says(seat, "cannot draw: no cards left", "cannot draw: no cards left")
        return self.says(seat, "draw a card", "draws a card")

    def _protect(self, seat: int | None, f: Mapping[str, Any]) -> str:
        what = PROTECTED_FROM.get(str(f["against"]), str(f["against"]))
        return self.says(seat, f"are protected from {what}", f"is protected from {what}")

    def _skipped(self, seat: int | None, f: Mapping[str, Any]) -> str:
        return self.says(seat, "are skipped", "is skipped")

    def _decline(self, seat: int | None, f: Mapping[str, Any]) -> str:
        return self.says(seat, "do not protect", "does not protect")

    def _swap(self, seat: int | None, f: Mapping[str, Any]) -> str:
        other = self.who(f["target"])
        return self.says(seat, f"swap hands with {other}", f"swaps hands with {other}")

    def _gift(self, seat: int | None, f: Mapping[str, Any]) -> str:
        what = f"{plural(f['count'], 'card')} to {self.who(f['target'])}"
        return self.says(seat, f"give {what}", f"gives {what}")

    def _pass(self, seat: int | None, f: Mapping[str, Any]) -> str:
        return f"Every hand passes on to the next player ({f['count']} hands)"

    def _out(self, seat: int | None, f: Mapping[str, Any]) -> str:
        return self.says(seat, "have no cards left and win the round", "has no cards left and wins the round")

    # --- SCOUT ---
    def _flip(self, seat: int | None, f: Mapping[str, Any]) -> str:
        return self.says(seat, "turn your whole hand around", "turns their whole hand around")

    def _start(self, seat: int | None, f: Mapping[str, Any]) -> str:
        return self.says(seat, "start the play", "starts the play")

    def _show(self, seat: int | None, f: Mapping[str, Any]) -> str:
        cards = list(f["cards"])
        values = "-".join(c.partition("/")[0] for c in cards)
        shape = "single" if f["shape"] == "single" else f"{f['shape']} of {len(cards)}"
        what = f"{values} ({shape})"
        if f.get("count"):
            captured = plural(f["count"], "card")
            return self.says(seat, f"show {what}, capture {captured}", f"shows {what}, captures {captured}")
        return self.says(seat, f"show {what}", f"shows {what}")

    def _scout(self, seat: int | None, f: Mapping[str, Any]) -> str:
        side = "left" if f["end"] == "L" else "right"
        owner = f.get("target")
        whose = "the table's" if owner is None else self.who(owner, possessive=True)
        what = f"{f['cards'][0]} from the {side} end of {whose} set"
        if f.get("both"):
            what += " with the Scout & Show chip"
        text = self.says(seat, f"scout {what}, insert it at {f['pos']}",
                         f"scouts {what}, inserts it at {f['pos']}")
        if f.get("chips") is not None:
            left = plural(f["chips"], "Scout chip")
            text += (f", pay a Scout chip ({left} left) and move again" if seat == self.me
                     else f", pays a Scout chip ({left} left) and moves again")
        elif owner is not None:
            text += f"; {self.who(owner)} {'get' if owner == self.me else 'gets'} a Scout chip"
        if f.get("empty"):
            text += "; the table is empty"
        return text

    def _end(self, seat: int | None, f: Mapping[str, Any]) -> str:
        if f.get("spared"):
            return f"Nobody beat {self.who(seat, possessive=True)} set: the round is over, no hand penalty"
        return self.says(seat, "empty your hand: the round is over", "empties their hand: the round is over")

    # --- the match ---
    def _round_start(self, seat: int | None, f: Mapping[str, Any]) -> str:
        return f"Round {f['round']} is dealt"

    def _round_end(self, seat: int | None, f: Mapping[str, Any]) -> str:
        scores = ", ".join(f"{self.who(s)} {d:+d}" for s, d in enumerate(f["scores"]))
        return f"Round {f['round']} ends: {scores}"

    def _match_end(self, seat: int | None, f: Mapping[str, Any]) -> str:
        won = " and ".join(self.who(s) for s in f["winners"])
        return f"The match is over, won by {won}"

    def _forfeit(self, seat: int | None, f: Mapping[str, Any]) -> str:
        what = "the seat to a computer player"
        return self.says(seat, f"forfeit {what}", f"forfeits {what}")

    def fallback(self, seat: int | None, text: str) -> str:
        """An event this client has no words for: the engine's own, after its seat's name (a
        player's name that begins it stays as they wrote it)."""
        if seat is not None:
            return f"{self.who(seat)}: {text}"
        if any(name and text.startswith(name + " ") for name in self.names):
            return text
        return text[:1].upper() + text[1:]


_BARE = {"call", "keep", "skipped", "decline", "out", "start", "forfeit"}
"""Event kinds that carry no facts (who did it says it all)."""
