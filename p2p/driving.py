"""Driving the table: committed entries applied, and what this peer decides on its own.

Committed entries go through ``TableState`` in order and raise the peer's events. Each peer
takes its part in the seed agreement (commit, then reveal its nonce) and asks its bots for
moves (its own seat with ``auto``; the sequencer: the computer players, after ``bot_delay``).
The sequencer also acts for the table when people hold it up: it evicts members silent in
the lobby (``Timeouts.lobby_silence``), forfeits seats that do not commit or reveal in time,
says which players it has not heard from (``Timeouts.notice``) and takes their seats over
(``Timeouts.takeover``).
"""

from __future__ import annotations

from typing import Any

from cardtable.ai.bots import make_bot
from cardtable.p2p.hidden import payloads
from cardtable.p2p.peer_state import LEADER, PeerState
from cardtable.p2p.table import BOT, HUMAN, LOBBY, OVER, PLAYING, SEEDING, Applied, commitment
from cardtable.p2p.wire import HIDDEN_KINDS, Entry, Proposal


class Driving(PeerState):
    """The table-driving part of ``Peer`` (see ``p2p/peer_state.py``)."""

    def _commit_to(self, index: int, quiet: bool = False) -> None:
        """Apply committed entries up to ``index`` to the table."""
        if index <= self.commit_index:
            return
        position = self.table.position
        for i in range(self.commit_index + 1, index + 1):
            self._applied(self.table.apply(self.log[i - 1]), self.log[i - 1], quiet)
        self.commit_index = index
        if self.table.position != position:  # talk alone moves no position: no bot waits for it
            self.applied_at = self.now
        self.store.set_meta("commit", index)

    def _applied(self, done: Applied, entry: Entry, quiet: bool) -> None:
        p = entry.decoded
        mine = p.author == self.key and p.incarnation == self.incarnation
        if mine:
            self.queue = [o for o in self.queue if o.seq > p.seq]
            self.propose_at, self.propose_tries = self.now, 0
        if p.kind in ("deck", "keys") and done.ok:
            self.side.logged(self.table.hidden, p.payload)
        if quiet:
            return
        self._event("applied", index=done.index, seat=done.seat, author=p.author.hex(), kind=done.kind,
                    summary=done.summary, ok=done.ok, reason=done.reason,
                    events=[e.to_dict() for e in done.events])
        if mine and not done.ok and done.reason != "duplicate":  # protocol: a hidden-hands step, no move
            protocol = done.kind in HIDDEN_KINDS and not (done.kind == "keys" and len(p.payload) == 4)
            self._event("refused", index=done.index, kind=done.kind, reason=done.reason, protocol=protocol)
        if not done.ok:
            return
        if done.line:
            self._event("chat", seat=done.seat, author=p.author.hex(), line=done.line)
        self._table_events(done, p)

    def _table_events(self, done: Applied, p: Proposal) -> None:
        t = self.table
        if done.kind in ("create", "join") and p.author == self.key:
            self._event("seated", seat=t.seat_of(self.key))
        if done.kind in ("takeover", "return", "forfeit"):
            later = done.kind == "return" and p.payload[1] in t.returning  # back from the next deal
            name = t.seats[p.payload[1]].name
            self._event("returning" if later else done.kind, seat=p.payload[1], name=name)
        if done.kind == "silent":
            self._event("silent", seat=p.payload[1], name=t.seats[p.payload[1]].name, seconds=p.payload[2])
        if done.kind == "leave" and p.author != self.key:
            self._event("leave", seat=done.seat, name=done.name)
        if done.kind in ("evict", "free"):
            self._event("evicted" if done.kind == "evict" else "freed", seat=p.payload[1])
            if any(e.facts.get("member") == self.key.hex() for e in done.events):
                self.evicted = True
        if any(e.kind == "new_match" for e in done.events):  # a rematch: new bots, a new seed
            self.bots, self.auto_bot, self.started = {}, None, False
            self._event("new_match", match=t.match_no)
        if not self.started and t.seed is not None:
            self.started = True
            self._event("started", seed=t.seed.hex())
        for e in done.events:
            if e.kind == "round_end":
                self._event("round_end", text=str(e))
            elif e.kind in ("fault", "round_void", "dealt", "rebuild"):
                self._event(e.kind, text=e.text, seat=e.seat, **{k: v for k, v in e.facts.items()
                                                                 if k in ("member", "code")})
        if done.kind in ("act", "keys", "seed") and t.phase == OVER and t.match is not None:
            self._event("match_over", digest=t.digest(), totals=t.match.scores(),
                        winners=t.match.winners())

    def _think(self) -> None:
        t = self.table
        if self.queue and self.queue[0].payload[0] == "join" and self.key in t.roster.members:
            self.queue.pop(0)
        stage = (t.phase, t.stage, t.progress())
        if stage != self.stage:
            self.stage, self.stage_since = stage, self.now
        if not self.leaving and t.hidden is not None and self._caught_up():
            self._hidden_step()
        if self.queue or self.leaving or t.table_id is None or not self._caught_up():
            return
        seat = self.my_seat
        if t.phase == SEEDING:
            self._seed_step(seat)
        elif t.phase == PLAYING:
            if seat is not None and t.seats[seat].controller == BOT:
                if seat not in t.returning:
                    self._propose(["return", seat])
            else:
                self._play(seat)

    def _hidden_step(self) -> None:
        """This machine's part of the hidden deal: propose what it must, send its keys and steps."""
        self.side.ask_every(self.round_trips.timeout(None))
        todo = self.side.step(self.table, self.leader, self.now, self.timeouts.reveal)
        seat, h = self.my_seat, self.table.hidden
        if seat is not None and h is not None and self.side.told is not h \
                and self.side.knows_hand(self.table, seat):
            self.side.told = h
            self._event("hand_open", seat=seat)
        elif seat is not None and h is not None and self.side.seen != (h, len(self.side.opened)):
            self.side.seen = (h, len(self.side.opened))
            self._event("cards_open", seat=seat)  # a drawn, gifted or swapped card is in: look again
        for payload in todo.propose:
            self._propose(payload)
        for to, item in todo.send:
            self._send_secret(to, item)
        if not self.queue and self.due_at != self.table.position:
            self._due_step()

    def _due_step(self) -> None:
        """Make the moves only this machine can (with hidden hands): one the rules make for a seat
        it holds (SOLO's setup card), and its own seat's forced move when a person sits there, after
        the computer players' pause, so that its timing tells nothing (a bot's is the bot's)."""
        t, h = self.table, self.table.hidden
        if t.match is None or h is None or t.phase != PLAYING:
            return
        due = h.due_move(t.match.state)
        if due is None and self.now >= self.applied_at + self.timeouts.bot_delay:
            due = self._forced_move()
        if due is None or t.holder(due[0], self.leader) != self.key:
            return
        payload = self._move_payload(*due)
        if payload is not None:
            self.due_at = self.table.position
            self._propose(payload)

    def _forced_move(self) -> tuple[int, str] | None:
        """This machine's person's seat's only move, when it is one the machine makes (hidden hands:
        ``HiddenRound.forced``), as ``(seat, text)``."""
        t, h, seat = self.table, self.table.hidden, self.my_seat
        if h is None or t.match is None or seat is None or self.auto is not None:
            return None
        if t.seats[seat].controller != HUMAN or t.match.to_move() != seat or not self._sees_hand(seat):
            return None
        legal = [str(a) for a in t.match.legal_actions(seat)]
        return (seat, legal[0]) if len(legal) == 1 and legal[0] in h.forced else None

    def _move_payload(self, seat: int, text: str) -> list[Any] | None:
        """The entry that makes a move: ``act``; with hidden hands, written the way the round's
        entries are (SOLO: on slots), and a move that shows cards carries their proofs (``keys``).
        None: the seat's cards are not all open on this machine yet."""
        h, match = self.table.hidden, self.table.match
        if h is None or match is None:
            return ["act", seat, text]
        if not self.side.knows_hand(self.table, seat):
            return None
        try:
            text, shown = h.wire_move(match.state, seat, text)
        except Exception:  # noqa: BLE001 - refused when applied, as any bad move
            return ["act", seat, text]
        opens = self.side.proofs(h, shown)
        if opens is None:
            return None
        return payloads.play_payload(seat, text, opens) if opens else ["act", seat, text]

    def _seed_step(self, seat: int | None) -> None:
        t = self.table
        if seat is None or seat not in t.seeding_seats() or t.table_id is None:
            return
        if self.nonce is None or t.nonce_spent(self.key, self.nonce):
            self.nonce = self._random_bytes(32)
            self.store.set_meta("nonce", self.nonce)
            self.store.set_meta("nonce_table", t.table_id)
        mine = commitment(t.table_id, self.key, self.nonce)
        if t.stage == "commit" and seat not in t.commits:
            self._propose(["commit", mine])
        elif t.stage == "reveal" and seat not in t.reveals and t.commits.get(seat) == mine:
            self._propose(["reveal", self.nonce])

    def _play(self, seat: int | None) -> None:
        """Ask the bots this peer runs, in the headless driver's order; propose the first move.

        Each bot is asked once per committed position: this peer's own seat (``auto``) at once,
        the computer players (the sequencer's) only once every entry in the log is committed (no
        one's proposal is in flight) and ``bot_delay`` has passed since the last entry was
        applied, so that people can jump in, call or catch first: their proposals arriving in
        that time are sequenced first, and the bots then think again about the new position."""
        own = seat is not None and self.auto is not None and self.table.seats[seat].controller == HUMAN \
            and self.asked_at != self.table.position and self._sees_hand(seat)
        bots = self._bots_due() and self.now >= self.applied_at + self.timeouts.bot_delay \
            and all(self._sees_hand(s) for s in self.table.bot_seats())
        match = self.table.match
        waiting = match.to_move() if match and (own or bots) else None
        if match is None or waiting is None:
            return
        mine: set[int] = set()
        if own and seat is not None:
            self.asked_at = self.table.position
            mine.add(seat)
        if bots:
            self.bots_asked_at = self.table.position
            mine.update(self.table.bot_seats())
        actors = set(match.actors())
        n = len(self.table.seats)
        for k in range(1, n + 1):
            s = (waiting + k) % n
            if s not in mine or s not in actors:
                continue
            action = self._ask_bot(s, s == waiting, s == seat)
            payload = None if action is None else self._move_payload(s, str(action))
            if payload is not None:
                self._propose(payload)
                return

    def _sees_hand(self, seat: int) -> bool:
        """This machine may act for ``seat``: with hidden hands, once every card of it is open here."""
        return self.table.hidden is None or self.side.knows_hand(self.table, seat)

    def _bots_due(self) -> bool:
        """This machine plays the computer players (the sequencer; with hidden hands the machine
        fixed for the round, ``TableState.bot_runner``) and has them to ask about this position,
        once it may."""
        t = self.table
        runs = self.role == LEADER if t.hidden is None else t.bot_runner(self.leader) == self.key
        return (runs and t.phase == PLAYING and self.bots_asked_at != t.position
                and len(self.log) == self.commit_index and bool(t.bot_seats()))

    def _ask_bot(self, seat: int, must: bool, own: bool) -> Any:
        match = self.table.match
        assert match is not None
        if own:
            if self.auto_bot is None:
                self.auto_bot = make_bot(self.auto or "random", match.seed, seat)
            bot = self.auto_bot
        else:
            if seat not in self.bots:
                self.bots[seat] = make_bot(self.bots_spec, match.seed, seat)
            bot = self.bots[seat]
        legal = match.legal_actions(seat)
        obs = match.observation(seat)
        try:
            return bot.choose(obs, legal) if must else bot.react(obs, legal)
        except Exception as err:  # noqa: BLE001 - a broken bot must not stop the table
            self._event("bot_error", seat=seat, error=f"{type(err).__name__}: {err}")
            return legal[0] if must and legal else None

    def _sequencer_deadlines(self) -> list[float]:
        t = self.table
        if self.queue:
            return []
        if t.phase == LOBBY:  # one past due that may not go yet: looked at again with the heartbeats
            wait = self.timeouts.lobby_silence
            due = [self._last_heard(k) + wait for k in self.roster.members if k != self.key]
            return [d for d in due if d > self.now]
        if t.phase == SEEDING:
            return [self.stage_since + self.timeouts.reveal]
        if t.phase == PLAYING:
            stall = [self.stage_since + self.timeouts.reveal] if t.stage_due() else []
            stall += [since + self.timeouts.reveal for since in self._accusations().values()]
            return stall + [self._last_heard(s.owner) + self._silence_allowed(s.owner) for s in t.seats
                            if s.controller == HUMAN and s.owner not in (None, self.key)]
        return []

    def _silence_allowed(self, key: bytes | None) -> float:
        """How long ``key``'s silence may last before the sequencer says so (``Timeouts.notice``,
        once per silence), then before it takes the seat over (``Timeouts.takeover``)."""
        t = self.timeouts
        told = self.noticed.get(key or b"") == self._last_heard(key)
        return t.takeover if told or t.notice >= t.takeover else t.notice

    def _last_heard(self, key: bytes | None) -> float:
        return max(self.heard.get(key or b"", float("-inf")), self.leader_since)

    def _sequencer_timeouts(self) -> None:
        """Evict members silent in the lobby; forfeit seats that hold up the seed agreement;
        take over silent players."""
        t = self.table
        if self.queue:
            return
        if t.phase == LOBBY:
            seat = self._silent_in_lobby()
            if seat is not None:
                self._propose(["evict", seat])
        elif t.phase == SEEDING and self.now >= self.stage_since + self.timeouts.reveal:
            self.stage_since = self.now
            for seat in t.missing():
                self._propose(["forfeit", seat])
        elif t.phase == PLAYING and t.hidden is not None and (late := self._overdue()) is not None:
            # named: it loses its seat and the round is void
            self._propose(["fault", t.hidden.round_no, late, "withheld", 0])
        elif t.phase == PLAYING:
            for seat, s in enumerate(t.seats):
                if s.controller != HUMAN or s.owner in (None, self.key):
                    continue
                since = self._last_heard(s.owner)
                if self.now >= since + self._silence_allowed(s.owner):
                    if self.now < since + self.timeouts.takeover:  # not answering: say so first
                        self.noticed[s.owner] = since
                        self._propose(["silent", seat, round(self.now - since)])
                    else:
                        self._propose(["takeover", seat])
                    return

    def waiting_for(self) -> tuple[bytes, float] | None:
        """The member whose machine the hidden round waits for now, and for how long (None: no
        one): one whose keys this machine's hands still lack, one whose entry the round's stage
        needs (its part of the deal, its seed, a share), or one accused of withholding keys."""
        t, h = self.table, self.table.hidden
        if h is None or t.phase != PLAYING or self.leaving:
            return None
        side = self.side
        if side.round is h and side.asking:
            late = [m for slot in side.asking for m in side.ring.missing(slot) if m not in h.gone]
            if late:
                return late[0], self.now - min(side.asking.values())
        due = [m for m in t.stage_due() if m != self.key]
        if due:
            return due[0], self.now - self.stage_since
        pending = [(a, i) for a, _, i in t.pending_accusations() if a != self.key]
        if pending:
            return pending[0][0], self.now - self.accusations_seen.get(pending[0][1], self.now)
        return None

    def _accusations(self) -> dict[int, float]:
        """The pending accusations of withholding keys (log index) and since when this machine, as
        sequencer, has seen each: each accused member has ``Timeouts.reveal`` to answer *that*
        accusation in the log (a new sequencer gives every pending one a fresh wait)."""
        pending = {index for _, _, index in self.table.pending_accusations()}
        seen = self.accusations_seen
        for index in list(seen):
            if index not in pending:
                del seen[index]
        for index in pending:
            seen[index] = max(seen.get(index, self.now), self.leader_since)
        return seen

    def _overdue(self) -> bytes | None:
        """A member (never this machine) that failed to answer an accusation within the timeout,
        or that the round's stage has waited on for the timeout (a commitment, a step, a seed)."""
        t, wait = self.table, self.timeouts.reveal
        seen = self._accusations()
        for accused, _, index in t.pending_accusations():
            if accused != self.key and self.now >= seen[index] + wait:
                return accused
        if self.now >= self.stage_since + wait:
            late = [m for m in t.stage_due() if m != self.key]
            if late:
                self.stage_since = self.now
                return late[0]
        return None

    def _silent_in_lobby(self) -> int | None:
        """The seat of a member (not the sequencer) silent for ``Timeouts.lobby_silence`` while
        the table is in the lobby (its join in the log, committed or not), if it may go now."""
        for key, seat in self.roster.members.items():
            if key != self.key and self.now >= self._last_heard(key) + self.timeouts.lobby_silence \
                    and self._may_change_members(["evict", seat]):
                return seat
        return None
