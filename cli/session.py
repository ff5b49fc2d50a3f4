"""The table session (``BaseSession``: one seat's connection to a match) and ``LocalSession``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cardtable.ai.bots import Bot, make_bot
from cardtable.cli.move_builder import Builder
from cardtable.cli.player_words import Note, move_words
from cardtable.cli.seat_bots import shown_names
from cardtable.engine.errors import IllegalAction, ParseError
from cardtable.engine.match import Match

CLOCK_BOT = "heuristic"
"""The bot that moves for a player whose turn clock ran out (and plays a seat that was left)."""
HINT_BOT = "ismcts:strong"
"""What the hint key asks; the heuristic bot answers while the compiled search is missing."""


@dataclass(frozen=True)
class Hint:
    """What a strong computer player would do now (``action`` None: nothing, wait)."""

    action: str | None
    bot: str
    text: str
    move: str | None = None
    """The key of the action's first step in the moves list (``Controller.menu``)."""


class BaseSession:
    """One seat's connection to a match: the seat's view of a ``Match`` replica, hints, subscribers.

    A ``LocalSession`` plays an engine ``Match`` in this process, computer players on the other
    seats (``cardtable play --no-network``, tests); a ``NetSession`` (``cli/net_session.py``) is a
    seat at a LAN table, its match the peer's replica of the table log. Both give the seat exactly
    what it may know: ``observation()`` and ``legal()`` of its own seat.
    """

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
        """Whose machine the table waits for, once it is more than ``net_session.MACHINE_WAIT``
        seconds (None: nobody's; always None without a network)."""
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
