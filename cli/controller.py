"""The terminal client's controller: one seat's view, its moves, building actions, the turn clock.

Nothing here knows about Textual or stdin: ``cli/tui.py`` (the Textual table) and
``cli/plain.py`` (the ``--plain`` line mode) both drive a ``Controller`` over a ``Session``.

A **session** is the seat's connection to a match:

- ``LocalSession``: an engine ``Match`` in this process, computer players on the other seats
  (for tests, and ``cardtable play --no-network``);
- ``NetSession``: a ``p2p.peer.Peer`` on a ``p2p.node.Node`` (``cardtable play``, ``host``,
  ``join``): the match is the peer's replica of the table log; proposals go to the sequencer
  and come back as committed log entries, or as a refusal when someone else was first.

Both give the seat exactly what it may know: ``observation()`` and ``legal()`` of its own seat.

The **controller** splits the legal actions into the moves the game waits for (``turn_moves``)
and the out-of-turn options (``options``: SOLO jump-in, late SOLO call, catch, Protection or
decline; SCOUT whole-hand turn), builds actions step by step (``Builder``: a card, then the
Wild's colour, the Swap or Gift target, the two Gift cards; multiples; a SCOUT span, a scout's
end, orientation and insertion point; Scout & Show), submits them, tells what happened in words
(``log``), and runs the turn clock: when the game has waited for this seat longer than the
clock allows, the heuristic bot's move is played for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardtable.ai.bots import Bot, make_bot
from cardtable.cli.move_builder import Builder, Question
from cardtable.cli.player_words import (
    PAST,
    Note,
    match_length,
    move_words,
    past_tense,
    presence_words,
    shown,
    solo_windows,
    table_words,
    words,
)
from cardtable.cli.words import Speaker, plural
from cardtable.engine.errors import IllegalAction, ParseError
from cardtable.engine.game import Event
from cardtable.engine.match import Match

CLOCK_BOT = "heuristic"
"""The bot that moves for a player whose turn clock ran out (and plays a seat that was left)."""
HINT_BOT = "ismcts:strong"
"""What the hint key asks; the heuristic bot answers while the compiled search is missing."""
COME_BACK = ("a computer player plays your seat on, and the round counts as played (leaving never voids it), "
             "until you join again (the same join, while the match runs; you play from the next deal)")
"""What becomes of a LAN seat its player leaves."""
MACHINE_WAIT = 2.0
"""Seconds a hidden round may wait for a machine before the status line says whose."""
PROTOCOL_NOTES = frozenset({"accused"})
"""Table events about the protocol, not the game: in the log and under ``-v``, not on the screen."""
RACE_WINDOW = 3.0
"""Seconds after another seat's action during which a failed out-of-turn move is told as a lost race."""
PENDING_TIMEOUT = 10.0
"""Seconds after which an unanswered proposal no longer blocks the turn clock."""


# --- what a session reports ------------------------------------------------------------------------


@dataclass(frozen=True)
class Hint:
    """What a strong computer player would do now (``action`` None: nothing, wait)."""

    action: str | None
    bot: str
    text: str
    move: str | None = None
    """The key of the action's first step in the moves list (``Controller.menu``)."""


