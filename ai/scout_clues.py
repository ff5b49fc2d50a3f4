"""What the other seats did this SCOUT round, read from one seat's successive observations.

A bot sees only its observations, when it is asked to act. Between two of its turns (3-5
players) every other seat moved exactly once, in seat order; comparing the two observations
tells each move apart: a seat whose Scout & Show chip went is the one that scouted and then
showed, a new public card in a hand was scouted, a shorter hand showed. Walking the movers
backwards from the active set now gives the set each of them faced: a show's cards are the
set that the next mover captured or scouted from (or the active set now), the set it beat is
what it captured, a scouted card came from one end of it. The positions a shown block may
have had in a hidden hand are those that keep the seat's public (scouted) cards where they
were. Where a move can be read more than one way (which card of a Scout & Show's show was
scouted, which end and which way up a scouted card was), the readings are tried until the
whole window fits: every show's positions, and the set the first mover faced (the one this
seat left, known from its own move, ``note``). Each move becomes a clue for the search's
inference (ai/_infer.pxi), and so does every seat's whole-hand turn. Only public information
is read: hand sizes, the active set, captured cards, chips and the cards each hand shows.
When no reading fits a window, every seat's clues up to it are cut off (a ``break`` clue).
With 2 players, where a scout is followed by a second move, nothing is read: the search
samples uniformly, as before.
"""

from __future__ import annotations

from typing import Any

Clue = dict[str, Any]


def _pair(text: str) -> tuple[int, int]:
    up, down = (int(v) for v in text.split("/"))
    return (up, down) if up < down else (down, up)


def _turned(text: str) -> str:
    up, down = text.split("/")
    return f"{down}/{up}"


def _ups(cards: list[str]) -> list[int]:
    return [int(c.split("/")[0]) for c in cards]


def _valid_set(cards: list[str]) -> bool:
    """A legal show: one value throughout, or consecutive values up or down."""
    ups = _ups(cards)
    if len(set(ups)) == 1:
        return True
    steps = {b - a for a, b in zip(ups, ups[1:], strict=False)}
    return steps in ({1}, {-1})


class ScoutClueReader:
    """Feed it every observation of one seat (``see``) and the seat's own moves (``note``);
    ``clues`` is the round's list so far."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.round: Any = None
        self.last: dict[str, Any] | None = None   # the last observation in the play phase
        self.mine: str | None = None   # the seat's move after it
        self.clues: list[Clue] = []
        self.mute = False  # 2 players: nothing is read
        self.played = 0   # moves made in the play phase so far (a clue's "move" is its index)

    def note(self, action: str) -> None:
        """The seat's own move, made after the last observation it saw."""
        self.mine = action

    def see(self, obs: dict[str, Any]) -> list[Clue]:
        """Take in an observation (the seat's own, before it acts); the round's clues."""
        n = obs["players"]
        key = (obs["round"], obs["start"])
        if key != self.round:
            self.round, self.last, self.clues, self.mute = key, None, [], n < 3
            self.played = 0
        if self.mute or obs["phase"] != "play" or obs["turn"] != self.seat:
            return self.clues
        if self.last is None:
            self._turns(obs)
            movers = [(obs["start"] + k) % n for k in range((self.seat - obs["start"]) % n)]
            dealt = obs["hand_sizes"][self.seat]  # nobody's hand changed before play
            before: dict[str, Any] = {"known": [[None] * dealt for _ in range(n)],
                                      "captured_cards": [[] for _ in range(n)], "scout_show": [True] * n}
            owner: int | None = None
            first: list[str] | None = []
        else:
            movers = [(self.seat + k) % n for k in range(1, n)]
            before = self.last
            mine = self.seat
            # a hand that did not grow showed: the first mover faced this seat's set
            owner = mine if obs["hand_sizes"][mine] <= before["hand_sizes"][mine] else before["owner"]
            first = _left(before, self.mine)
        readings = self._window(before, obs, movers, owner, first)
        if readings is None:  # every seat's story stops here; later windows go on
            self.clues.extend({"seat": s, "kind": "break"} for s in range(n) if s != self.seat)
        else:
            self.clues.extend({**clue, "move": self.played + k} for k, clue in enumerate(readings))
        self.played += len(movers) + 1
        self.last, self.mine = obs, None
        return self.clues

    def _turns(self, obs: dict[str, Any]) -> None:
        for s, flipped in enumerate(obs["flipped"]):
            if s != self.seat and flipped is not None:
                self.clues.append({"seat": s, "kind": "flip" if flipped else "keep",
                                   "sizes": list(obs["hand_sizes"])})

    def _window(self, before: dict[str, Any], obs: dict[str, Any], movers: list[int],
                owner: int | None, first: list[str] | None) -> list[Clue] | None:
        """The movers' moves between ``before`` and ``obs`` (movers in the order they moved;
        ``owner`` that of the set the first of them faced, ``first`` that set when known), or
        None when no reading fits."""
        sizes = list(obs["hand_sizes"])
        for x in movers:
            sizes[x] = len(before["known"][x])

        def walk(i: int, after: list[str]) -> list[Clue] | None:
            """Readings of movers[:i] (newest last) that end in the set ``after``."""
            if i == 0:
                return [] if first is None or after == first else None
            x = movers[i - 1]
            for clue, faced in _readings(x, before, obs, after):
                rest = walk(i - 1, faced)
                if rest is not None:
                    return [*rest, clue]
            return None

        out = walk(len(movers), list(obs["active"]))
        if out is None:
            return None
        for clue in out:  # the hand sizes and the owner each mover faced
            clue["sizes"] = list(sizes)
            x = clue["seat"]
            sizes[x] = len(obs["known"][x])
            clue["owner"] = owner if clue["before"] else None
            if clue["kind"] != "scout":
                owner = x
        return out


