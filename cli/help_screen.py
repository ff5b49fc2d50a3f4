"""The help screen of the table (``?`` or F1): the rules of the game being played and the keys;
and the review of your last round (``v``), on the same kind of screen."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Markdown, Static

from cardtable.cli.rules import rules_text, table_keys


class TextScreen(ModalScreen[None]):
    """A scrolling page covering the whole table (none of it shows behind), titled ``heading``;
    Esc, ``?``, F1 or ``q`` goes back."""

    CSS = """
    TextScreen { background: $surface; }
    #help { width: 100%; height: 1fr; border: round $accent; background: $surface; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back to the table"),
        Binding("question_mark", "close", "Back", show=False),
        Binding("f1", "close", "Back", show=False),
        Binding("q", "close", "Back", show=False),
    ]
    heading = ""

    def on_mount(self) -> None:
        scroll = self.query_one("#help", VerticalScroll)
        scroll.border_title = self.heading
        scroll.focus()

    def action_close(self) -> None:
        self.dismiss(None)


class HelpScreen(TextScreen):
    """The rules of ``game`` (``solo``, ``scout``, or empty before the deal) and the table's keys."""

    def __init__(self, game: str) -> None:
        super().__init__()
        self.game = game
        self.heading = f"Rules of {game.upper() or 'the game'} and keys (Esc: back)"

    def compose(self) -> ComposeResult:
        rules = rules_text(self.game) if self.game else "The rules show once the cards are dealt."
        with VerticalScroll(id="help"):
            yield Markdown(table_keys(self.game) + "\n" + rules, id="rules")
        yield Footer()


class ReviewScreen(TextScreen):
    """The review of your last finished round (``cli/review_cmd.py``), one decision a line."""

    heading = "Review: your moves the search rates clearly worse (Esc: back)"

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        from rich.markup import escape

        with VerticalScroll(id="help"):
            yield Static("\n".join(escape(line) for line in self.lines), id="review")
        yield Footer()
