"""The host's forms in the lobby of the table view: the options (``o``) and the seat to free
(``x``). Each is a small modal screen over the table; Esc cancels.

The options form shows every key ``set KEY=VALUE`` takes (``cli/table_controls.py``): the
players, the computer seats, how long the match runs and the game's rules options, each with
its value now (a number in a field, on/off on a switch, a choice in a list). Enter checks what
changed with the same ``settings()`` as ``set`` in ``--plain`` and sends it as one ``set``, or
says in one line why it cannot be (the form stays open)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, OptionList, Select, Static, Switch
from textual.widgets.option_list import Option

from cardtable.cli.table_controls import keys, settings

CHOICES = {"call": ("with_play", "window"), "scoring": ("pool", "penalty")}
"""The options that take one of a few words."""
WORDS = {
    "players": "seats at the table",
    "cpu": "computer seats (the last ones)",
    "scoring": "pool: highest wins · penalty: lowest",
    "pool": "each pool starts at (pool scoring)",
    "threshold": "the match ends at (penalty scoring)",
    "rounds": "ends after this many rounds (0: none)",
    "hand_size": "cards dealt to each player",
    "false_catch_penalty": "cards a wrong catch costs",
}
"""A few words on a key, where its name alone says too little."""


class OptionsForm(ModalScreen[str | None]):
    """The table's options as the host may set them; dismissed with the ``set`` line to send
    (``KEY=VALUE ...``, only what changed) or None (Esc, or nothing changed)."""

    CSS = """
    OptionsForm { align: center middle; }
    #form { width: 80; max-width: 100%; height: auto; max-height: 100%; border: round $accent;
            background: $surface; padding: 0 1; }
    #fields { height: auto; max-height: 1fr; }
    .row { height: 1; }
    .row Label { width: 22; }
    .row Input, .row Select { width: 16; }
    .row Switch { border: none; height: 1; padding: 0; width: 16; }
    .row .about { width: 1fr; color: $text-muted; }
    #problem { color: $error; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "send", "Set these options"),
    ]

    def __init__(self, config: Any, cpu: int) -> None:
        super().__init__()
        self.config, self.cpu = config, cpu

    def value(self, key: str) -> Any:
        return self.cpu if key == "cpu" else getattr(self.config, key)

    def compose(self) -> ComposeResult:
        with Vertical(id="form"):
            with VerticalScroll(id="fields"):
                for key in self.order():
                    now = self.value(key)
                    with Horizontal(classes="row"):
                        yield Label(key)
                        if isinstance(now, bool):
                            yield Switch(now, id=f"set-{key}", animate=False)
                        elif key in CHOICES:
                            yield Select([(c, c) for c in CHOICES[key]], value=now, allow_blank=False,
                                         id=f"set-{key}", compact=True)
                        else:
                            yield Input(str(now), id=f"set-{key}", compact=True,
                                        type="integer" if isinstance(now, int) else "text")
                        yield Static(self.about(key, now), id=f"about-{key}", classes="about")
            yield Static("Enter in a field or Ctrl+S: set them · Tab: the next · Space: a switch · "
                         "Esc: cancel", id="how")
            yield Static("", id="problem")
        yield Footer()

    def order(self) -> list[str]:
        """The players first, then the computer seats, then the rest as ``set`` lists them."""
        rest = keys(self.config)
        return ["players", "cpu", *(key for key in rest if key not in ("players", "cpu"))]

    @staticmethod
    def about(key: str, value: Any) -> str:
        """The few words beside a key; a switch's value in words too (a switch shows it by colour)."""
        if isinstance(value, bool):
            return "on" if value else "off"
        return WORDS.get(key, "")

    def on_mount(self) -> None:
        self.query_one("#form", Vertical).border_title = "The table's options"
        self.query_one("#set-players").focus()

    def on_switch_changed(self, event: Switch.Changed) -> None:
        key = (event.switch.id or "").removeprefix("set-")
        self.query_one(f"#about-{key}", Static).update(self.about(key, event.value))

    def changed(self) -> str:
        """What differs from the options now, as ``set`` takes it."""
        pairs = []
        for key in keys(self.config):
            widget = self.query_one(f"#set-{key}")
            if isinstance(widget, Switch):
                asked: Any = widget.value
            else:
                asked = widget.value if isinstance(widget, Select) else widget.value.strip()  # type: ignore[attr-defined]
            now = self.value(key)
            if isinstance(now, bool):
                if asked != now:
                    pairs.append(f"{key}={'on' if asked else 'off'}")
            elif str(asked) != str(now):
                pairs.append(f"{key}={asked or '?'}")
        return " ".join(pairs)

    def action_send(self) -> None:
        text = self.changed()
        if not text:
            self.dismiss(None)
            return
        asked = settings(self.config, self.cpu, text)
        if isinstance(asked, str):
            self.query_one("#problem", Static).update(asked)
            return
        self.dismiss(text)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_send()

    def action_cancel(self) -> None:
        self.dismiss(None)


class FreeSeatForm(ModalScreen[int | None]):
    """Which seat to free: the seats other members hold (Enter frees the one chosen; Esc cancels)."""

    CSS = """
    FreeSeatForm { align: center middle; }
    #seats { width: 56; max-width: 100%; height: auto; max-height: 80%; border: round $accent;
             background: $surface; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, seats: list[tuple[int, str]]) -> None:
        super().__init__()
        self.seats = seats

    def compose(self) -> ComposeResult:
        yield OptionList(*[Option(f"seat {s}: {who}", id=str(s)) for s, who in self.seats], id="seats")
        yield Footer()

    def on_mount(self) -> None:
        seats = self.query_one("#seats", OptionList)
        seats.border_title = "Free which seat? (Enter frees it)"
        seats.highlighted = 0
        seats.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(int(event.option.id or 0))

    def action_cancel(self) -> None:
        self.dismiss(None)
