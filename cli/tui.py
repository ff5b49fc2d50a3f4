"""The Textual table: one seat's view of a SOLO or SCOUT match, driven by ``cli.controller``.

Layout: the title; the players (hand sizes, totals, whose turn) beside the table (SOLO: the
discard pile's top, the colour in force, the direction, penalties and open windows; SCOUT: the
active set and its owner); your hand in colour; a status line (whose turn, the turn clock,
messages); the moves you may make now (a list; choosing one asks for the Wild's colour, the
target, the Gift cards, the multiples, the SCOUT span or the scout's end, value and insertion
point, one list at a time; Esc goes back) beside the scrolling log; round and match summaries;
the footer with the hot keys that are legal now (jump in, SOLO!, catch, Protection, decline,
flip/keep, hint, review, undo, leave). Hot keys that are not legal are hidden (``check_action``),
the moment they stop being legal (checked at every tick too: a lost race's key leaves by itself).
A line too wide for its pane goes on under itself, broken between phrases and cards, never
inside one (``fold``, ``fit``), so the table reads at 80x24. With the bell on
(``Controller.bell``: by default at a LAN table) the terminal bell rings when the game begins
to wait for you, and the window title says ``▶ your turn`` while it waits.
At a ``play`` table (never at a LAN one) ``u`` takes your last move back, the computer players'
replies with it (``BaseSession.undo``), once you have made a move in the match.
``?``/F1 (and the command palette) open the rules of the game and the keys, ``v`` (once a round
has ended) the review of your moves in the last one (``cli/help_screen.py``). At a LAN table
``t`` opens a line to talk to the table (Enter sends, Esc goes back; ``/gg`` and the like are
emotes); what everyone says shows in the log as ``NAME: text``.
Before the match, the table panel is the lobby: the table's name, how others join, the options,
the seats; the host alone has ``n`` (start now: computer players take the free seats), ``x``
(a small list of the seats others hold: Enter frees the one chosen) and ``o`` (the options
form: players, computer seats, how long the match runs, the rules options) there, and once a
match is over ``r`` agrees to a rematch (``cli/table_controls.py``, ``cli/lobby_forms.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from rich.markup import escape
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList, RichLog, Static
from textual.widgets.option_list import Option, OptionDoesNotExist

from cardtable.cli.cards import alarm, colour_in_force, scout_card, solo_card, top_card
from cardtable.cli.controller import Controller
from cardtable.cli.move_builder import Question
from cardtable.cli.player_words import solo_windows
from cardtable.cli.words import COLOURS, plural
from cardtable.p2p.chat import EMOTES, MAX_TEXT

SEP = " · "
"""Between the phrases of a line of the players and the table."""
HOT_ACTIONS = ("jump", "solo", "catch", "protect", "decline", "flip", "keep", "hint", "review", "talk",
               "start_now", "free_seat", "options", "rematch", "cancel_move", "undo")
"""The actions whose keys the footer shows only while they are legal (``check_action``)."""
YOUR_TURN = "▶ your turn — cardtable"
"""The window title while the game waits for you (with the bell on)."""


def fold(phrases: list[str], width: int, indent: str = "    ") -> list[str]:
    """Markup phrases joined by ``SEP`` on lines of ``width`` cells, broken only between two
    phrases (the next line indented); ``width`` 0: one line."""
    lines: list[str] = []
    line, used = "", 0
    for phrase in phrases:
        cells = Text.from_markup(phrase).cell_len
        if not line:
            line, used = phrase, cells
        elif width <= 0 or used + len(SEP) + cells <= width:
            line, used = line + SEP + phrase, used + len(SEP) + cells
        else:
            lines.append(line)
            line, used = indent + phrase, len(indent) + cells
    return [*lines, line]


def fit(cards: list[str], width: int, under: Callable[[int, int], str] | None = None) -> list[str]:
    """Card markups on lines of ``width`` cells, a space apart, never one cut in two (``width``
    0: one line); ``under(first, count)``: a line under each, of the cards ``first`` on."""
    lines: list[str] = []
    first, used = 0, 0
    for i, card in enumerate(cards):
        cells = Text.from_markup(card).cell_len
        if i > first and width > 0 and used + 1 + cells > width:
            lines += [" ".join(cards[first:i]), *([under(first, i - first)] if under else [])]
            first, used = i, 0
        used += cells + (i > first)
    if cards:
        lines += [" ".join(cards[first:]), *([under(first, len(cards) - first)] if under else [])]
    return lines


class Fitted(Static):
    """A Static whose markup is made for its width (``show``), and made again at every width."""

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.make: Callable[[int], str] | None = None

    def show(self, make: Callable[[int], str]) -> None:
        self.make = make
        self.update(make(self.content_size.width))

    def on_resize(self, event: events.Resize) -> None:
        if self.make is not None:
            self.update(self.make(self.content_size.width))


def folded(rows: list[list[str]]) -> Callable[[int], str]:
    """Lines of phrases for ``Fitted.show`` (``fold``)."""
    return lambda width: "\n".join(line for row in rows for line in fold(row, width))


class TableApp(App[str | None]):
    """The table for one seat. ``bot_delay``: seconds between computer moves of a LocalSession
    (None: the computer players move only when the test or caller steps them)."""

    TITLE = "cardtable"
    CSS = """
    #top { height: auto; }
    #players { width: 3fr; border: round $accent; padding: 0 1; height: auto; }
    #table { width: 2fr; border: round $accent; padding: 0 1; height: auto; }
    #hand { border: round $success; padding: 0 1; height: auto; }
    #status { padding: 0 1; height: auto; background: $boost; }
    #main { height: 1fr; }
    #moves { width: 2fr; border: round $primary; }
    #log { width: 3fr; border: round $secondary; }
    #summary { padding: 0 1; height: auto; color: $warning; }
    #scoring { padding: 0 1; height: auto; color: $text-muted; }
    #talk { height: 3; border: round $accent; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "jump", "Jump in"),
        Binding("s", "solo", "SOLO!"),
        Binding("c", "catch", "Catch"),
        Binding("p", "protect", "Protection"),
        Binding("d", "decline", "Decline"),
        Binding("f", "flip", "Flip hand"),
        Binding("k", "keep", "Keep hand"),
        Binding("h", "hint", "Hint"),
        Binding("v", "review", "Review"),
        Binding("u", "undo", "Undo"),
        Binding("t", "talk", "Talk"),
        Binding("n", "start_now", "Start now"),
        Binding("x", "free_seat", "Free a seat"),
        Binding("o", "options", "Options"),
        Binding("r", "rematch", "Rematch"),
        Binding("question_mark,f1", "rules", "Rules & keys", key_display="?"),
        Binding("escape", "cancel_move", "Back"),
        Binding("q", "leave", "Leave"),
    ]

    def __init__(self, controller: Controller, *, bot_delay: float | None = 0.8, tick: float = 0.2) -> None:
        super().__init__()
        self.controller = controller
        self.bot_delay = bot_delay
        self.tick_every = tick
        self._menu_key: tuple[Any, ...] = ()
        self._leave_asked = 0.0
        self._seen_version = -1
        self.hint_text = ""
        self._status_text = ""
        self._keys: tuple[bool | None, ...] = ()
        self._window_title: str | None = None

    # --- layout ---------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield Static(id="scoring")
        with Horizontal(id="top"):
            yield Fitted(id="players")
            yield Fitted(id="table")
        yield Fitted(id="hand")
        yield Static(id="status")
        with Horizontal(id="main"):
            yield OptionList(id="moves")
            yield RichLog(id="log", wrap=True, markup=True, min_width=20)
        yield Static(id="summary")
        yield Input(id="talk", max_length=MAX_TEXT, select_on_focus=False,
                    placeholder="say something · Enter: send · Esc: back · emotes: "
                    + " ".join("/" + e for e in EMOTES))
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#moves", OptionList).border_title = "Moves"
        self.query_one("#log", RichLog).border_title = "What happened"
        self.query_one("#players", Static).border_title = "Players"
        self.query_one("#table", Static).border_title = "Table"
        self.query_one("#hand", Static).border_title = "Your hand"
        talk = self.query_one("#talk", Input)
        talk.border_title = "Talk to the table"
        talk.display = False
        self.controller.on_change(self._changed)
        self.set_interval(self.tick_every, self._tick)
        self.query_one("#moves", OptionList).focus()
        self.refresh_view()

    def _changed(self) -> None:
        self.call_later(self.refresh_view)

    def _tick(self) -> None:
        c = self.controller
        session = c.session
        c.pace_bots(self.bot_delay)
        c.tick()
        if not self._table_shown():
            return
        if session.version != self._seen_version:
            self.refresh_view()
        else:
            self._render_status()
            if self._legal_keys() != self._keys:  # e.g. a lost race's keys, once its moment is over
                self.refresh_bindings()
            self._call_player()

    def _legal_keys(self) -> tuple[bool | None, ...]:
        return tuple(self.check_action(action, ()) for action in HOT_ACTIONS)

    def refresh_bindings(self) -> None:
        """Show the hot keys legal now in the footer (and remember which they are)."""
        self._keys = self._legal_keys()
        super().refresh_bindings()

    def _call_player(self) -> None:
        """With the bell on: ring it when the game begins to wait for you (``Controller.calls``),
        and say so in the window title while it waits."""
        c = self.controller
        if not c.bell:
            return
        if c.calls():
            self.bell()
        title = YOUR_TURN if c.waiting_for_me() else self.TITLE
        if title != self._window_title:
            if self._window_title is None:
                self._terminal("\x1b[22;0t")  # keep the terminal's own title, given back on exit
            self._window_title = title
            self._terminal(f"\x1b]2;{title}\x1b\\")

    def _terminal(self, code: str) -> None:
        """Write a control sequence to the terminal (as ``App.bell`` does; not headless)."""
        if not self.is_headless and self._driver is not None:
            self._driver.write(code)

    def on_unmount(self) -> None:
        if self._window_title is not None:
            self._terminal("\x1b[23;0t")  # the terminal's title again

    # --- drawing --------------------------------------------------------------------------------
    def _table_shown(self) -> bool:
        """Whether the table's widgets are there to draw on: not once the app is closing, when its
        timer may still fire."""
        return bool(self.query("#talk"))

    def refresh_view(self) -> None:
        if not self._table_shown():
            return
        c = self.controller
        self._seen_version = c.session.version
        obs = c.session.observation()
        self._render_title(obs)
        self.query_one("#scoring", Static).update(escape(c.scoring_line()))
        self._render_players()
        self._render_table(obs)
        self._render_hand(obs)
        self._render_status()
        self._render_menu()
        self._render_log()
        self.refresh_bindings()
        self._call_player()

    def _render_log(self) -> None:
        """What happened since the last refresh, and the match's summary line."""
        log = self.query_one("#log", RichLog)
        for line in self.controller.drain():
            log.write(escape(line))
        summary = self.query_one("#summary", Static)
        summary.update(escape(self.controller.summary))
        summary.display = bool(self.controller.summary)  # no empty line under the table meanwhile

    def _render_title(self, obs: dict[str, Any] | None) -> None:
        c = self.controller
        if obs is None:
            text = f"cardtable · {c.session.status()}"
        else:
            cfg = obs["config"]
            game = "SOLO " + cfg.get("edition", "") if obs["game"] == "solo" else "SCOUT"
            text = (f"cardtable · {game}, {obs['players']} players · round {obs['round'] + 1}"
                    + (f" · you are seat {c.seat}" if c.seat is not None else " · watching"))
        self.query_one("#title", Static).update(f"[b]{escape(text)}[/b]")

    def _render_players(self) -> None:
        """A line a player: who (the first phrase), then their cards, points and marks."""
        rows = []
        for row in self.controller.players():
            mark = "▶" if row["to_move"] else " "
            who = "you" if row["me"] else row["name"]
            tag = "" if row["controller"] in ("human", "") or row["me"] else f", {row['controller']}"
            if row["me"] and row["controller"] == "bot":
                tag = ", a computer plays for you"
            parts = [] if row["cards"] is None else [plural(row["cards"], "card"), f"{row['total']} pts"]
            if row.get("solo") == "called":
                parts.append("[b]SOLO![/b]")
            elif row.get("solo") == "missed":
                parts.append(alarm("no SOLO call!"))
            if "chips" in row:
                parts += [f"{row['captured']} captured", plural(row["chips"], "chip")]
                if row["flipped"] is None:
                    parts.append("[dim]deciding[/]")
            label = f"{mark} [b]{escape(who)}[/b] [dim](seat {row['seat']}{tag})[/]"
            rows.append([label + (": " + parts[0] if parts else ""), *parts[1:]])
        self.query_one("#players", Fitted).show(folded(rows or [["no seats yet"]]))

    def _render_table(self, obs: dict[str, Any] | None) -> None:
        c = self.controller
        names = c.session.names()
        widget = self.query_one("#table", Fitted)
        if obs is None:
            lobby = c.lobby_lines() or [c.session.status()]
            widget.border_title = "Lobby"
            widget.show(folded([[escape(line)] for line in lobby]))
            self.query_one("#players", Static).display = False  # the lobby lists the seats
            return
        widget.border_title = "Table"
        self.query_one("#players", Static).display = True
        live = c.in_play()  # once the round is won, nothing is pending any more
        if obs["game"] == "solo":
            colour = obs.get("colour")
            top = top_card(obs["top"]) if obs["top"] else "(the dealer is turning the first card)"
            rows = [[f"top {top}", colour_in_force(colour, COLOURS)],
                    [f"direction {'→ clockwise' if obs['direction'] == 1 else '← reversed'}",
                     f"draw pile {obs['draw_size']}"]]
            if live and obs.get("penalty"):
                rows.append([f"[b]penalty pending: {plural(obs['penalty'], 'card')}[/b]"])
            if live and obs.get("drawn") and isinstance(obs["drawn"], str):
                rows.append([f"you drew {solo_card(obs['drawn'])}: play it or keep it"])
            react = obs.get("react")
            if live and react:
                rows.append([f"Protection window: {react['kind']} by {escape(names[react['by']])}",
                             f"waiting for seat {react['pending'][0]}"])
            for solo in solo_windows(obs) if live else []:
                state = "called SOLO!" if solo["called"] else alarm("has not called SOLO")
                rows.append([f"{escape(names[solo['seat']])} (seat {solo['seat']}) {state}"])
        else:
            active = obs["active"]
            if active:
                owner = obs["owner"]
                cards = " ".join(scout_card(t) for t in active)
                rows = [[f"active set: {cards}", f"owned by {escape(names[owner])} (seat {owner})"]]
            else:
                rows = [["the table is empty: show anything"]]
            if obs["phase"] == "turn_choice":
                rows.append(["every player may turn their whole hand around first"])
        widget.show(folded(rows))

    def _render_hand(self, obs: dict[str, Any] | None) -> None:
        """Your cards, a line of them as wide as the pane (SCOUT's with their places under them)."""
        widget = self.query_one("#hand", Fitted)
        if obs is None or self.controller.seat is None:
            text = "" if obs is None else "(you are watching: no seat, no hand)"
            widget.show(lambda width: text)
        elif obs["game"] == "solo":
            playable = self.controller.playable_cards()
            cards = [solo_card(t, t in playable) for t in obs["hand"]]
            widget.show(lambda width: "\n".join(fit(cards, width)) or "(empty)")
        else:
            cards = [scout_card(t) for t in obs["hand"]]

            def places(first: int, count: int) -> str:
                return "[dim]" + " ".join(f"{i:^5}" for i in range(first, first + count)) + "[/]"

            widget.show(lambda width: "\n".join(fit(cards, width, places)) or "(empty)")

    def _render_status(self) -> None:
        c = self.controller
        parts = [c.status_line()]
        if c.call_armed:
            parts.append("[b]SOLO! armed[/b]")
        if c.message:
            parts.append(escape(c.message))
        if self.hint_text:
            parts.append(f"[i]hint: {escape(self.hint_text)}[/i]")
        text = "  ·  ".join(parts)
        if text != self._status_text:
            self._status_text = text
            self.query_one("#status", Static).update(text)

    def _render_menu(self) -> None:
        c = self.controller
        menu = c.menu()
        key = (c.session.version, c.builder is not None and id(c.builder),
               None if menu is None else (menu.kind, menu.choices))
        if key == self._menu_key:
            return
        self._menu_key = key
        moves = self.query_one("#moves", OptionList)
        moves.clear_options()
        if menu is None:
            moves.border_title = "Moves (none now)"
            return
        moves.border_title = escape(menu.prompt) + ("  (Esc: back)" if c.builder is not None else "")
        moves.add_options([Option(escape(ch.label), id=ch.key) for ch in menu.choices])
        moves.highlighted = 0

    # --- input ----------------------------------------------------------------------------------
    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        key = event.option.id
        if key is None:
            return
        self.hint_text = ""
        try:
            self.controller.choose(key)
        except ValueError as err:  # the table moved on between drawing and choosing
            self.controller.message = self.controller.lost_race(str(err))
        self.refresh_view()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        c = self.controller
        if action in ("jump", "solo", "catch", "protect", "decline", "flip", "keep"):
            # legal now, or legal a moment ago: a key pressed as the race was lost is told so
            return any(_offers(opts, action, c.call_armed) for opts in (c.options(), c.race_options()))
        if action == "hint":
            return bool(c.actions())
        if action == "review":
            return bool(c.session.round_scores())
        if action == "cancel_move":
            return c.builder is not None or self._talking()
        if action == "talk":
            return c.session.talks() and not self._talking()
        if action in ("start_now", "free_seat", "options"):  # the host's, in the lobby only
            return c.session.hosts() and not self._talking() and (action != "free_seat" or bool(c.freeable()))
        if action == "rematch":
            return c.session.rematches()
        if action == "undo":  # a play table, once you have made a move in this match
            return c.session.undoable() and c.pending is None
        return True

    def _after(self, problem: str | None) -> None:
        if problem:
            self.controller.message = problem
        self.hint_text = ""
        self.refresh_view()

    def action_jump(self) -> None:
        self._after(self.controller.jump_in())

    def action_solo(self) -> None:
        self._after(self.controller.call_solo())

    def action_catch(self) -> None:
        self._after(self.controller.catch())

    def action_protect(self) -> None:
        self._after(self.controller.protect())

    def action_decline(self) -> None:
        self._after(self.controller.decline())

    def action_flip(self) -> None:
        self._after(self.controller.flip(True))

    def action_keep(self) -> None:
        self._after(self.controller.flip(False))

    def action_undo(self) -> None:
        self._after(self.controller.undo())

    def action_cancel_move(self) -> None:
        if self._talking():
            self._close_talk()
            return
        self.controller.cancel()
        self.refresh_view()

    # --- talk -----------------------------------------------------------------------------------
    def _talking(self) -> bool:
        return bool(self.query_one("#talk", Input).display)

    def action_talk(self) -> None:
        """Open the line to talk to the table."""
        talk = self.query_one("#talk", Input)
        talk.display = True
        talk.focus()
        self.refresh_bindings()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        self._close_talk()
        if text:
            self._after(self.controller.talk(text))

    # --- the host's lobby controls and the rematch (cli/table_controls.py, cli/lobby_forms.py) --
    def action_start_now(self) -> None:
        self._after(self.controller.session.control("start", ""))

    def action_rematch(self) -> None:
        self._after(self.controller.session.control("rematch", ""))

    def action_free_seat(self) -> None:
        """Ask which seat to free (the seats others hold), then free it."""
        from cardtable.cli.lobby_forms import FreeSeatForm

        seats = self.controller.freeable()
        if not seats:
            self._after("no other player holds a seat: there is none to free")
            return

        def chosen(seat: int | None) -> None:
            if seat is not None:
                self._after(self.controller.session.control("free", str(seat)))

        self.push_screen(FreeSeatForm(seats), chosen)

    def action_options(self) -> None:
        """The options form; what changed goes to the table as one ``set``."""
        from cardtable.cli.lobby_forms import OptionsForm

        now = self.controller.session.table_settings()
        if now is None:
            self._after("only the host sets the options, in the lobby")
            return

        def chosen(text: str | None) -> None:
            if text:
                self._after(self.controller.session.control("set", text))

        self.push_screen(OptionsForm(*now), chosen)

    def _close_talk(self) -> None:
        talk = self.query_one("#talk", Input)
        talk.value = ""
        talk.display = False
        self.query_one("#moves", OptionList).focus()
        self.refresh_bindings()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The command palette: the rules and keys, a hint, then Textual's own entries."""
        yield SystemCommand("Rules and keys", "The rules of the game being played, and the keys (? or F1)",
                            self.action_rules)
        yield SystemCommand("Hint", "What the search would do now (h)", self.action_hint)
        yield from super().get_system_commands(screen)

    def action_rules(self) -> None:
        """Open the rules of the game being played and the keys (Esc goes back)."""
        from cardtable.cli.help_screen import HelpScreen

        self.push_screen(HelpScreen(self.controller.game))

    def action_review(self) -> None:
        """Review your moves of the last finished round (in a worker: the search takes a moment)."""
        from cardtable.cli.review_cmd import session_review

        self.controller.message = "reviewing your last round..."
        self._render_status()
        review = session_review(self.controller.session)
        self.run_worker(lambda: self.call_from_thread(self._show_review, review()), thread=True)

    def _show_review(self, lines: list[str]) -> None:
        from cardtable.cli.help_screen import ReviewScreen

        self.controller.message = ""
        self._render_status()
        self.push_screen(ReviewScreen(lines))

    def action_hint(self) -> None:
        inputs = self.controller.session.hint_inputs()
        if inputs is None:
            self.hint_text = "nothing to do now"
            self._render_status()
            return
        self.hint_text = "thinking..."
        self._render_status()
        self.run_worker(lambda: self._hint_done(self.controller.session.run_hint(*inputs)), thread=True)

    def _hint_done(self, hint: Any) -> None:
        self.call_from_thread(self._show_hint, hint.text, hint.move)

    def _show_hint(self, text: str, move: str | None = None) -> None:
        """Say the hint in the status line and put the moves list's cursor on its move."""
        self.hint_text = text
        self._render_status()
        moves = self.query_one("#moves", OptionList)
        if move is not None and self.controller.builder is None:
            try:
                moves.highlighted = moves.get_option_index(move)
            except OptionDoesNotExist:  # the table moved on: the move is no longer listed
                pass

    def action_leave(self) -> None:
        c = self.controller
        phase = c.session.phase()
        if phase in ("over", "left") or c.session.is_over():
            self.exit(c.session.digest())
            return
        now = c.clock()
        if now - self._leave_asked > 5.0:
            self._leave_asked = now
            c.message = f"press q again to leave the table: {c.session.after_leaving()}"
            self._render_status()
            return
        c.leave()
        self.exit(None)


def _offers(opts: Any, action: str, armed: bool) -> bool:
    """Whether the out-of-turn options ``opts`` offer the hot key's ``action``."""
    return {
        "jump": bool(opts.jump), "solo": opts.call is not None or opts.arm or armed,
        "catch": bool(opts.catch), "protect": bool(opts.protect), "decline": opts.decline is not None,
        "flip": opts.flip is not None, "keep": opts.keep is not None,
    }[action]


def menu_labels(question: Question | None) -> list[str]:
    """The labels of a menu, in order (for tests and captures)."""
    return [] if question is None else [c.label for c in question.choices]
