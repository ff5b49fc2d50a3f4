"""What a seat observes in the OpenSpiel games, by OpenSpiel's observation type.

``make_observer(codec, iig_obs_type)`` builds the view asked for or raises ``ValueError``:

- the default (``IIGObservationType()``: no perfect recall, public information and the
  observer's private information): the tensor is the PettingZoo observation vector, the string
  the engine's observation as JSON with how the seat is asked;
- the information state (``perfect_recall=True``, the same information): the string holds what
  the seat saw after every action and every token it said; there is **no tensor** (a fixed-size
  tensor cannot hold an unbounded history): ``set_from`` raises, so
  ``information_state_tensor`` does, and the game type says ``provides_information_state_tensor
  = False``;
- public information only (``private_info=PrivateInfoType.NONE``): the same vector and JSON
  with every private part blank: the observer's hand and the card it just drew, a Gift's
  cards, the cards it knows in other hands (SOLO); the cards of its hand nobody else has seen
  and its whole-hand choice before the play (SCOUT); how it is asked and its token path.
  Only without perfect recall.

Every other type (every player's private information, no public information) raises.
"""

from __future__ import annotations

import json
from typing import Any

import pyspiel

NONE = pyspiel.PrivateInfoType.NONE
SINGLE = pyspiel.PrivateInfoType.SINGLE_PLAYER


def make_observer(codec: Any, iig_obs_type: Any = None) -> Observer:
    """The observer of ``iig_obs_type`` (None: the default observation), or ValueError."""
    if iig_obs_type is None:
        return Observer(codec, perfect_recall=False, private=True)
    if not iig_obs_type.public_info:
        raise ValueError("cardtable games offer no view without the public information")
    if iig_obs_type.private_info == SINGLE:
        return Observer(codec, perfect_recall=bool(iig_obs_type.perfect_recall), private=True)
    if iig_obs_type.private_info == NONE:
        if iig_obs_type.perfect_recall:
            raise ValueError("cardtable games offer no public perfect-recall view")
        return Observer(codec, perfect_recall=False, private=False)
    raise ValueError("cardtable games offer no view of every player's private information")


class Observer:
    """OpenSpiel's observer protocol (``tensor``, ``dict``, ``set_from``, ``string_from``)."""

    def __init__(self, codec: Any, perfect_recall: bool, private: bool) -> None:
        self.codec = codec
        self.perfect_recall = perfect_recall
        self.private = private
        self.tensor: Any
        self.dict: dict[str, Any]
        if perfect_recall:
            self.tensor, self.dict = None, {}
        else:
            self.tensor, self.dict = codec.LAYOUT.new()

    def set_from(self, state: Any, player: int) -> None:
        if self.perfect_recall:
            raise ValueError("cardtable games have no perfect-recall information-state tensor "
                             "(the history is unbounded): use information_state_string, or "
                             "the observation tensor (it keeps the discard pile and known cards)")
        position = state.p
        if position.round is None:
            self.tensor.fill(0)
            return
        obs, asked, path = self._view(position, player)
        self.tensor[:] = self.codec.features(obs, path, asked)

    def string_from(self, state: Any, player: int) -> str:
        position = state.p
        if self.perfect_recall:
            asked, path = position.asked(player)
            return (f"seat {player}\n" + "\n".join(position.history_of(player))
                    + f"\nasked={asked} path={path}")
        if position.round is None:
            return f"seat {player} dealing round {position.rounds_played}"
        obs, asked, path = self._view(position, player)
        return json.dumps(obs, sort_keys=True) + f" asked={asked} path={path}"

    def _view(self, position: Any, player: int) -> tuple[dict[str, Any], str, list[int]]:
        """The engine observation, how the seat is asked and its path; blanked when public."""
        obs = position.engine_observation(player)
        asked, path = position.asked(player)
        if self.private:
            return obs, asked, path
        return public_part(obs, position.round, player), "", []


def public_part(obs: dict[str, Any], state: Any, seat: int) -> dict[str, Any]:
    """``obs`` (seat's engine observation) less what only ``seat`` knows."""
    obs = dict(obs)
    obs["hand"] = []
    if obs["game"] == "solo":
        obs["drawn"] = bool(obs["drawn"])
        obs["known"] = {}
        if obs["react"] is not None and isinstance(obs["react"]["gift"], list):
            obs["react"] = {**obs["react"], "gift": len(obs["react"]["gift"])}
        return obs
    obs["known"] = [list(row) for row in obs["known"]]
    obs["known"][seat] = [text if public else None
                          for text, public in zip(obs["known"][seat], state.known[seat], strict=True)]
    if obs["phase"] == "turn_choice":
        obs["flipped"] = [None] * obs["players"]
    return obs