class BaseSession:
    """What both sessions share: the seat's view of a ``Match`` replica, hints, subscribers."""

    def __init__(self) -> None:
        self._seat: int | None = None
        self.version = 0
        self._subscribers: list[Callable[[Note], None]] = []
        self._backlog: list[Note] = []
        self._hint_bot: Bot | None = None
        self.hint_bot_name = ""
        self._hint_names: list[str] = []

    # --- to implement ---------------------------------------------------------------------------
    @property
    def seat(self) -> int | None:
        """This session's seat (None until seated)."""
        return self._seat

    def match(self) -> Match | None:
        """The match replica (None before the seed agreement ends)."""
        raise NotImplementedError

    def phase(self) -> str:
        """``lobby``, ``seeding``, ``playing``, ``over`` or ``left``."""
        raise NotImplementedError

    def names(self) -> list[str]:
        raise NotImplementedError

    def controllers(self) -> list[str]:
        """Per seat: ``human``, ``cpu`` (a computer player) or ``bot`` (a human's seat taken over)."""
        raise NotImplementedError

    def propose(self, text: str) -> str | None:
        """Submit ``text`` for this seat: None if sent, else a one-line reason it is not legal now."""
        raise NotImplementedError

    def leave(self) -> None:
        """Give the seat to a computer player for good."""
        raise NotImplementedError

    def talks(self) -> bool:
        """Whether others can hear this seat (a LAN table)."""
        return False

    def talk(self, text: str) -> str | None:
        """Say ``text`` to the table (``/NAME``: an emote): None if sent, else a one-line reason.
        The line shows once the table has it (a ``chat`` note), as everyone's does."""
        return "nobody hears you: talk is for LAN tables"

    def status(self) -> str:
        """A few words on the table before the match (lobby, seed agreement)."""
        return self.phase()

    def control(self, word: str, rest: str) -> str | None:
        """A host's lobby control or a rematch (``cli/table_controls.py``): None if sent."""
        return "only at a LAN table"

    def hosts(self) -> bool:
        """Whether this seat's lobby controls apply now (the host, in the lobby)."""
        return False

    def rematches(self) -> bool:
        """Whether the match is over and this seat may still agree to a rematch."""
        return False

    def undoable(self) -> bool:
        """Whether ``undo`` may take a move back now: at a ``play`` table against computer
        players, once you have made a move in this match (never at a LAN table)."""
        return False

    def undo(self) -> str | None:
        """Take your last move back, and the computer players' replies with it: the match is
        rebuilt from its seed and its moves up to before that move (the engine is deterministic)
        and the computer players, seeded, play on. None if done, else why not (one line)."""
        return "undo is for a play table against computer players"

    def table_settings(self) -> tuple[Any, int] | None:
        """The host's, in the lobby: the table's config and its computer seats now (the options
        form); None where this seat sets no options."""
        return None

    def rematch_wanted(self) -> bool:
        """Whether someone at the table agreed to a rematch of the match just over."""
        return False

    def options(self) -> str:
        """The table's options in a few words ("" where the table has none to show)."""
        return ""

    def table_name(self) -> str:
        """The table's name as others see it in ``cardtable tables`` ("" for a private table)."""
        return ""

    def sealed(self) -> bool:
        """Whether the table has a passphrase (joiners must give it too)."""
        return False

    def after_leaving(self) -> str:
        """What becomes of the match when you leave, in a few words."""
        return "a computer player takes your seat"

    def machine_wait(self) -> str | None:
        """Whose machine the table waits for, once it is more than ``MACHINE_WAIT`` seconds (None:
        nobody's; always None without a network)."""
        return None

    def seat_holders(self) -> list[tuple[str, str]]:
        """Per seat, before and during the match: who holds it and how (``you``, ``player``,
        ``free``, ``computer``)."""
        me = self.seat
        rows = zip(self.names(), self.controllers(), strict=False)
        return [("you", "you") if s == me else (name, "computer" if ctrl == "cpu" else "player")
                for s, (name, ctrl) in enumerate(rows)]

    # --- the seat's view ------------------------------------------------------------------------
    def subscribe(self, callback: Callable[[Note], None]) -> None:
        """Call ``callback`` with every note from now on (the first subscriber also gets the notes
        that came before it, so nothing said while the client was starting is lost)."""
        self._subscribers.append(callback)
        backlog, self._backlog = self._backlog, []
        for note in backlog:
            callback(note)

    def _emit(self, note: Note) -> None:
        if not self._subscribers:
            self._backlog.append(note)
        for callback in list(self._subscribers):
            callback(note)

    def observation(self) -> dict[str, Any] | None:
        m = self.match()
        if m is None or self.seat is None:
            return None
        return m.observation(self.seat)

    def legal(self) -> list[Any]:
        m = self.match()
        if m is None or self.seat is None or self.phase() == "left":
            return []
        try:
            return list(m.legal_actions(self.seat))
        except IllegalAction:  # hidden hands: a card of this seat's hand is not open here yet
            return []

    def to_move(self) -> int | None:
        m = self.match()
        return None if m is None else m.to_move()

    def is_over(self) -> bool:
        m = self.match()
        return m is not None and m.is_over()

    def totals(self) -> list[int]:
        m = self.match()
        return [] if m is None else m.scores()

    def round_scores(self) -> list[list[int]]:
        m = self.match()
        return [] if m is None else [list(r) for r in m.round_scores]

    def winners(self) -> list[int]:
        m = self.match()
        return [] if m is None else m.winners()

    def digest(self) -> str | None:
        m = self.match()
        return None if m is None else m.digest()

    def explain(self, text: str) -> str | None:
        """None if ``text`` is a legal action of this seat now, else why not (one line)."""
        m = self.match()
        if m is None or self.seat is None:
            return "the match has not started yet"
        if self.phase() == "left":
            return "you have left the table"
        if m.is_over():
            return "the match is over"
        try:
            action = m.parse_action(text)
        except ParseError as err:
            return str(err)
        if str(action) in {str(a) for a in m.legal_actions(self.seat)}:
            return None
        try:  # the engine says why, on a copy
            Match.from_snapshot(m.snapshot()).apply(self.seat, action)
        except (IllegalAction, ParseError) as err:
            return str(err) or "not legal now"
        except Exception:  # noqa: BLE001 - a reason is a nicety; never let it crash the client
            return f"{text} is not legal now"
        return f"{text} is not legal now"

    def moves(self) -> list[tuple[int, str]] | None:
        """Every move of the match from its deal, ``(seat, action)`` in order, to replay it from its
        seed (a review); None where the seed alone does not deal it (hidden hands) or the session
        did not see it from the start."""
        return None

    def hint(self) -> Hint:
        """What ``ismcts:strong`` would do now (the heuristic bot without the compiled search)."""
        inputs = self.hint_inputs()
        return Hint(None, "", "nothing to do now") if inputs is None else self.run_hint(*inputs)

    def hint_inputs(self) -> tuple[dict[str, Any], list[Any], bool] | None:
        """What the hint bot reads (taken on the event loop; ``run_hint`` may then run in a thread)."""
        obs, legal = self.observation(), self.legal()
        if obs is None or not legal:
            return None
        self._hint_names = self.names()
        m = self.match()
        assert m is not None and self.seat is not None
        if self._hint_bot is None:
            try:
                self._hint_bot, self.hint_bot_name = make_bot(HINT_BOT, m.seed, self.seat), HINT_BOT
            except ParseError:  # the compiled search is missing
                self._hint_bot, self.hint_bot_name = make_bot(CLOCK_BOT, m.seed, self.seat), CLOCK_BOT
        return obs, legal, m.to_move() == self.seat

    def run_hint(self, obs: dict[str, Any], legal: list[Any], waiting: bool) -> Hint:
        """Ask the hint bot (safe to run in a worker thread: it reads only ``obs`` and ``legal``).

        If the search fails, the heuristic bot answers and the hint says so: a hint never crashes
        the client."""
        bot, name, note = self._hint_bot, self.hint_bot_name, ""
        assert bot is not None
        try:
            action = bot.choose(obs, legal) if waiting else bot.react(obs, legal)
        except Exception as err:  # noqa: BLE001 - e.g. a position the search cannot sample
            if name == CLOCK_BOT:
                return Hint(None, name, f"no hint: {name} failed ({err})")
            fallback = make_bot(CLOCK_BOT, b"hint", int(obs.get("seat", 0)))
            action = fallback.choose(obs, legal) if waiting else fallback.react(obs, legal)
            name, note = CLOCK_BOT, f" ({self.hint_bot_name} failed: {err})"
        if action is None:
            return Hint(None, name, f"{name} would wait{note}")
        try:
            words = move_words(action, obs, self._hint_names)
            move: str | None = Builder(obs["game"], [action], obs, self._hint_names).dims[0].keys(action)[0]
        except Exception:  # noqa: BLE001 - words are a nicety: the notation then
            words, move = f"play {action}", None
        return Hint(str(action), name, f"{name} would {words}{note}", move)


