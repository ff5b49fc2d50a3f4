"""``--plain``: the table as lines of text, for scripts and screen readers.

Reads one action per line in the engine's text notation (``R7``, ``wild:B``, ``Rgift:2:R3,G5``,
``R7+G7+B7``, ``draw``, ``catch:3``; ``flip``, ``show:2-4``, ``scout:L:9@0`` ... see
docs/rules-notes.md) and prints what happens, one sentence a line. When the game waits for you
it prints the table, your hand and a prompt line::

    your turn (seat 1): 4 moves: R7 wild:R wild:G draw

(long lists end in ``[+N more: 'moves' lists all]``). Out-of-turn chances are announced as
``you may (seat 1): jump in R7 | catch seat 2 catch:2``. With the bell on (by default at a LAN
table) and the output a terminal, the bell rings as your turn comes. Words besides actions: ``moves``,
``view``, ``hint``, ``review`` (once a round has ended: the moves of yours in the last one that
the search rates clearly worse than another, ``cardtable review``), ``undo`` (at a ``play``
table: your last move back, the computer players' replies with it), ``rules``, ``help``, ``jump``,
``catch``, ``protect``, ``leave``; at a LAN table ``say TEXT`` and ``emote NAME`` talk to the
table (``hi``, ``gg``, ``nice``, ``wow``, ``oops``, ``thinking``), and what others say is
printed as ``NAME: text``; ``rematch`` agrees to play again once the match is over, and the host
has ``start``, ``free N`` and ``set KEY=VALUE ...`` in the lobby (``cli/table_controls.py``). Bad
input gets one line on stderr and the prompt again. Lines are queued: an action waits until the seat may make
it, so a piped script plays its moves as its turns come (each line is echoed when it is used).
End of input, once the lines before it are used, leaves the game: at a LAN table a computer
player takes the seat; a ``play`` match is kept for ``play --resume``.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections import deque
from typing import Any, TextIO

from cardtable.cli import table_controls
from cardtable.cli.controller import Controller
from cardtable.cli.rules import rules_text
from cardtable.cli.words import COLOURS
from cardtable.p2p.chat import EMOTES

SHOWN_MOVES = 12
WORDS = frozenset({"help", "?", "rules", "moves", "view", "look", "hint", "review", "undo", "leave", "quit"})
"""Words that are answered at once (in their place in the queue); anything else is an action."""
HELP = ("type an action in the notation of docs/rules-notes.md (R7, wild:B, Rswap:2, Rgift:2:R3,G5, "
        "R7+G7+B7, R7!, draw, keep, solo, catch:N, decline; flip, keep, show:I-J, scout:L:V@P, "
        "scout:L:V@P+show:I-J), "
        "or: moves, view, hint, review (your moves of the last round the search rates clearly worse), "
        "undo (at a play table: your last move back, the computer players' replies with it), "
        "rules, jump, catch, protect, leave; at a LAN table: say TEXT, emote NAME ("
        + " ".join(EMOTES) + "), rematch (once the match is over: play again, same seats); the host in "
        "the lobby: start (computer players take the free seats), free N (free seat N), set KEY=VALUE "
        "(players, cpu, a rules option; several at once: set players=3 cpu=1; set alone lists the keys)")
CONTROLS = frozenset(table_controls.WORDS)
"""Words of the host's lobby controls and the rematch (the rest of the line is their argument)."""
TALK = frozenset({"say", "emote"})
"""Words that talk to the table (the rest of the line is what is said)."""


