"""The peer's side of the host's lobby controls and the rematch (``p2p/hosting.py``).

Each call proposes one entry, or refuses it at once with the table's own reason (the event
``refused``), so a person is told before anything is sent; every machine checks it again when
the entry is applied.
"""

from __future__ import annotations

from typing import Any

from cardtable.p2p.peer_state import Output, PeerState


class LobbyControls(PeerState):
    """The lobby-controls part of ``Peer`` (see ``p2p/peer_state.py``)."""

    def start_now(self, now: float) -> Output:
        """The host starts the match now: computer players take the free seats."""
        return self._control(["start"], now)

    def free_seat(self, seat: int, now: float) -> Output:
        """The host frees ``seat`` in the lobby: its member is no longer at the table."""
        return self._control(["free", seat], now)

    def set_options(self, config: Any, cpu_seats: int, now: float) -> Output:
        """The host changes the options in the lobby: the game's config and the computer seats."""
        return self._control(["options", config.to_dict(), cpu_seats], now)

    def agree_rematch(self, now: float) -> Output:
        """This person agrees to play the same table again once the match is over."""
        return self._control(["rematch"], now)

    def _control(self, payload: list[Any], now: float) -> Output:
        self._begin(now)
        reason = "you are not at the table" if self.left or self.leaving else \
            self.table.refusal(self.key, payload)
        if not reason and self._queued(payload[0]):
            reason = "already on its way"
        if reason:
            self._event("refused", index=None, kind=payload[0], reason=reason)
        else:
            self._propose(payload)
        return self._finish()