# --- an in-process match ---------------------------------------------------------------------------


class LocalSession(BaseSession):
    """A match in this process, computer players on every other seat.

    Bots act only when asked: ``step()`` lets one computer player act (the first, in the headless
    driver's order after the seat the game waits for, that wants to; each is asked once per
    position), ``run_bots()`` steps until they are all waiting for this seat or the match ends.
    A UI calls ``step`` on a timer, so that the player has time to jump in or catch.
    """

    def __init__(self, match: Match, seat: int = 0, bots: str | Sequence[str] = "heuristic",
                 names: Sequence[str] | None = None) -> None:
        super().__init__()
        n = match.config.players
        if not 0 <= seat < n:
            raise ValueError(f"there is no seat {seat} at a {n}-player table")
        self._match = match
        self._seat = seat
        specs = [bots] * n if isinstance(bots, str) else list(bots)
        self._specs = specs
        self.bots: dict[int, Bot] = {s: make_bot(specs[s], match.seed, s) for s in range(n) if s != seat}
        self._names = list(names) if names else [("you" if s == seat else f"cpu {s}") for s in range(n)]
        if isinstance(bots, str):
            from cardtable.cli.seat_bots import shown_names

            self._names = shown_names(self._names, bots)
        self._left = False
        self._asked = -1
        self.after_move: list[Callable[[], None]] = []
        """Called after each move, once all its notes are out (``cardtable learn``'s tips)."""
        fresh = match.digest() == Match(match.config, match.seed).digest()
        self._moves: list[tuple[int, str]] | None = [] if fresh else None

    def match(self) -> Match:
        return self._match

    def moves(self) -> list[tuple[int, str]] | None:
        return None if self._moves is None else list(self._moves)

    def phase(self) -> str:
        if self._left:
            return "left"
        return "over" if self._match.is_over() else "playing"

    def names(self) -> list[str]:
        return list(self._names)

    def controllers(self) -> list[str]:
        return ["cpu" if s in self.bots and s != self.seat else "bot" if s in self.bots else "human"
                for s in range(self._match.config.players)]

    def propose(self, text: str) -> str | None:
        why = self.explain(text.strip())
        if why is not None:
            return why
        assert self.seat is not None
        self._apply(self.seat, self._match.parse_action(text.strip()))
        return None

    def _apply(self, seat: int, action: Any) -> None:
        events = self._match.apply(seat, action)
        if self._moves is not None:
            self._moves.append((seat, str(action)))
        self.version += 1
        for e in events:
            self._emit(Note.of(e))
        for hook in self.after_move:
            hook()

    def step(self) -> bool:
        """Let one computer player act, if one wants to now; True if one did."""
        m = self._match
        if m.is_over() or self._asked == self.version:
            return False
        self._asked = self.version
        waiting = m.to_move()
        if waiting is None:
            return False
        actors = set(m.actors())
        n = m.config.players
        for k in range(1, n + 1):
            s = (waiting + k) % n
            if s not in self.bots or s not in actors:
                continue
            legal = m.legal_actions(s)
            obs = m.observation(s)
            bot = self.bots[s]
            action = bot.choose(obs, legal) if s == waiting else bot.react(obs, legal)
            if action is not None:
                self._apply(s, action)
                return True
        return False

    def run_bots(self, limit: int = 10_000) -> int:
        """Step until no computer player wants to act; how many actions they made."""
        done = 0
        while done < limit and self.step():
            done += 1
        return done

    def undoable(self) -> bool:
        return not self._left and not self._match.is_over() and self._moves is not None \
            and any(s == self.seat for s, _ in self._moves)

    def undo(self) -> str | None:
        if self._left:
            return "you have left the table"
        if self._match.is_over():
            return "the match is over"
        if not self.undoable() or self._moves is None:
            return "nothing to undo: you have made no move in this match"
        last = max(i for i, (s, _) in enumerate(self._moves) if s == self.seat)
        taken = self._moves[last][1]
        m = Match(self._match.config, self._match.seed)
        for seat, text in self._moves[:last]:
            m.apply(seat, m.parse_action(text))
        self._match, self._moves = m, self._moves[:last]
        self.bots = {s: make_bot(self._specs[s], m.seed, s) for s in self.bots}
        self._asked = -1
        self.version += 1
        self._emit(Note("table", self.seat, f"You take back your move {taken} (and what followed it)"))
        return None

    def leave(self) -> None:
        """A computer player (the heuristic bot) takes this seat; the match goes on without you."""
        if self._left or self.seat is None:
            return
        self._left = True
        self.bots[self.seat] = make_bot(CLOCK_BOT, self._match.seed, self.seat)
        self._asked = -1
        self._emit(Note("table", self.seat,
                        f"You leave the table; a computer player ({CLOCK_BOT}) takes over"))


# --- a seat at a p2p table ---------------------------------------------------------------------------