class PlainClient:
    """Line mode over a controller: ``feed(line)`` for input, ``poll()`` to print what changed."""

    def __init__(self, controller: Controller, out: TextIO, err: TextIO, *,
                 bot_delay: float | None = 0.3, echo: bool = False) -> None:
        self.c = controller
        self.out = out
        self.err = err
        self.bot_delay = bot_delay
        self._prompted: tuple[Any, ...] | None = None
        self._viewed = -1
        self.done = False
        self.held: deque[str | None] = deque()
        self.echo = echo
        self._told_held: str | None = None
        """Print each input line as it is used (input piped from a script, not typed)."""

    # --- output ---------------------------------------------------------------------------------
    def say(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def problem(self, line: str) -> None:
        self.err.write(f"cardtable: {line}\n")
        self.err.flush()
        self._prompted = None  # prompt again

    def poll(self) -> None:
        """Step the computer players (in-process match), run the turn clock, print what is new."""
        c = self.c
        c.pace_bots(self.bot_delay)
        c.tick()
        for line in c.drain():
            self.say(line)
        self._prompt()
        if c.bell and self.out.isatty() and c.calls():  # a terminal's bell; never in a script's output
            self.out.write("\a")
            self.out.flush()

    def _prompt(self) -> None:
        c = self.c
        phase = c.session.phase()
        key = (c.session.version, phase, c.pending, c.builder is not None and id(c.builder))
        if key == self._prompted:
            return
        self._prompted = key
        if phase in ("lobby", "seeding"):
            for line in c.lobby_lines() or [c.session.status()]:
                self.say(line)
            return
        if c.pending is not None or phase != "playing":
            return
        seat = c.seat
        if c.builder is not None:
            q = c.menu()
            if q is not None:
                choices = " | ".join(f"{ch.key}: {ch.label}" for ch in q.choices)
                self.say(f"{q.prompt} (seat {seat}): {choices}")
                return
        moves = c.turn_moves()
        if moves:
            if c.session.version != self._viewed:
                self._viewed = c.session.version
                self.view()
            texts = [str(a) for a in moves]
            extra = len(texts) - SHOWN_MOVES
            more = f" [+{extra} more: 'moves' lists all]" if extra > 0 else ""
            self.say(f"your turn (seat {seat}): {len(texts)} move{'s' if len(texts) != 1 else ''}: "
                     f"{' '.join(texts[:SHOWN_MOVES])}{more}")
            return
        chances = self._chances()
        if chances:
            self.say(f"you may (seat {seat}): {' | '.join(chances)}")

    def _chances(self) -> list[str]:
        opts = self.c.options()
        out = [f"jump in {a}" for a in opts.jump]
        if opts.call is not None:
            out.append("call SOLO! solo")
        out += [f"catch seat {str(a)[6:]} {a}" for a in opts.catch]
        if opts.decline is not None:  # a Protection window that is not yet yours to answer
            out += [f"protect {a}" for a in opts.protect] + ["decline"]
        if opts.flip is not None:
            out += ["flip", "keep"]
        return out

    def view(self) -> None:
        """The table, the players and your hand, in a few lines."""
        c = self.c
        obs = c.session.observation()
        if obs is None:
            self.say(c.session.status())
            return
        rows = c.players()
        cards = ", ".join(f"{'you' if r['me'] else r['name']} {r['cards']}"
                          + (" (to move)" if r["to_move"] else "") for r in rows)
        totals = " ".join(str(r["total"]) for r in rows)
        if obs["game"] == "solo":
            colour = obs.get("colour")
            force = COLOURS[colour] + " in force" if colour else "any card fits"
            table = (f"top {obs['top'] or '(being turned)'}, {force}, "
                     f"{'clockwise' if obs['direction'] == 1 else 'reversed'}, draw pile {obs['draw_size']}")
            live = c.in_play()  # once the round is won, nothing is pending any more
            if live and obs.get("penalty"):
                table += f", penalty {obs['penalty']} pending"
            if live and isinstance(obs.get("drawn"), str):
                table += f", you drew {obs['drawn']}"
            react = obs.get("react")
            if live and react:
                table += f", Protection window ({react['kind']}) for seat {react['pending'][0]}"
            hand = " ".join(obs["hand"])
        else:
            active = obs["active"]
            table = "the table is empty"
            if active:
                table = f"active set {' '.join(active)} of seat {obs['owner']}"
            hand = " ".join(f"{i}:{t}" for i, t in enumerate(obs["hand"]))
        self.say(f"[round {obs['round'] + 1}] {table}. Cards: {cards}. Totals: {totals}.")
        self.say(f"scoring: {c.scoring_line()}")
        self.say(f"hand: {hand or '(empty)'}")

    # --- input ----------------------------------------------------------------------------------
    def feed(self, line: str | None) -> None:
        """One line of input (None: end of input, which leaves the game)."""
        c = self.c
        if line is None:
            if not c.session.is_over() and c.session.phase() not in ("left", "over"):
                c.leave()
            self.done = True
            return
        text = line.strip()
        if not text:
            self._prompted = None
            return
        word = text.lower()
        first, _, rest = text.partition(" ")
        if first.lower() in TALK:
            problem = c.talk(("/" if first.lower() == "emote" else "") + rest.strip())
            if problem:
                self.problem(problem)
        elif first.lower() in CONTROLS:
            problem = c.session.control(first.lower(), rest.strip())
            if problem:
                self.problem(problem)
        elif word in ("help", "?"):
            self.say(HELP)
        elif word == "rules":
            game = c.game
            self.say(rules_text(game).rstrip() if game else "the rules show once the cards are dealt")
        elif word == "moves":
            self.say("moves: " + " ".join(str(a) for a in c.actions()))
        elif word in ("view", "look"):
            self.view()
        elif word == "hint":
            hint = c.session.hint()
            self.say(f"hint: {hint.text}" + (f" (type {hint.action})" if hint.action else ""))
        elif word == "review":
            from cardtable.cli.review_cmd import session_review

            for review_line in session_review(c.session)():
                self.say(f"review: {review_line}")
        elif word == "undo":
            problem = c.undo()
            if problem:
                self.problem(problem)
        elif word in ("leave", "quit"):
            self.feed(None)
        elif word in ("jump", "protect", "catch"):
            problem = {"jump": c.jump_in, "protect": c.protect, "catch": c.catch}[word]()
            if problem:
                self.problem(problem)
            elif c.builder is not None:
                self._prompted = None
        elif c.builder is not None and text in _keys(c.menu()):
            c.choose(text)
        else:
            self._act(text)

    def _act(self, text: str) -> None:
        c = self.c
        c.cancel()
        legal = [str(a) for a in c.session.legal()]
        if text not in legal:
            completions = [t for t in legal if t.startswith(text + ":") or t.startswith(text + "+")]
            if completions:
                shown = " ".join(completions[:SHOWN_MOVES])
                shown += " ..." if len(completions) > SHOWN_MOVES else ""
                self.problem(f"{text} needs more: {shown}")
                return
        problem = c.submit(text)
        if problem:
            race = c.race_options()
            offered = {str(a) for a in [*race.jump, *race.catch, *race.protect, race.call, race.decline] if a}
            self.problem(c.lost_race(problem) if text in offered else problem)

    # --- running --------------------------------------------------------------------------------
    async def run(self, lines: asyncio.Queue[str | None], *, linger: float = 0.0, tick: float = 0.1) -> None:
        """Until the match is over (then ``linger`` seconds more, longer while someone at the table
        asks for a rematch: a new match goes on), you leave, or input ends.

        Lines are queued and used in order: an action waits until the seat may make it (its
        turn, or a legal out-of-turn move), so a piped script plays its moves as its turns come.
        """
        c = self.c
        clock = asyncio.get_running_loop().time
        over_at: float | None = None
        self.poll()
        while not self.done:
            try:
                line = await asyncio.wait_for(lines.get(), tick)
            except TimeoutError:
                pass
            else:
                self.held.append(line)
                while not lines.empty():
                    self.held.append(lines.get_nowait())
            self.use_held()
            self.poll()
            if c.session.phase() == "left":
                return
            if not c.session.is_over():
                over_at = None
                continue
            if over_at is None:
                over_at = clock()
                again = "; 'rematch' plays again with the same seats" if c.session.rematches() else ""
                self.say("the match is over" + again)
            if clock() >= over_at + linger and not c.session.rematch_wanted():
                break
        if over_at is not None:  # stay a little: the others may not know yet that the end is committed
            await asyncio.sleep(max(0.0, over_at + linger - clock()))
            self.poll()

    def use_held(self) -> None:
        """Feed the queued lines, in order, while the first one may be used now."""
        while self.held and not self.done:
            self.poll()
            if not self.ready(self.held[0]):
                first = self.held[0]
                if not self.echo and first is not None and self._told_held is not first:
                    self._told_held = first  # typed ahead: say it waits (a script's lines just wait)
                    self.say(f"(held until your seat may act: {first.strip()})")
                return
            line = self.held.popleft()
            if self.echo and line is not None:
                self.say(line.rstrip("\n"))
            self.feed(line)

    def ready(self, line: str | None) -> bool:
        """Whether ``line`` may be used now: words at once, an action when the seat may make it.

        End of input waits behind the lines before it (it leaves the table)."""
        c = self.c
        if line is None:
            return True
        text = line.strip()
        phase = c.session.phase()
        if text.lower() == "hint" and phase in ("lobby", "seeding", "playing"):
            return phase == "playing" and c.pending is None and bool(c.actions())  # a hint for a move
        if text.lower() == "undo" and c.session.undoable():  # once the computer players have replied
            return c.pending is None and (c.waiting_for_me() or phase != "playing")
        if text.lower() == "review" and phase in ("lobby", "seeding", "playing"):
            return bool(c.session.round_scores())  # a script's review waits for the round to end
        if text.partition(" ")[0].lower() in TALK | CONTROLS:
            return True  # talk and the table's controls go at once, whatever the game waits for
        if not text or text.lower() in WORDS or (c.builder is not None and text in _keys(c.menu())):
            return True
        if phase in ("over", "left"):
            return True  # feed says why nothing can be played
        if phase != "playing" or c.pending is not None:
            return False
        if c.waiting_for_me():
            return True
        legal = {str(a) for a in c.session.legal()}
        return text in legal or text.lower() in ("jump", "protect", "catch") and bool(legal)

def _keys(question: Any) -> set[str]:
    return set() if question is None else {ch.key for ch in question.choices}


def stdin_queue(stream: TextIO | None = None) -> asyncio.Queue[str | None]:
    """A queue fed with the lines of ``stream`` (stdin) by a reader thread; None at the end."""
    stream = stream or sys.stdin
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def reader() -> None:
        while True:
            try:
                line = stream.readline()
            except (OSError, ValueError):
                line = ""
            try:
                loop.call_soon_threadsafe(queue.put_nowait, line or None)
            except RuntimeError:  # the loop is closed: nobody listens any more
                return
            if not line:
                return

    threading.Thread(target=reader, name="cardtable-stdin", daemon=True).start()
    return queue
