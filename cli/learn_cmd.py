"""``cardtable learn solo|scout``: a short guided first round on the real table.

The table is the one ``play`` opens (the Textual table, or ``--plain``), in this process (no log
is kept), against gentle computer players (the heuristic bot); SOLO deals 5 cards to 3 players
and ends after the round, SCOUT is dealt to 3 players as usual. A ``Tutor`` watches the match
and says, in "What happened", a tip the moment it is useful (each once): what the game is
about, how to choose a move, what a Wild, an action card, the SOLO! call, a jump-in, a catch,
a show or a scout does, and what the round's end means.
"""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

import click

from cardtable.cli.controller import Controller
from cardtable.cli.options import bot_delay_option, home_option, plain_option, seed_option
from cardtable.cli.player_words import Note
from cardtable.cli.session import LocalSession
from cardtable.engine.games import GAME_NAMES

LEARN_BOTS = "heuristic"
"""The computer players of a first round: quick and gentle."""
TIP = "Tip: "


def learn_config(game: str) -> Any:
    """A short first match: SOLO classic, 3 players, 5 cards each, one round; SCOUT, 3 players."""
    from cardtable.engine.scout import Config as ScoutConfig
    from cardtable.engine.solo import Config as SoloConfig

    if game == "solo":
        return SoloConfig.preset("classic", 3, hand_size=5, rounds=1)
    return ScoutConfig(players=3)


def learn_session(game: str, seed: int) -> LocalSession:
    """The in-process match of ``cardtable learn GAME --seed SEED``."""
    from cardtable.engine.match import Match

    return LocalSession(Match(learn_config(game), f"cardtable/learn/{seed}".encode()), 0, LEARN_BOTS)


class Tutor:
    """Tips in "What happened" for the seat of ``controller``, each said once, as the match makes
    them useful (``attach`` says the first ones and listens from then on)."""

    def __init__(self, controller: Controller) -> None:
        self.c = controller
        self.told: set[str] = set()

    def attach(self) -> None:
        session = self.c.session
        session.subscribe(self._on_note)
        if isinstance(session, LocalSession):
            session.after_move.append(self.look)
        self.look()

    def tell(self, key: str, text: str) -> None:
        if key not in self.told:
            self.told.add(key)
            self.c.session._emit(Note("info", None, TIP + text))

    def _on_note(self, note: Note) -> None:
        if note.kind == "info" and note.text.startswith(TIP):
            return
        if note.kind == "round_end":
            self.round_over()

    def look(self) -> None:
        """The tips the position makes useful now."""
        obs = self.c.session.observation()
        if obs is None or self.c.session.is_over():
            return
        if obs["game"] == "solo":
            self.solo(obs)
        else:
            self.scout(obs)

    def solo(self, obs: dict[str, Any]) -> None:
        self.tell("goal", "SOLO: be the first to play out every card. A card fits on the pile's top card "
                          "if it has its colour or its number (or its symbol); a Wild fits on anything.")
        self.tell("keys", "your moves are in the list under your hand: ↑ ↓ and Enter plays one (in --plain, "
                          "type it: R7, draw ...); h asks the computer for a hint, ? shows the rules.")
        opts = self.c.options()
        if opts.jump:
            self.tell("jump", "you hold the very card on top of the pile: j jumps in with it, even when "
                              "it is not your turn.")
        if opts.catch:
            self.tell("catch", "a player is down to one card and did not call SOLO!: c catches them (they "
                               "draw 2 cards).")
        if obs.get("to_move") != obs.get("seat"):
            return
        legal = {str(a).split(":")[0].rstrip("!") for a in self.c.session.legal()}
        self.tell("turn", "your turn: the cards you may play are underlined in your hand. None fits? "
                          "Choose 'draw a card'.")
        if any(text in ("wild", "wd4") for text in legal):
            self.tell("wild", "a Wild fits on anything; you then name the colour the next player must "
                              "follow (a Wild Draw 4 also makes them draw 4 cards).")
        if any(text[1:] in ("skip", "rev", "d2") for text in legal):
            self.tell("action", "Skip, Reverse and Draw 2 are action cards: the next player loses a turn, "
                                "the direction turns round, or the next player draws 2 cards.")
        if len(obs.get("hand", [])) == 2:
            self.tell("solo", "two cards left: press s (SOLO!) before you play one, or a player may catch "
                              "you (in --plain, add ! to the play: R7!).")

    def scout(self, obs: dict[str, Any]) -> None:
        self.tell("goal", "SCOUT: your hand stays in the order dealt. Show cards that lie side by side "
                          "in it (a run 4-5-6 or a set 7-7) to beat the set on the table, or scout a "
                          "card from an end of that set into your hand.")
        self.tell("keys", "your moves are in the list under your hand: ↑ ↓ and Enter chooses one, then "
                          "its details (in --plain, type it); h asks the computer for a hint, ? shows the "
                          "rules.")
        if obs.get("phase") == "turn_choice":
            self.tell("flip", "before the round, each player may turn their whole hand around: f flips it "
                              "(the other number of every card comes up), k keeps it.")
            return
        if obs.get("to_move") != obs.get("seat"):
            return
        kinds = {str(a).split(":")[0].split("+")[0] for a in self.c.session.legal()}
        if not obs.get("active"):
            self.tell("empty", "the table is empty: show any card, or cards side by side in your hand.")
        elif "show" in kinds:
            self.tell("beat", "to beat the set on the table, show more cards, or as many of a stronger "
                              "kind (a set beats a run) with higher numbers; you take the beaten cards: "
                              "a point each.")
        if "scout" in kinds:
            self.tell("scout", "scouting gives the set's owner a chip; the card goes where you choose in "
                               "your hand, either way up: it can make a longer run.")

    def round_over(self) -> None:
        game = self.c.game
        if game == "solo":
            self.tell("end", "the round is over: the cards left in a hand cost its player their points. "
                             "cardtable play solo plays a whole match (u there takes a move back).")
        else:
            self.tell("end", "the round is over: each card you captured and each chip is a point, each "
                             "card left in your hand costs one. Play on for the next rounds, or q leaves; "
                             "cardtable play scout plays a whole match.")


EXAMPLES = """
\b
Examples:
  cardtable learn solo          (a first round of SOLO, with tips as you play)
  cardtable learn scout --plain (the same in line mode)
"""


@click.command(epilog=EXAMPLES)
@click.argument("game", type=click.Choice(GAME_NAMES))
@plain_option
@bot_delay_option
@seed_option
@home_option
def learn(game: str, plain: bool, bot_delay: float, seed: int | None, home: Path | None) -> None:
    """A short guided first round of GAME (solo or scout) against gentle computer players, on the
    real table, with tips in "What happened" as the round makes them useful."""
    from cardtable.cli.play_cmd import need_terminal, run_session

    if not plain:
        need_terminal()
    session = learn_session(game, secrets.randbelow(2**31) if seed is None else seed)
    digest = asyncio.run(run_session(session, plain=plain, turn_clock=None, linger=0.0, bot_delay=bot_delay,
                                     home=home, tutor=lambda c: Tutor(c).attach()))
    if digest:
        click.echo(f"digest: {digest}")