class NetSession(BaseSession):
    """This peer's seat at a table, over ``p2p.node.Node`` (asyncio) and ``p2p.peer.Peer``.

    The node's ``on_event`` is taken over: peer events become notes. Game events arrive as the
    entries are committed (the words of the engine, as ``Applied.events`` holds them); a proposal
    that the rules refused when it was applied (someone else jumped in first) comes back as a
    ``refused`` note. The seat's view is the peer's replica of the match.
    """

    RETOLD = 40
    """Game events a resumed seat is told again: the newest of the round it resumes in."""

    def __init__(self, node: Any, peer: Any, keep: bool = False) -> None:
        super().__init__()
        self.node = node
        self.peer = peer
        self.keep = keep  # a private table (``play``): leaving keeps the match to resume, no leave entry
        self.kept = False
        self._silent: set[int] = set()  # seats told as not answering, not yet heard again
        node.on_event = self._on_peer_event
        self._retell()

    def digest(self) -> str | None:
        """The table's digest (with hidden hands, over what every machine sees)."""
        return self.peer.table.digest() if self.peer.table.match is not None else None

    def _retell(self) -> None:
        """A peer resumed from its store applied its committed entries quietly: tell the round
        so far again (its newest events), so that the log of a resumed client is not empty."""
        from cardtable.p2p.table import TableState

        committed = self.peer.log[:self.peer.commit_index]
        if self.peer.table.match is None or not committed:
            return
        table = TableState()
        notes: list[Note] = []
        for entry in committed:
            rounds = table.match.round_no if table.match is not None else -1
            applied = table.apply(entry)
            if table.match is not None and table.match.round_no != rounds:
                notes = []  # a new round: what came before is in the round summaries
            if applied.ok:
                notes += [Note.of(e) for e in applied.events]
        for note in notes[-self.RETOLD:]:
            self._emit(note)

    @property
    def seat(self) -> int | None:
        return self.peer.my_seat  # type: ignore[no-any-return]

    def match(self) -> Match | None:
        return self.peer.table.match  # type: ignore[no-any-return]

    def observation(self) -> dict[str, Any] | None:
        """The seat's view; a spectator's (no seat): the public one (``cli/public_view.py``)."""
        m = self.match()
        if m is None or self.seat is not None:
            return super().observation()
        from cardtable.cli.public_view import public_observation

        return public_observation(m)

    def phase(self) -> str:
        return "left" if self.kept or self.peer.left or self.peer.leaving else str(self.peer.table.phase)

    def names(self) -> list[str]:
        from cardtable.cli.seat_bots import shown_names

        return shown_names([shown(s.name) or f"seat {i}" for i, s in enumerate(self.peer.table.seats)],
                           str(self.peer.bots_spec))

    def controllers(self) -> list[str]:
        return [str(s.controller) for s in self.peer.table.seats]

    def moves(self) -> list[tuple[int, str]] | None:
        """The committed moves of the match being played (replayed from the peer's log; after a
        rematch, the new match's only); None where the machines dealt the cards together (hidden
        hands): the seed alone does not deal them."""
        from cardtable.cli.log_frames import match_moves

        if self.peer.table.match is None or self.peer.table.match.dealt_by_table:
            return None
        return match_moves(self.peer.log[:self.peer.commit_index])

    def status(self) -> str:
        t = self.peer.table
        phase = self.phase()
        if phase == "lobby":
            taken = sum(1 for o in t.roster.owners if o)
            return f"waiting for players: {taken} of {len(t.roster.owners)} seats taken"
        if phase == "seeding":
            return "agreeing on the shuffle (commit and reveal)"
        if t.table_id is None:
            return "joining the table"
        return phase

    def table_name(self) -> str:
        return shown(str(self.peer.table.name or ""))

    def machine_wait(self) -> str | None:
        wait = self.peer.waiting_for()
        if wait is None or wait[1] < MACHINE_WAIT:
            return None
        key, seconds = wait
        seat = self.peer.table.seat_of(key)
        name = self.names()[seat] if seat is not None else f"a member ({key.hex()[:8]})"
        return f"waiting for {name}'s machine: {seconds:.0f} s"

    def sealed(self) -> bool:
        return self.peer.pass_key is not None

    def after_leaving(self) -> str:
        if self.keep:
            return "the match is kept for cardtable play --resume"
        if self.peer.watching:
            return "you stop watching; the match goes on"
        return COME_BACK

    def seat_holders(self) -> list[tuple[str, str]]:
        me = self.seat
        rows = []
        names = self.names()
        for s, seat in enumerate(self.peer.table.seats):
            if s == me:
                rows.append(("you", "you"))
            elif seat.controller == "cpu":
                rows.append((names[s], "computer"))
            elif seat.owner is None:
                rows.append(("free", "free"))
            else:
                rows.append((shown(seat.name) or f"seat {s}", "player"))
        return rows

    def propose(self, text: str) -> str | None:
        text = text.strip()
        why = self.explain(text)
        if why is not None:
            return why
        self.node.propose(text)
        return None

    def leave(self) -> None:
        if self.keep and not self.is_over():
            if not self.kept:
                self.kept = True
                self._emit(Note("table", self.seat, "You leave the table; the match is kept where it stands: "
                                                    "cardtable play --resume takes it up again"))
        elif not self.peer.leaving and not self.peer.left:
            self._emit(Note("table", self.seat, f"You leave the table: {self.after_leaving()}"))
            self.node.leave()

    def talks(self) -> bool:
        return not self.keep and not self.peer.watching  # a spectator is no member: the table hears it not

    def talk(self, text: str) -> str | None:
        text = text.strip()
        if not self.talks():
            return super().talk(text)
        if text.startswith("/"):
            self.node.emote(text[1:].strip().lower())
        else:
            self.node.say(text)
        return None  # a line the table would refuse comes back as a refused event, with its reason

    def control(self, word: str, rest: str) -> str | None:
        from cardtable.cli.table_controls import control

        return super().control(word, rest) if self.keep else control(self.node, self.peer, word, rest)

    def hosts(self) -> bool:
        from cardtable.cli.table_controls import hosting

        return not self.keep and hosting(self.peer)

    def rematches(self) -> bool:
        t = self.peer.table
        return not self.keep and not self.peer.left and t.phase == "over" and self.peer.key not in t.rematch \
            and t.seat_of(self.peer.key) in t.seeding_seats()

    def options(self) -> str:
        t = self.peer.table
        return "" if t.config is None else f"{t.config.describe()} · {match_length(t.config.to_dict())}"

    def table_settings(self) -> tuple[Any, int] | None:
        t = self.peer.table
        if not self.hosts() or t.config is None:
            return None
        return t.config, sum(1 for s in t.seats if s.controller == "cpu")

    def rematch_wanted(self) -> bool:
        return not self.keep and not self.peer.left and self.peer.table.phase == "over" \
            and bool(self.peer.table.rematch)

    def _on_peer_event(self, event: Any) -> None:
        from cardtable.p2p import chat

        kind, data = event.kind, event.data
        talk = data.get("kind") in chat.KINDS  # talk moves no position: no new version, no prompt
        if kind == "applied":
            self.version += not talk
            if data.get("ok"):
                for event in data.get("events", []):
                    if event.get("kind") not in PROTOCOL_NOTES:
                        self._emit(Note.of(Event.from_dict(event)))
                self._presence(data)
            return
        if kind == "refused" and data.get("protocol"):
            return  # a hidden-hands step of this machine's, not a move: the log and -v have it
        if kind == "refused":
            reason = str(data.get("reason") or "refused")
            note = Note("info", None, f"not said: {reason}") if talk else Note("refused", self.seat, reason)
            self._emit(note)
            return
        if kind == "chat":
            self._emit(Note("chat", None, str(data.get("line"))))
            return
        if kind == "cards_open":  # more of this seat's cards are open here: the view changes
            self.version += 1
            return
        if kind == "freed" and self.peer.evicted:
            self._emit(Note("table", None, "The host freed your seat: you are no longer at the table"))
            return
        seat = data.get("seat")
        if kind == "silent" and isinstance(seat, int):
            self._silent.add(seat)
        elif kind in ("return", "returning", "takeover", "leave", "forfeit") and isinstance(seat, int):
            self._silent.discard(seat)  # told otherwise
        text = table_words(kind, data, Speaker(self.seat, self.names()))
        if text is not None:
            self.version += 1
            self._emit(Note("table", None, text))

    def _presence(self, data: dict[str, Any]) -> None:
        """Another member's entry in the log, as presence: a join before the match is "NAME joined"
        (a join during the match is a member back at its seat: its ``return`` tells it); the
        first entry of a seat told as not answering, "NAME is back"."""
        seat = data.get("seat")
        if not isinstance(seat, int) or seat == self.seat or seat >= len(self.peer.table.seats):
            return
        name = self.names()[seat]
        if data.get("kind") == "join" and self.peer.table.match is None:
            said = presence_words("joined", {"name": name, "seat": seat})
        elif seat in self._silent and data.get("kind") not in ("return", "leave", "join"):  # told by theirs
            self._silent.discard(seat)
            said = presence_words("return", {"name": name, "seat": seat})
        else:
            return
        self._emit(Note("table", None, str(said)))


