"""The terminal client's controller: one seat's moves, options, log and turn clock over a session."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardtable.ai.bots import Bot, make_bot
from cardtable.cli.move_builder import Builder, Question
from cardtable.cli.player_words import PAST, Note, match_length, past_tense, solo_windows, words
from cardtable.cli.session import CLOCK_BOT, BaseSession, LocalSession
from cardtable.cli.words import plural

RACE_WINDOW = 3.0
"""Seconds after another seat's action during which a failed out-of-turn move is told as a lost race."""
PENDING_TIMEOUT = 10.0
"""Seconds after which an unanswered proposal no longer blocks the turn clock."""


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
    """One seat's client logic over a session, for the Textual table (``cli/tui.py``) and the
    ``--plain`` line mode (``cli/plain.py``); nothing here knows Textual or stdin.

    It splits the legal actions into the moves the game waits for (``turn_moves``) and the
    out-of-turn options (``options``: SOLO jump-in, late call, catch, Protection or decline; SCOUT
    whole-hand turn), builds actions step by step (``Builder``), submits them, tells what happened
    (``log``) and runs the turn clock: when the game has waited for this seat longer than the clock
    allows, the heuristic bot's move is played for it.
    """

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
