"""Words for players: what a session tells (``Note``), table events, a match's length, moves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardtable.cli.words import COLOURS, Speaker, plural
from cardtable.engine.game import Event


@dataclass(frozen=True)
class Note:
    """Something to tell the player.

    ``kind`` is the engine event kind for game events (``play``, ``draw``, ``catch``, ``show``,
    ``round_end``, ``match_end`` ...) with its ``facts`` (``engine.game.Event``), or
    ``refused`` (a proposal of this seat was refused), ``table`` (seats, seed, sequencer,
    takeovers: ``text`` is already in the player's words), ``chat`` (a line someone said, with
    their name: ``text``, free of control characters), ``clock``, ``info``. ``text`` is the
    engine's words for game events (used only for a kind the client has no words for).
    """

    kind: str
    seat: int | None
    text: str
    facts: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, event: Event) -> Note:
        return cls(event.kind, event.seat, event.text, dict(event.facts))


def shown(name: str) -> str:
    """A member's name as a screen may show it: without control characters (a modified member
    could put terminal escapes in its name; ``p2p.chat.printable``)."""
    from cardtable.p2p.chat import printable

    return printable(name)


def words(note: Note, me: int | None, names: Sequence[str]) -> str:
    """The note as a sentence for seat ``me``: game events from their fields (``cli.words``),
    the others as they were said."""
    if note.kind == "chat":
        return note.text
    if note.kind in ("table", "info", "refused", "clock"):
        if any(name and note.text.startswith(name + " ") for name in names):
            return note.text  # a player's name stays as they wrote it
        return note.text[:1].upper() + note.text[1:]
    return Speaker(me, names).event(note.kind, note.seat, note.facts, note.text)


PAST = {"play": "played", "call": "called SOLO", "catch": "caught", "false_catch": "tried a catch",
        "draw": "drew", "keep": "kept their card", "decline": "declined", "protect": "played a Protection",
        "swap": "swapped hands", "gift": "gave a Gift", "pass": "passed hands", "flip": "turned their hand",
        "show": "showed", "scout": "scouted"}
"""The moves another seat makes, in the past tense (a lost race's words)."""


def past_tense(note: Note) -> str:
    """What another seat did, in the past tense (for a lost race), from the event's fields."""
    if note.kind == "play" and note.facts.get("jump"):
        return "jumped in"
    if note.kind == "keep" and note.facts.get("hand"):
        return "kept their hand"
    return PAST.get(note.kind, "moved")


def table_words(kind: str, data: dict[str, Any], speak: Speaker) -> str | None:
    """Peer events about the table (not the game) in words; None for the ones not worth telling."""
    seat = data.get("seat")
    who = speak.who(seat) if isinstance(seat, int) else "a seat"
    victim = data.get("victim")
    whose = speak.who(victim, possessive=True) if isinstance(victim, int) else "a member's"
    words = {
        "seated": f"You are seated: your seat number is {seat}",
        "started": "The shuffle is agreed: the match starts",
        "takeover": f"{who} is silent: a computer player plays for now",
        "forfeit": f"{who} goes to a computer player (no seed share)",
        "left": "The table has your leave: you are out",
        "resumed": f"Resumed the table at entry {data.get('commit')}",
        "hand_open": "Your cards are in: the other machines sent you their keys",
        "bot_error": f"A computer player failed: {data.get('error')}",
        "equivocation": f"{who} sent two different histories as sequencer: every member refuses it as "
                        "sequencer from now on, and another one is chosen",
        "rewound": f"Entries from {data.get('index')} on were a false history: the table goes back and "
                   "replays the agreed one",
        "censored": f"{who} as sequencer left {whose} move out: it is voted out",
        "bad_entries": f"{who} as sequencer sent you entries that do not verify: it is voted out",
    }
    if kind == "return" and seat is not None and seat == speak.me:
        return "You are back: your seat is yours again"
    if kind == "returning" and seat is not None and seat == speak.me:
        return ("You are back: a computer player finishes this round, since another machine has seen your "
                "cards; your seat is yours again at the next deal")
    return presence_words(kind, data) or spectator_words(kind, data) or words.get(kind)


def spectator_words(kind: str, data: dict[str, Any]) -> str | None:
    """The sequencer took or dropped a spectator (``p2p/spectators.py``), by the name it gave."""
    if kind not in ("spectator", "spectator_gone"):
        return None
    verb = "is watching" if kind == "spectator" else "stopped watching"
    watching = plural(int(data.get("watching", 0)), "spectator")
    return f"{shown(str(data.get('name') or ''))} {verb} ({watching})"


def presence_words(kind: str, data: dict[str, Any]) -> str | None:
    """Who joined, left, is not answering or is back, by name (``joined``, ``leave``, ``silent``,
    ``return``, ``returning``: back, and plays from the next deal)."""
    name = shown(str(data.get("name") or "")) or f"seat {data.get('seat')}"
    said = {"joined": f"{name} joined (seat {data.get('seat')})",
            "leave": f"{name} left: a computer player plays the seat on (the round still counts) until "
                     f"{name} is back",
            "silent": f"{name} is not answering ({data.get('seconds')} s)",
            "return": f"{name} is back",
            "returning": f"{name} is back and plays from the next deal (a computer player finishes this "
                         "round)"}
    return said.get(kind)


def match_length(cfg: Mapping[str, Any]) -> str:
    """How a match of config ``cfg`` (its ``to_dict()`` form) is won and when it ends, in a few
    words (the scoring line of the table, the Options line of the lobby)."""
    if cfg.get("game") == "scout":
        return f"highest total wins after {plural(cfg['players'], 'round')}"
    if cfg.get("scoring") == "penalty":
        rule = f"penalty points: lowest total wins, ends at {cfg['threshold']} points"
    else:
        rule = f"pools of {cfg['pool']}: highest pool wins, ends below 0"
    if cfg.get("rounds"):
        rule += f" (or after {plural(cfg['rounds'], 'round')})"
    return rule


def solo_windows(obs: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The open SOLO windows of a SOLO observation (docs/rules.md 1.8.17: there may be two), first first."""
    first = obs.get("solo")
    return [] if first is None else [first, *obs.get("solo_also", [])]


def solo_move_label(key: str, obs: dict[str, Any], candidates: Sequence[Any], names: Sequence[str]) -> str:
    """Words for a first-step SOLO choice."""
    from cardtable.engine.solo.actions import Play

    seat = obs.get("seat")
    if key == "draw":
        penalty = obs.get("penalty") or 0
        return f"draw: take the penalty of {plural(penalty, 'card')}" if penalty else "draw a card"
    if key == "keep":
        return f"keep {obs.get('drawn')} (end your turn)"
    if key == "decline":
        return "decline: do not protect"
    if key == "solo":
        return "call SOLO! (late call)"
    if key.startswith("catch:"):
        t = int(key[6:])
        return f"catch seat {t} ({names[t] if t < len(names) else t}): missed SOLO call"
    if key.startswith("multi:"):
        return f"multiples: several {key[6:]}s at once"
    plays = [a for a in candidates if isinstance(a, Play) and len(a.cards) == 1 and a.card.text == key]
    react = obs.get("react")
    jump = obs.get("to_move") != seat or (react is not None and not key.startswith("prot"))
    rank = plays[0].card.rank if plays else ""
    what = {"wild": "Wild: name a colour", "wd4": "Wild Draw 4: name a colour",
            "swap": "Swap hands: choose a seat", "gift": "Gift: a seat and up to 2 cards",
            "pass": "Pass hands", "prot": "Protection", "skip": "Skip", "rev": "Reverse",
            "d2": "Draw 2"}.get(rank, "")
    text = f"{key} ({what})" if what else key
    return f"jump in with {text}" if jump and not key.startswith("prot") else f"play {text}"


RANK_WORDS = {"pass": "Pass hands", "skip": "Skip", "rev": "Reverse", "d2": "Draw 2", "prot": "Protection"}
"""The SOLO action cards a hint names (Wilds, Swap and Gift are told by what they do)."""


def move_words(action: Any, obs: dict[str, Any], names: Sequence[str]) -> str:
    """A whole move in words, as the moves list words its first step (a hint: ``play Bswap: swap
    hands with cpu 2 (seat 2)``, ``show 5-6-7 (run of 3)``)."""
    def who(t: int) -> str:
        if t == obs.get("seat"):
            return "you"
        return f"{names[t]} (seat {t})" if t < len(names) else f"seat {t}"

    if obs["game"] == "solo":
        from cardtable.engine.solo.actions import Play

        if not isinstance(action, Play):
            return solo_move_label(str(action), obs, [action], names)
        first = solo_move_label(action.card.text, obs, [action], names)
        verb = "jump in with" if first.startswith("jump in") else "play"
        text = f"{verb} {'+'.join(c.text for c in action.cards)}"
        rank = action.card.rank
        if len(action.cards) > 1:
            text += " (multiples)"
        if action.colour is not None:
            text += f", naming {COLOURS.get(action.colour, action.colour)}"
        if rank == "swap" and action.target is not None:
            text += f": swap hands with {who(action.target)}"
        elif rank == "gift" and action.target is not None:
            cards = " and ".join(c.text for c in action.gift) or "no card"
            text += f": give {who(action.target)} {cards}"
        elif rank in RANK_WORDS:
            text += f" ({RANK_WORDS[rank]})"
        return text + (" and call SOLO!" if action.call else "")
    from cardtable.engine.scout.actions import Scout, ScoutShow, Show
    from cardtable.engine.scout.cards import Card, parse_card
    from cardtable.engine.scout.state import describe_show

    hand = [parse_card(t) if t != "?" else Card(0, 0) for t in obs.get("hand", [])]
    active = [parse_card(t) for t in obs.get("active", [])]

    def scout_words(sc: Scout) -> tuple[str, list[Card]]:
        card = active[0] if sc.end == "L" else active[-1]
        card = card if card.up == sc.value else card.turned()
        side = "left" if sc.end == "L" else "right"
        return (f"scout {card} from the {side} end, into place {sc.pos}",
                hand[:sc.pos] + [card] + hand[sc.pos:])

    def show_words(sh: Show, cards: list[Card]) -> str:
        return f"show {describe_show(cards[sh.first:sh.last + 1])}"

    if isinstance(action, Show):
        return show_words(action, hand)
    if isinstance(action, Scout):
        return scout_words(action)[0]
    if isinstance(action, ScoutShow):
        words, after = scout_words(action.scout)
        return f"Scout & Show: {words}, then {show_words(action.show, after)}"
    return {"flip": "flip: turn your whole hand around", "keep": "keep your hand as dealt",
            "pass": "pass: end the round (voluntary pass)"}.get(str(action), str(action))
