"""``cardtable replay LOG --view``: a kept game or a headless match's log, move by move, in the
full-screen table, forward and back.

``load_frames`` (``cli/log_frames.py``) reads either kind of log into the moves played, in
order, with their words, and the match after any of them. ``ReplayApp`` is the Textual table
(``cli/tui.py``) over a ``ReplaySession`` with no seat of its own: the players, the table, the
hands, the list of moves (the current one highlighted) and what the current move did.

What it shows: every hand of a log that holds the seed of the deal (a match log, a table that
deals from its seed); at a hidden-hands table (``docs/hidden-hands.md``), what the machine that
kept the log saw: every hand of a round once its audit revealed every card, and in the round
still in play its own hand (and the computer players' if its machine played them), the others
as hand sizes (``cli/hidden_rounds.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from rich.markup import escape
from textual.binding import Binding, BindingType
from textual.widgets import Input, OptionList, RichLog, Static
from textual.widgets.option_list import Option

from cardtable.cli.cards import scout_card, solo_card
from cardtable.cli.controller import Controller
from cardtable.cli.log_frames import Frames, load_frames
from cardtable.cli.session import BaseSession
from cardtable.cli.tui import TableApp
from cardtable.engine.match import Match

__all__ = ["Frames", "ReplayApp", "ReplaySession", "load_frames", "view"]

LOG_LINES = 60
"""How many lines of what happened the log pane shows, up to the current move."""


class ReplaySession(BaseSession):
    """A log's match at step ``step``, seen by no seat (``view``: whose hand alone is shown; None:
    every hand of a full-knowledge log)."""

    def __init__(self, frames: Frames) -> None:
        super().__init__()
        self.frames = frames
        self.step = 0
        self.view: int | None = None
        self._match = frames.at(0)

    def go(self, step: int) -> None:
        step = max(0, min(step, len(self.frames)))
        if step != self.step:
            self.step = step
            self._match = self.frames.at(step)
            self.version += 1

    def match(self) -> Match:
        return self._match

    def phase(self) -> str:
        return "over" if self._match.is_over() else "playing"

    def names(self) -> list[str]:
        return list(self.frames.names)

    def controllers(self) -> list[str]:
        return ["human"] * self.frames.config.players

    def observation(self) -> dict[str, Any] | None:
        """The public table, through the eyes of the seat shown (else the seat to move)."""
        seat = self.view if self.view is not None else self._match.to_move()
        return self._match.observation(seat if seat is not None else 0)

    def legal(self) -> list[Any]:
        return []

    def propose(self, text: str) -> str | None:
        return "a replay takes no moves"

    def leave(self) -> None:
        pass

    def hands(self) -> list[tuple[int, list[str] | None]]:
        """Per seat shown: its cards, or None where the log does not show them."""
        seats = range(self.frames.config.players) if self.view is None else [self.view]
        shows = self.frames.shows
        return [(s, list(self._match.observation(s)["hand"]) if shows(self.step, self._match, s) else None)
                for s in seats]


class ReplayApp(TableApp, inherit_bindings=False):
    """The table view of a log, move by move (the keys are in the footer)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step_back", "Back"),
        Binding("right,space", "forward", "Next", key_display="→"),
        Binding("pageup", "round_back", "Round", key_display="PgUp"),
        Binding("pagedown", "round_forward", "Round", key_display="PgDn"),
        Binding("home", "first", "Start", key_display="Home"),
        Binding("end", "last", "End", key_display="End"),
        Binding("v", "view", "Hands"),
        Binding("question_mark,f1", "rules", "Rules", key_display="?"),
        Binding("q", "leave", "Quit"),
    ]

    def __init__(self, frames: Frames) -> None:
        self.replay = ReplaySession(frames)
        super().__init__(Controller(self.replay), bot_delay=None)
        self._listed = False

    def on_mount(self) -> None:
        super().on_mount()
        moves = self.query_one("#moves", OptionList)
        moves.border_title = "Moves (a click goes there)"
        for widget in (moves, self.query_one("#log", RichLog), self.query_one("#talk", Input)):
            widget.can_focus = False  # the arrows, PgUp/PgDn and Home/End step through the game
        self.set_focus(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("jump", "solo", "catch", "protect", "decline", "flip", "keep", "hint", "cancel_move"):
            return False
        return True

    # --- drawing (``TableApp.refresh_view``) ---------------------------------------------------
    def _render_title(self, obs: dict[str, Any] | None) -> None:
        frames, session = self.replay.frames, self.replay
        cfg = frames.config
        game = f"SOLO {cfg.edition}" if cfg.game == "solo" else "SCOUT"
        text = (f"cardtable replay · {frames.title} · {game}, {cfg.players} players · "
                f"round {session.match().round_no + 1} · move {session.step} of {len(frames)}")
        self.query_one("#title", Static).update(f"[b]{escape(text)}[/b]")

    def _render_hand(self, obs: dict[str, Any] | None) -> None:
        widget = self.query_one("#hand", Static)
        session = self.replay
        names = session.names()
        game = session.frames.config.game
        lines = []
        hidden = bool(session.frames.dealt)
        unseen = "not seen by this machine before the round's audit" if hidden else "not in the log"
        for seat, hand in session.hands():
            if hand is None:
                size = session.match().observation(seat)["hand_sizes"][seat]
                cards = f"[dim]{size} cards, {unseen}[/]"
            else:
                cards = " ".join(solo_card(t) if game == "solo" else scout_card(t) for t in hand) or "(empty)"
            lines.append(f"[b]{escape(names[seat])}[/b] [dim](seat {seat})[/]: {cards}")
        if session.view is None:
            every = session.frames.every_card(session.step)
            widget.border_title = "Hands" if every else \
                "Hands (what this machine saw)" if hidden else "Hands (the public view)"
        else:
            widget.border_title = f"{names[session.view]}'s hand (v: the next seat, then all)"
        widget.update("\n".join(lines))

    def _render_status(self) -> None:
        session = self.replay
        k = session.step
        if k == 0:
            text = "The deal: nobody has moved yet. → steps forward."
        else:
            told = session.frames.told[k - 1]
            more = f" (and {len(told) - 1} more in the log)" if len(told) > 1 else ""
            text = f"Move {k} of {len(session.frames)}: {told[0] if told else session.frames.label(k)}{more}"
        if session.is_over():
            text += " · The match is over."
        if text != self._status_text:
            self._status_text = text
            self.query_one("#status", Static).update(escape(text))

    def _render_menu(self) -> None:
        moves = self.query_one("#moves", OptionList)
        frames = self.replay.frames
        if not self._listed:
            self._listed = True
            moves.add_options([Option(escape(frames.label(k)), id=str(k)) for k in range(len(frames) + 1)])
        if moves.highlighted != self.replay.step:
            moves.highlighted = self.replay.step
            moves.scroll_to_highlight()

    def _render_log(self) -> None:
        log = self.query_one("#log", RichLog)
        log.clear()
        frames, k = self.replay.frames, self.replay.step
        lines: list[str] = []
        for step in range(k, 0, -1):
            told = [escape(line) for line in frames.told[step - 1]]
            lines[:0] = [f"[b]{line}[/b]" for line in told] if step == k else told
            if len(lines) >= LOG_LINES:
                break
        for line in lines[-LOG_LINES:] or ["[dim]nothing yet: the cards are dealt[/]"]:
            log.write(line)

    # --- keys -----------------------------------------------------------------------------------
    def _go(self, step: int) -> None:
        self.replay.go(step)
        self.refresh_view()

    def action_step_back(self) -> None:
        self._go(self.replay.step - 1)

    def action_forward(self) -> None:
        self._go(self.replay.step + 1)

    def action_first(self) -> None:
        self._go(0)

    def action_last(self) -> None:
        self._go(len(self.replay.frames))

    def action_round_back(self) -> None:
        starts = [k for k in self.replay.frames.round_starts() if k < self.replay.step]
        self._go(starts[-1] if starts else 0)

    def action_round_forward(self) -> None:
        starts = [k for k in self.replay.frames.round_starts() if k > self.replay.step]
        self._go(starts[0] if starts else len(self.replay.frames))

    def action_view(self) -> None:
        session, n = self.replay, self.replay.frames.config.players
        session.view = 0 if session.view is None else None if session.view + 1 >= n else session.view + 1
        session.version += 1
        self.refresh_view()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self._go(int(event.option.id))

    def action_leave(self) -> None:
        self.exit(None)


def view(path: Path, data: bytes) -> None:
    """Show the log in the full-screen table until the viewer quits."""
    ReplayApp(load_frames(path, data)).run()
