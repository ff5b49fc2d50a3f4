"""The help screen of the table (``?`` or F1): the rules of the game being played and the keys."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Markdown

from cardtable.cli.rules import rules_text, table_keys


class HelpScreen(ModalScreen[None]):
    """The rules of ``game`` (``solo``, ``scout``, or empty before the deal) and the table's keys,
    scrolling; Esc, ``?``, F1 or ``q`` goes back to the table."""

    CSS = """
    HelpScreen { align: center middle; }
    #help { width: 95%; height: 95%; border: round $accent; background: $surface; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back to the table"),
        Binding("question_mark", "close", "Back", show=False),
        Binding("f1", "close", "Back", show=False),
        Binding("q", "close", "Back", show=False),
    ]

    def __init__(self, game: str) -> None:
        super().__init__()
        self.game = game

    def compose(self) -> ComposeResult:
        rules = rules_text(self.game) if self.game else "The rules show once the cards are dealt."
        with VerticalScroll(id="help"):
            yield Markdown(table_keys(self.game) + "\n" + rules, id="rules")
        yield Footer()

    def on_mount(self) -> None:
        scroll = self.query_one("#help", VerticalScroll)
        scroll.border_title = f"Rules of {self.game.upper() or 'the game'} and keys (Esc: back)"
        scroll.focus()

    def action_close(self) -> None:
        self.dismiss(None)