def _left(before: dict[str, Any], action: str | None) -> list[str] | None:
    """The set this seat left on the table by ``action`` from ``before`` (None: unknown)."""
    if action is None:
        return None
    hand, active = list(before["hand"]), list(before["active"])
    scout, _, show = action.partition("+")
    if scout.startswith("show:"):
        scout, show = "", scout
    if scout:
        parts = scout.split(":")
        if len(parts) != 3 or not active:
            return None
        end, (value, pos) = parts[1], parts[2].split("@")
        card = active.pop(0 if end == "L" else -1)
        if card.split("/")[0] != value:
            card = _turned(card)
        hand.insert(int(pos), card)
        if not show:
            return active
    if not show:
        return None
    first, _, last = show[5:].partition("-")
    return hand[int(first):int(last or first) + 1]


def _readings(x: int, before: dict[str, Any], obs: dict[str, Any],
              after: list[str]) -> list[tuple[Clue, list[str]]]:
    """Every way seat ``x``'s move may be read (clue, the set it faced), ``after`` being the
    set its move left."""
    pre = list(before["known"][x])
    post = list(obs["known"][x])
    captured = obs["captured_cards"][x][len(before["captured_cards"][x]):]
    chip = bool(before["scout_show"][x])
    pre_pairs = {_pair(c) for c in pre if c is not None}
    new = [c for c in post if c is not None and _pair(c) not in pre_pairs]
    if len(new) > 1:
        return []
    out: list[tuple[Clue, list[str]]] = []
    if chip and not obs["scout_show"][x] and after:
        # a Scout & Show: the scouted card is public in the hand, or was shown at once
        cards = new or [c for c in after if _pair(c) not in pre_pairs]
        for card in cards:
            q = _positions(pre, post, after, card)
            if q:
                for end, faced in _placements(captured, card):
                    out.append(({"seat": x, "kind": "scout_show", "scout_show": chip, "show": after,
                                 "card": card, "end": end, "q": q, "before": faced}, faced))
    elif new and len(post) == len(pre) + 1:
        for end, faced in _placements(after, new[0]):
            out.append(({"seat": x, "kind": "scout", "scout_show": chip, "card": new[0], "end": end,
                         "before": faced}, faced))
    elif len(post) < len(pre) and after:
        q = _positions(pre, post, after, None)
        if q:
            out.append(({"seat": x, "kind": "show", "scout_show": chip, "show": after, "end": "L", "q": q,
                         "before": list(captured)}, list(captured)))
    return out


def _placements(rest: list[str], card: str) -> list[tuple[str, list[str]]]:
    """The ends a scouted ``card`` (as it went into the hand) may have come from, and the
    sets it came from, ``rest`` being the set left: every placement that makes a legal set."""
    if not rest:
        return [("L", [card]), ("L", [_turned(card)])]
    out = []
    for end in ("L", "R"):
        for face in (card, _turned(card)):
            whole = [face, *rest] if end == "L" else [*rest, face]
            if _valid_set(whole):
                out.append((end, whole))
    return out


def _positions(pre: list[str | None], post: list[str | None], shown: list[str],
               scouted: str | None) -> list[int]:
    """Where a block of ``shown`` cards may have stood in the hand (positions of the hand
    after the move), given the public cards before (``pre``) and after (``post``); with a
    ``scouted`` card (a Scout & Show) the card went in before the show."""
    public = {_pair(c) for c in pre if c is not None}
    if scouted is not None:
        public.add(_pair(scouted))
    block: list[str | None] = [c if _pair(c) in public else None for c in shown]
    out = []
    for q in range(len(post) + 1):
        inter = post[:q] + block + post[q:]
        if scouted is not None:
            at = [i for i, c in enumerate(inter) if c is not None and _pair(c) == _pair(scouted)]
            if len(at) != 1:
                continue
            inter = inter[:at[0]] + inter[at[0] + 1:]
        if inter == pre:
            out.append(q)
    return out