# --- the controller ---------------------------------------------------------------------------------


@dataclass
class Options:
    """The out-of-turn options of the seat now (each list empty / None when not legal)."""

    jump: list[Any] = field(default_factory=list)
    call: Any = None  # the late call (window mode)
    arm: bool = False  # a SOLO call can be made with a play available now
    catch: list[Any] = field(default_factory=list)  # genuine catches: a seat with a missed call
    protect: list[Any] = field(default_factory=list)
    decline: Any = None
    flip: Any = None
    keep: Any = None


class Controller:
    """One seat's client logic over a session (see the module docstring)."""

    def __init__(self, session: BaseSession, *, turn_clock: float | None = None,
                 clock: Callable[[], float] = time.monotonic, log_size: int = 500,
                 bell: bool | None = None) -> None:
        self.session = session
        self.turn_clock = turn_clock
        self.bell = session.talks() if bell is None else bell
        """Call the player when the game begins to wait for them (``calls``): by default at a LAN
        table (where people keep you waiting), not against computer players."""
        self._waited = False
        self.clock = clock
        self.call_armed = False
        self.builder: Builder | None = None
        self.log: list[str] = []
        self.fresh: list[str] = []
        self.message = ""
        self.summary = ""
        self.log_size = log_size
        self.pending: str | None = None
        self.pending_at = 0.0
        self.clock_start: float | None = None
        self._last_bot = 0.0
        self._clock_bot: Bot | None = None
        self._last_other: tuple[Note, float, Options | None] | None = None
        self._listeners: list[Callable[[], None]] = []
        self._cache: dict[str, Any] = {}
        self._cache_key: tuple[Any, ...] = ()
        session.subscribe(self._on_note)

    def _cached(self, name: str, make: Callable[[], Any]) -> Any:
        """``make()``, computed once per position (the session's version) and seat state."""
        key = (self.session.version, self.session.phase(), self.session.seat, self.call_armed)
        if key != self._cache_key:
            self._cache_key, self._cache = key, {}
        if name not in self._cache:
            self._cache[name] = make()
        return self._cache[name]

    # --- listening ------------------------------------------------------------------------------
    def on_change(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` after every note (the UI refreshes)."""
        self._listeners.append(callback)

    def _on_note(self, note: Note) -> None:
        me = self.session.seat
        mine = note.seat == me and note.kind not in ("table", "info")
        if mine or note.kind == "refused":  # the proposal in flight has landed (or bounced)
            self.pending = None
            self.clock_start = None
        if note.kind == "refused":
            self.message = self.lost_race(f"refused: {note.text}")
            self._say(self.message[:1].upper() + self.message[1:] + ".")
        else:
            if note.seat is not None and note.seat != me and note.kind not in ("table", "info"):
                self._drop_stale_builder()
                if note.kind in PAST:  # the options shown before it are what a late key press meant
                    self._last_other = (note, self.clock(), self._cache.get("options"))
            elif mine and note.kind in PAST:  # your own move: a key pressed now means the options of now
                self._last_other = None
            self._say(words(note, me, self.session.names()))
        if note.kind in ("round_end", "match_end"):  # no race is left to lose in a round that is over
            self._last_other = None
        if note.kind == "round_end":
            self.summary = self.round_summary()
            self._say(self.summary)
        elif note.kind == "match_end":
            self.summary = self.match_summary()
            self._say(self.summary)
        elif note.kind == "new_match":  # a rematch: the last match's summary is over
            self.summary = ""
        for callback in list(self._listeners):
            callback()

    def lost_race(self, reason: str) -> str:
        """``reason`` for an out-of-turn move that failed, or, when another seat acted in the last
        ``RACE_WINDOW`` seconds, the race it lost: ``too late: cpu 2 jumped in first``."""
        last = self._last_other
        if last is None or self.clock() - last[1] > RACE_WINDOW:
            return reason
        note = last[0]
        names = self.session.names()
        if note.seat == self.seat:
            return reason
        who = names[note.seat] if note.seat is not None and note.seat < len(names) else f"seat {note.seat}"
        return f"too late: {who} {past_tense(note)} first"

    def race_options(self) -> Options:
        """The out-of-turn options shown just before another seat's action of the last
        ``RACE_WINDOW`` seconds took them away (their keys still answer, with ``lost_race``)."""
        last = self._last_other
        if last is None or last[2] is None or self.clock() - last[1] > RACE_WINDOW:
            return Options()
        return last[2]

    def _say(self, line: str) -> None:
        self.log.append(line)
        self.fresh.append(line)
        del self.log[: max(0, len(self.log) - self.log_size)]

    def drain(self) -> list[str]:
        """Log lines not yet taken (for line-mode output)."""
        out, self.fresh = self.fresh, []
        return out

    def _drop_stale_builder(self) -> None:
        """A half-built action that is no longer legal is dropped (the table moved on)."""
        if self.builder is None:
            return
        legal = {str(a) for a in self.session.legal()}
        if not any(str(a) in legal for a in self.builder.candidates):
            self.builder = None
            self.message = "the table moved on: that move is gone"

    # --- the view -------------------------------------------------------------------------------
    @property
    def seat(self) -> int | None:
        return self.session.seat

    @property
    def game(self) -> str:
        obs = self.session.observation()
        return str(obs["game"]) if obs else ""

    def waiting_for_me(self) -> bool:
        """Whether the game waits for this seat (its turn, its Protection, its hand turn)."""
        seat = self.seat
        return seat is not None and self.session.to_move() == seat and bool(self.session.legal()) \
            and self.session.phase() == "playing"

    def in_play(self) -> bool:
        """Whether a round is being played (not yet won, the match not over): only then are its
        pending penalty, the card drawn and its open windows worth showing."""
        obs = self.session.observation()
        return obs is not None and obs.get("winner") is None and not self.session.is_over()

    def calls(self) -> bool:
        """Whether the game has begun to wait for this seat (``waiting_for_me``) since the last ask:
        the moment to call the player (the bell and the window title, when ``bell`` is on)."""
        waiting = self.waiting_for_me()
        began, self._waited = waiting and not self._waited, waiting
        return began

    def actions(self) -> list[Any]:
        """The legal actions worth offering: without catches at seats with no missed call."""
        return list(self._cached("actions", self._actions))

    def _actions(self) -> list[Any]:
        obs = self.session.observation()
        legal = self.session.legal()
        if obs is None or obs["game"] != "solo":
            return legal
        genuine = {f"catch:{w['seat']}" for w in solo_windows(obs)
                   if not w["called"] and w["seat"] != self.seat}
        return [a for a in legal if not str(a).startswith("catch:") or str(a) in genuine]

    def playable_cards(self) -> set[str]:
        """The SOLO cards of the hand that some move worth offering plays now (in turn or not)."""
        from cardtable.engine.solo.actions import Play

        return {c.text for a in self.actions() if isinstance(a, Play) for c in a.cards}

    def turn_moves(self) -> list[Any]:
        """The moves the game waits for from this seat (empty when it is not waiting for it)."""
        if not self.waiting_for_me():
            return []
        obs = self.session.observation()
        assert obs is not None
        opts = self.options()
        out_of_turn = {str(a) for a in opts.jump} | {"solo"} | {str(a) for a in self.actions()
                                                                if str(a).startswith("catch:")}
        if obs["game"] == "scout":
            return self.actions()
        return [a for a in self.actions() if str(a).rstrip("!") not in out_of_turn]

    def options(self) -> Options:
        """The out-of-turn options now (and whether a SOLO call can go with a play)."""
        return self._cached("options", self._options)  # type: ignore[no-any-return]

    def _options(self) -> Options:
        obs = self.session.observation()
        opts = Options()
        if obs is None:
            return opts
        legal = self.actions()
        if obs["game"] == "scout":
            for a in legal:
                if str(a) == "flip":
                    opts.flip = a
                elif str(a) == "keep":
                    opts.keep = a
            return opts
        from cardtable.engine.solo.actions import Catch, Play

        seat = self.seat
        react = obs.get("react")
        my_turn = obs.get("to_move") == seat and react is None
        for a in legal:
            if isinstance(a, Play):
                if a.card.rank == "prot":
                    if not a.call:
                        opts.protect.append(a)
                elif not my_turn and not a.call:
                    opts.jump.append(a)
                if a.call:
                    opts.arm = True
            elif isinstance(a, Catch):
                opts.catch.append(a)
            elif str(a) == "solo":
                opts.call = a
            elif str(a) == "decline":
                opts.decline = a
        return opts

    def players(self) -> list[dict[str, Any]]:
        """One row per seat: name, hand size, total, and flags (to move, you, who plays it)."""
        obs = self.session.observation()
        names = self.session.names()
        ctrl = self.session.controllers()
        if obs is None:
            return [{"seat": s, "name": n, "cards": None, "total": None, "to_move": False,
                     "me": s == self.seat, "controller": ctrl[s] if s < len(ctrl) else ""}
                    for s, n in enumerate(names)]
        to_move = obs.get("to_move", obs.get("turn"))
        rows = []
        for s in range(obs["players"]):
            row: dict[str, Any] = {"seat": s, "name": names[s] if s < len(names) else f"seat {s}",
                                   "cards": obs["hand_sizes"][s], "total": obs["totals"][s],
                                   "to_move": s == to_move, "me": s == self.seat,
                                   "controller": ctrl[s] if s < len(ctrl) else ""}
            if obs["game"] == "scout":
                row["captured"] = obs["captured"][s]
                row["chips"] = obs["chips"][s]
                row["flipped"] = obs["flipped"][s]
            else:
                row["solo"] = next(("called" if w["called"] else "missed" for w in solo_windows(obs)
                                    if w["seat"] == s), None)
            rows.append(row)
        return rows

    def status_line(self) -> str:
        """Whose turn, in words (with the turn clock)."""
        phase = self.session.phase()
        if phase == "left":
            return "You left the table; a computer player has your seat."
        obs = self.session.observation()
        if obs is None:
            return self.session.status().capitalize()
        if self.session.is_over():
            return "The match is over."
        wait = self.session.machine_wait()
        if wait is not None:
            return wait[:1].upper() + wait[1:] + "."
        names = self.session.names()
        to_move = self.session.to_move()
        if to_move is None:
            return "Waiting."
        if self.waiting_for_me():
            what = "Your turn"
            react = obs.get("react")
            if obs["game"] == "solo" and react is not None:
                what = f"Protect yourself from the {react['kind']} or decline"
            elif obs["game"] == "scout" and obs["phase"] == "turn_choice":
                what = "Flip your whole hand or keep it"
            left = self.time_left()
            return what + (f" ({left:.0f} s left)" if left is not None else "") + "."
        who = names[to_move] if to_move < len(names) else f"seat {to_move}"
        return f"Waiting for {who} (seat {to_move})."

    def time_left(self, now: float | None = None) -> float | None:
        if self.turn_clock is None or self.clock_start is None:
            return None
        now = self.clock() if now is None else now
        return max(0.0, self.turn_clock - (now - self.clock_start))

    def lobby_lines(self) -> list[str]:
        """Before the match: the table's name, how others join, and who holds each seat."""
        session = self.session
        if session.phase() not in ("lobby", "seeding"):
            return []
        lines = []
        name = session.table_name()
        if name:
            secret = " --passphrase PASSPHRASE" if session.sealed() else ""
            lines += [f"Table {name!r}", f"Others join with:  cardtable join {name}{secret}"]
        if session.options():
            lines.append(f"Options: {session.options()}")
        holders = session.seat_holders()
        free = sum(1 for _, how in holders if how == "free")
        for s, (who, how) in enumerate(holders):
            what = {"you": "you", "free": "free: waiting for a player",
                    "computer": f"{who} (computer player)", "player": who}[how]
            lines.append(f"seat {s}: {what}")
        if free:
            verb = "has" if free == 1 else "have"
            lines.append(f"The match starts when {plural(free, 'more player')} {verb} joined.")
            if session.hosts():
                lines.append("You host: start now (computer players take the free seats), free a seat "
                             "or change the options (start, free N, set KEY=VALUE; set alone lists them).")
        else:
            lines.append(session.status().capitalize() + ".")
        return lines

    def freeable(self) -> list[tuple[int, str]]:
        """The seats another player holds (the host may free them in the lobby): seat, name."""
        return [(s, who) for s, (who, how) in enumerate(self.session.seat_holders()) if how == "player"]

    def scoring_line(self) -> str:
        """How the match is scored and who leads, in a few words (always on screen)."""
        obs = self.session.observation()
        if obs is None:
            return ""
        cfg = obs["config"]
        totals = list(obs["totals"])
        lowest = obs["game"] == "solo" and cfg.get("scoring") == "penalty"
        rule = match_length(cfg)
        best = min(totals) if lowest else max(totals)
        if not totals or all(t == best for t in totals):
            return f"{rule} · all level"
        names = self.session.names()
        leaders = ", ".join("you" if s == self.seat else (names[s] if s < len(names) else f"seat {s}")
                            for s, t in enumerate(totals) if t == best)
        return f"{rule} · leading: {leaders} ({best})"

    def round_summary(self) -> str:
        rounds = self.session.round_scores()
        if not rounds:
            return ""
        names = self.session.names()
        last, totals = rounds[-1], self.session.totals()
        parts = [f"{'you' if s == self.seat else names[s]} {d:+d} (total {totals[s]})"
                 for s, d in enumerate(last)]
        return f"Round {len(rounds)} summary: " + ", ".join(parts)

    def match_summary(self) -> str:
        names = self.session.names()
        totals = self.session.totals()
        winners = self.session.winners()
        who = ", ".join("you" if s == self.seat else f"{names[s]} (seat {s})" for s in winners)
        ranking = sorted(range(len(totals)), key=lambda s: totals[s], reverse=True)
        obs = self.session.observation()
        if obs and obs["game"] == "solo" and obs["config"].get("scoring") == "penalty":
            ranking.reverse()
        table = ", ".join(f"{'you' if s == self.seat else names[s]} {totals[s]}" for s in ranking)
        played = plural(len(self.session.round_scores()), "round")
        return f"Match over after {played}. Won by {who}. Totals: {table}."

    # --- acting ----------------------------------------------------------------------------------
    def talk(self, text: str) -> str | None:
        """Say ``text`` to the table (``/gg``: an emote); None if sent, else a one-line reason."""
        why = self.session.talk(text)
        if why is not None:
            self.message = why
        return why

    def submit(self, text: str) -> str | None:
        """Propose ``text`` (the engine's notation); None if sent, else a one-line reason."""
        text = text.strip()
        if self.pending is not None and self.clock() - self.pending_at < PENDING_TIMEOUT:
            return f"wait: {self.pending} is on its way to the table"
        self.pending, self.pending_at = text, self.clock()
        why = self.session.propose(text)
        if why is not None:
            self.pending = None
            self.message = why
            return why
        self.builder = None
        if text != "solo" and not text.startswith("catch:"):
            self.call_armed = False  # an armed call goes with the next play only
        self.message = ""
        return None

    def start(self, actions: Sequence[Any] | None = None) -> Question | None:
        """Begin building a move from ``actions`` (default: every action worth offering)."""
        obs = self.session.observation()
        if obs is None:
            return None
        self.builder = Builder(obs["game"], list(self.actions() if actions is None else actions), obs,
                               self.session.names(), self.call_armed)
        return self.advance()

    def question(self) -> Question | None:
        return None if self.builder is None else self.builder.question()

    def menu(self) -> Question | None:
        """What to offer now: the open question of a move being built, else every move (the
        first step of each legal action worth offering); None when there is nothing to do."""
        if self.builder is not None:
            q = self.builder.question()
            if q is not None:
                return q
        obs = self.session.observation()
        acts = self.actions()
        if obs is None or not acts:
            return None
        return Builder(obs["game"], acts, obs, self.session.names(), self.call_armed).top()

    def choose(self, key: str) -> Question | None:
        """Pick ``key`` from ``menu()``; submits the action once it is determined."""
        if self.builder is not None and self.builder.question() is not None:
            self.builder.answer(key)
            return self.advance()
        obs = self.session.observation()
        if obs is None:
            raise ValueError("the match has not started yet")
        self.builder = Builder(obs["game"], self.actions(), obs, self.session.names(), self.call_armed)
        try:
            self.builder.choose_move(key)
        except ValueError:
            self.builder = None
            raise
        return self.advance()

    def answer(self, key: str) -> Question | None:
        """Answer the current question; submits the action once it is determined."""
        if self.builder is None:
            self.start()
        assert self.builder is not None
        self.builder.answer(key)
        return self.advance()

    def advance(self) -> Question | None:
        """The next question, or submit the action if there is none (None then)."""
        b = self.builder
        if b is None:
            return None
        b.call = self.call_armed
        q = b.question()
        if q is not None:
            return q
        action = b.result()
        self.builder = None
        if action is not None:
            self.submit(str(action))
        return None

    def cancel(self) -> None:
        self.builder = None

    # hot keys -----------------------------------------------------------------------------------
    def jump_in(self) -> str | None:
        opts = self.options()
        if not opts.jump:
            return self.lost_race("no jump-in now")
        return self._play_group(opts.jump)

    def protect(self) -> str | None:
        opts = self.options()
        if not opts.protect:
            return self.lost_race("no Protection to play now")
        return self._play_group(opts.protect)

    def _play_group(self, actions: list[Any]) -> str | None:
        """Play from ``actions`` (with their call variants): at once if there is one choice, else ask."""
        texts = {str(a) for a in actions}
        legal = self.actions()
        group = [a for a in legal if str(a) in texts or str(a).rstrip("!") in texts]
        q = self.start(group)
        return None if q is None else q.prompt

    def call_solo(self) -> str | None:
        """The SOLO! key: a late call if one is legal, else arm (or disarm) a call with the next play."""
        opts = self.options()
        if opts.call is not None:
            return self.submit(str(opts.call))
        if opts.arm or self.call_armed:
            self.call_armed = not self.call_armed
            if self.builder is not None:
                self.builder.call = self.call_armed
            self.message = ("SOLO! will be called with your play" if self.call_armed
                            else "SOLO! call withdrawn")
            return None
        return self.lost_race("no SOLO call to make now")

    def catch(self) -> str | None:
        opts = self.options()
        if not opts.catch:
            return self.lost_race("nobody to catch now")
        return self.submit(str(opts.catch[0]))

    def decline(self) -> str | None:
        opts = self.options()
        if opts.decline is None:
            return self.lost_race("no Protection window for you")
        return self.submit(str(opts.decline))

    def flip(self, flip: bool = True) -> str | None:
        opts = self.options()
        action = opts.flip if flip else opts.keep
        if action is None:
            return "the whole-hand turn is over"
        return self.submit(str(action))

    def leave(self) -> None:
        self.builder = None
        self.session.leave()

    def undo(self) -> str | None:
        """Take your last move back (``BaseSession.undo``: at a play table only); None if done."""
        if self.pending is not None:
            return f"wait: {self.pending} is on its way to the table"
        problem = self.session.undo()
        if problem is None:
            self.builder, self.call_armed, self.clock_start, self._last_other = None, False, None, None
            self.summary = ""
        return problem

    # the turn clock -----------------------------------------------------------------------------
    def pace_bots(self, delay: float | None) -> None:
        """Let an in-process match's computer players make one move per ``delay`` seconds."""
        session = self.session
        if not isinstance(session, LocalSession) or delay is None:
            return
        now = self.clock()
        if now - self._last_bot >= delay and session.step():
            self._last_bot = now

    def tick(self, now: float | None = None) -> str | None:
        """Run the turn clock; returns the action played for this seat if time ran out."""
        if self.turn_clock is None:
            return None
        now = self.clock() if now is None else now
        if not self.waiting_for_me():
            self.clock_start = None
            return None
        if self.pending is not None and now - self.pending_at < PENDING_TIMEOUT:
            return None
        if self.clock_start is None:
            self.clock_start = now
            return None
        if now - self.clock_start < self.turn_clock:
            return None
        obs, legal = self.session.observation(), self.session.legal()
        m = self.session.match()
        assert obs is not None and m is not None and self.seat is not None
        if self._clock_bot is None:
            self._clock_bot = make_bot(CLOCK_BOT, m.seed, self.seat)
        action = str(self._clock_bot.choose(obs, legal))
        self.builder = None
        self._say(f"Time is up: the computer plays {action} for you.")
        self.clock_start = None
        if self.submit(action) is not None:
            return None
        return action
