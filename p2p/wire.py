"""The datagram codec: framing, the passphrase seal, msgpack bodies, every field checked.

A datagram is ``b"CT"``, a version byte, a flags byte and the msgpack body; with a passphrase
(flags bit 1) the body is sealed (``p2p/seal.py``): the table's salt, a nonce, and the body
encrypted and authenticated, so only the four-byte head and the salt are in clear. Bodies
are arrays whose first element is the message type. Every message but
``PROPOSE`` is ``[type, inner, sig]``: ``inner`` is the packed field array and ``sig`` the
sender's Ed25519 signature of ``MSG_DOMAIN + type + inner``; ``PROPOSE`` carries a proposal
that its author signed; ``HEARTBEAT`` (the sequencer's idle APPEND in short form) is
``[type, term, prev index, prev term, commit, mac]``, the MAC keyed by the pair key of the
sequencer and the member (``Identity.pair_key``) and bound to the table (``heartbeat_mac``).
Wire 4 chains the log: a sequencer signs each entry's chain hash (``chain_hash``: the entry and
the chain hash before it), ``APPEND_OK``, ``VOTE_ASK`` and heartbeats carry chain hashes, and
``HEAD`` carries a member's head (and witnesses: ``Witness``, ``equivocation``) to another
member. Wire 5 adds hidden hands (docs/hidden-hands.md): ``SECRET`` (type 12, member to member,
sealed with the pair key of the two; ``Secret``) and the log payloads ``deal``, ``deck``, ``keys``,
``seed`` and ``fault`` (``HIDDEN_KINDS``), and a fifth ``create`` field, the deal (``open`` or
``hidden``), the talk: the log payloads ``say`` and ``emote`` (``p2p/chat.py``), and the host's
lobby controls and the rematch: ``start``, ``free``, ``options``, ``rematch`` (``p2p/hosting.py``),
and ``WATCH`` (type 13: a spectator asks for the log, ``p2p/spectators.py``).
Decoding raises ``WireError`` (its ``reason`` names the drop counter) for anything malformed;
it never verifies signatures itself: ``Packet.authentic`` does, so that cheap checks can come
first.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Any

import msgpack

from cardtable.p2p import chat, seal
from cardtable.p2p.identity import verify

MAGIC = b"CT"
VERSION = 7
FLAG_SEALED = 2
HEAD_BYTES = 4
MAX_DATAGRAM = 1200
TAG_BYTES = 16
ID_BYTES = 16
KEY_BYTES = 32
SIG_BYTES = 64
HASH_BYTES = 32
MAX_NAME = 32
MAX_ACTION = 64
MAX_EMOTE = 16
MAX_SEATS = 10
MAX_INT = 2**63 - 1

BEACON, JOIN, PROPOSE, APPEND, APPEND_OK, VOTE_ASK, VOTE, REDIRECT, HEARTBEAT, PROBE, HEAD = range(1, 12)
SECRET = 12
WATCH = 13  # a spectator asks the sequencer for the log (p2p/spectators.py)
WATCH_PAD = 256
"""The zero bytes a ``WATCH`` carries: it is bigger than any answer to it (a cookie, a redirect),
so a stranger's forged source address is sent fewer bytes than the stranger sends."""
HIDDEN_KINDS = ("deal", "deck", "keys", "seed", "fault")
"""Log payload kinds of hidden hands (checked by ``p2p/hidden/payloads.py``)."""
DEALS = ("open", "hidden")
NONCE_BYTES = 16
MAX_WITNESSES = 2
GENESIS = bytes(HASH_BYTES)
"""The chain hash before the first entry."""

MSG_DOMAIN = b"cardtable/msg/"
HEARTBEAT_DOMAIN = b"cardtable/heartbeat/"
PROPOSAL_DOMAIN = b"cardtable/proposal/"
ENTRY_DOMAIN = b"cardtable/entry/"
CHAIN_DOMAIN = b"cardtable/chain/"

Addr = tuple[str, int]


class WireError(ValueError):
    """Input that is not a valid datagram; ``reason`` is the drop counter it goes to."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --- framing and the passphrase seal -------------------------------------------------------------
def _tag(key: bytes, data: bytes) -> bytes:
    return hashlib.blake2b(data, key=key, digest_size=TAG_BYTES).digest()


def frame(body: bytes, key: seal.Seal | None) -> bytes:
    """A datagram around ``body``, sealed with ``key`` (the table's ``seal.Seal``) if there is one."""
    if key is None:
        return MAGIC + bytes((VERSION, 0)) + body
    return key.close(MAGIC + bytes((VERSION, FLAG_SEALED)), body)


def _head(data: bytes) -> bool:
    """Whether ``data`` is sealed, after the size, magic, version and flags checks."""
    if len(data) > MAX_DATAGRAM:
        raise WireError("oversized")
    if len(data) <= HEAD_BYTES or data[:2] != MAGIC:
        raise WireError("malformed")
    if data[2] != VERSION:
        raise WireError("version")
    if data[3] & ~FLAG_SEALED:
        raise WireError("malformed")
    return bool(data[3] & FLAG_SEALED)


def sealed_salt(data: bytes) -> bytes | None:
    """The salt in a sealed datagram's clear head (None: not a sealed datagram)."""
    try:
        return seal.salt_of(data, HEAD_BYTES) if _head(data) else None
    except WireError:
        return None


def unframe(data: bytes, key: seal.Seal | None) -> bytes:
    """The body of a datagram, after the size, version and passphrase checks: sealed
    datagrams need ``key`` (another table's salt: ``other table``; a wrong key or any byte
    changed: ``passphrase``), clear ones need none."""
    if not _head(data):
        if key is not None:
            raise WireError("passphrase")
        return data[HEAD_BYTES:]
    if key is None or len(data) < HEAD_BYTES + seal.OVERHEAD:
        raise WireError("passphrase")
    if seal.salt_of(data, HEAD_BYTES) != key.salt:
        raise WireError("other table")
    body = key.open(data, HEAD_BYTES)
    if body is None:
        raise WireError("passphrase")
    return body


# --- field checks -------------------------------------------------------------------------------
def _bytes(value: Any, size: int) -> bytes:
    if not isinstance(value, bytes) or len(value) != size:
        raise WireError("malformed")
    return value


def _blob(value: Any) -> bytes:
    if not isinstance(value, bytes) or len(value) > MAX_DATAGRAM:
        raise WireError("malformed")
    return value


def _int(value: Any, lo: int = 0, hi: int = MAX_INT) -> int:
    if type(value) is not int or not lo <= value <= hi:
        raise WireError("malformed")
    return value


def _str(value: Any, limit: int) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise WireError("malformed")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise WireError("malformed")
    return value


def _list(value: Any, lo: int, hi: int) -> list[Any]:
    if not isinstance(value, list) or not lo <= len(value) <= hi:
        raise WireError("malformed")
    return value


def _config(value: Any) -> dict[str, Any]:
    """A game config in plain form: a small map of names to ints, bools and short strings."""
    if not isinstance(value, dict) or len(value) > 24:
        raise WireError("malformed")
    for k, v in value.items():
        _str(k, 32)
        number = type(v) in (int, bool) and -MAX_INT <= int(v) <= MAX_INT
        if not (number or isinstance(v, str) and len(v) <= 32):
            raise WireError("malformed")
    return value


def _unpack(data: bytes) -> Any:
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=False, max_bin_len=MAX_DATAGRAM,
                               max_str_len=MAX_DATAGRAM, max_array_len=MAX_DATAGRAM,
                               max_map_len=64, max_ext_len=0)
    except Exception:  # noqa: BLE001 - msgpack raises many kinds; all mean malformed
        raise WireError("malformed") from None


def pack(value: Any) -> bytes:
    return bytes(msgpack.packb(value, use_bin_type=True))


def _array(parts: list[bytes]) -> bytes:
    """A msgpack array from already packed elements."""
    n = len(parts)
    if n < 16:
        head = bytes((0x90 | n,))
    elif n < 65536:
        head = b"\xdc" + n.to_bytes(2, "big")
    else:
        head = b"\xdd" + n.to_bytes(4, "big")
    return head + b"".join(parts)


# --- proposals and entries ----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Proposal:
    """What an author asks to append: ``[table id, author, incarnation, seq, payload]``."""

    table_id: bytes
    author: bytes
    incarnation: int
    seq: int
    payload: list[Any]

    def pack(self) -> bytes:
        return pack([self.table_id, self.author, self.incarnation, self.seq, self.payload])

    @property
    def kind(self) -> str:
        return str(self.payload[0])


def decode_proposal(data: bytes) -> Proposal:
    """A proposal's envelope (strict) and payload (an array starting with a kind string)."""
    raw = _list(_unpack(data), 5, 5)
    payload = _list(raw[4], 1, 8)
    _str(payload[0], 16)
    return Proposal(_bytes(raw[0], ID_BYTES), _bytes(raw[1], KEY_BYTES), _int(raw[2]), _int(raw[3], 1),
                    payload)


def _seat(value: Any) -> int:
    return _int(value, 0, MAX_SEATS - 1)


_PAYLOADS: dict[str, tuple[int, Any]] = {
    "create": (5, lambda p: (_str(p[1], MAX_NAME), _config(p[2]), _int(p[3], 0, MAX_SEATS),
                             _deal_mode(p[4]))),
    "join": (2, lambda p: _str(p[1], MAX_NAME)),
    "commit": (2, lambda p: _bytes(p[1], HASH_BYTES)),
    "reveal": (2, lambda p: _bytes(p[1], HASH_BYTES)),
    "act": (3, lambda p: (_seat(p[1]), _str(p[2], MAX_ACTION))),
    "forfeit": (2, lambda p: _seat(p[1])),
    "takeover": (2, lambda p: _seat(p[1])),
    "return": (2, lambda p: _seat(p[1])),
    "leave": (1, lambda p: None),
    "evict": (2, lambda p: _seat(p[1])),
    "silent": (3, lambda p: (_seat(p[1]), _int(p[2], 0, 86_400))),  # seat, seconds not heard
    "noop": (1, lambda p: None),
    "say": (2, lambda p: _chat_text(p[1])),
    "emote": (2, lambda p: _str(p[1], MAX_EMOTE)),
    "start": (1, lambda p: None),
    "free": (2, lambda p: _seat(p[1])),
    "options": (3, lambda p: (_config(p[1]), _int(p[2], 0, MAX_SEATS))),
    "rematch": (1, lambda p: None),
}


def _chat_text(value: Any) -> str:
    """A chat line on the wire: text of at most ``chat.MAX_BYTES`` bytes (what it may say is the
    table's to check: ``p2p/chat.py``, so that a bad line is refused with a reason)."""
    if not isinstance(value, str) or len(value.encode("utf-8", "surrogatepass")) > chat.MAX_BYTES:
        raise WireError("malformed")
    return value


def _deal_mode(value: Any) -> str:
    if value not in DEALS:
        raise WireError("malformed")
    return str(value)


def _hidden(payload: list[Any]) -> None:
    from cardtable.p2p.hidden import payloads
    from cardtable.p2p.hidden.group import DeckError

    try:
        payloads.read_any(payload)
    except DeckError:
        raise WireError("malformed") from None


def check_payload(payload: list[Any]) -> None:
    """Raise ``WireError`` unless ``payload`` is one of the documented payloads (a ``create``
    written before wire 5 has no deal field: it deals open; from wire 6 it has a sixth, 1: every
    dealer of a hidden deal escrows its seed, and may have a seventh: the host's own name, when it
    is not the table's)."""
    kind = payload[0] if payload and isinstance(payload[0], str) else None
    if kind in HIDDEN_KINDS:
        _hidden(payload)
        return
    spec = _PAYLOADS.get(kind) if kind else None
    if spec is not None and kind == "create" and len(payload) == 4:
        payload = [*payload, "open"]
    if spec is not None and kind == "create" and len(payload) in (6, 7):
        if payload[5] not in (0, 1) or isinstance(payload[5], bool):
            raise WireError("malformed")
        if len(payload) == 7:
            _str(payload[6], MAX_NAME)
        payload = payload[:5]
    if spec is None or len(payload) != spec[0]:
        raise WireError("malformed")
    spec[1](payload)


def proposal_signed(proposal: bytes) -> bytes:
    """The bytes an author signs for a proposal."""
    return PROPOSAL_DOMAIN + proposal


def chain_hash(table_id: bytes, term: int, index: int, digest: bytes, prev: bytes) -> bytes:
    """``h_i``: the entry's place in the chain, from the proposal's SHA-256 and ``h_{i-1}``."""
    return hashlib.sha256(CHAIN_DOMAIN + pack([table_id, term, index, digest, prev])).digest()


def entry_signed(table_id: bytes, term: int, index: int, proposal: bytes, prev: bytes = GENESIS) -> bytes:
    """The bytes a sequencer signs for a log entry: its chain hash, which covers ``prev``, the
    chain hash of the entry before it (so the signature covers the whole history before it)."""
    return ENTRY_DOMAIN + chain_hash(table_id, term, index, hashlib.sha256(proposal).digest(), prev)


@dataclass(frozen=True, slots=True)
class Entry:
    """A log entry: ``[term, index, proposal, author sig, sequencer key, sequencer sig]``."""

    term: int
    index: int
    proposal: bytes
    author_sig: bytes
    sequencer: bytes
    seq_sig: bytes
    decoded: Proposal

    def pack(self) -> bytes:
        return pack([self.term, self.index, self.proposal, self.author_sig, self.sequencer, self.seq_sig])

    def chain(self, table_id: bytes, prev: bytes) -> bytes:
        """This entry's chain hash after an entry whose chain hash is ``prev``."""
        return chain_hash(table_id, self.term, self.index, hashlib.sha256(self.proposal).digest(), prev)

    def authentic(self, table_id: bytes, prev: bytes = GENESIS) -> bool:
        """Both signatures hold, the sequencer's over this entry chained on ``prev``, and the
        proposal belongs to ``table_id``."""
        return (self.decoded.table_id == table_id
                and verify(self.decoded.author, proposal_signed(self.proposal), self.author_sig)
                and verify(self.sequencer, ENTRY_DOMAIN + self.chain(table_id, prev), self.seq_sig))

    def witness(self, table_id: bytes, prev: bytes) -> Witness:
        """What shows, to anyone, that this entry's sequencer signed it at its term and index."""
        return Witness(self.term, self.index, hashlib.sha256(self.proposal).digest(), prev, self.sequencer,
                       self.seq_sig)


@dataclass(frozen=True, slots=True)
class Witness:
    """A sequencer's signature on one place of the chain, checkable alone: two of one key at
    one term and index with different chain hashes prove that it equivocated."""

    term: int
    index: int
    digest: bytes
    prev: bytes
    sequencer: bytes
    sig: bytes

    def hash(self, table_id: bytes) -> bytes:
        return chain_hash(table_id, self.term, self.index, self.digest, self.prev)

    def valid(self, table_id: bytes) -> bool:
        return verify(self.sequencer, ENTRY_DOMAIN + self.hash(table_id), self.sig)

    def to_list(self) -> list[Any]:
        return [self.term, self.index, self.digest, self.prev, self.sequencer, self.sig]


def witness_from_list(raw: Any) -> Witness:
    raw = _list(raw, 6, 6)
    return Witness(_int(raw[0], 1), _int(raw[1], 1), _bytes(raw[2], HASH_BYTES), _bytes(raw[3], HASH_BYTES),
                   _bytes(raw[4], KEY_BYTES), _bytes(raw[5], SIG_BYTES))


def equivocation(table_id: bytes, a: Witness, b: Witness) -> bool:
    """Whether two witnesses prove that one sequencer signed two histories at one term and index."""
    return (a.sequencer == b.sequencer and a.term == b.term and a.index == b.index
            and a.hash(table_id) != b.hash(table_id) and a.valid(table_id) and b.valid(table_id))


def entry_from_list(raw: Any) -> Entry:
    raw = _list(raw, 6, 6)
    proposal = _blob(raw[2])
    return Entry(_int(raw[0], 1), _int(raw[1], 1), proposal, _bytes(raw[3], SIG_BYTES),
                 _bytes(raw[4], KEY_BYTES), _bytes(raw[5], SIG_BYTES), decode_proposal(proposal))


def decode_entry(data: bytes) -> Entry:
    """An entry from its packed form (as kept in a store)."""
    return entry_from_list(_unpack(data))


# --- messages -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Beacon:
    """What a table says about itself. ``key`` is the sequencer's public key (the beacon is
    signed with it), ``port`` its unicast port (0: the port the beacon came from), ``phase``
    the table's phase (lobby, seeding, playing, over)."""

    table_id: bytes
    key: bytes
    term: int
    name: str
    config: dict[str, Any]
    taken: int
    total: int
    port: int
    phase: str
    stamp: int = field(default=0, compare=False)  # the sender's stamp, set when decoded (p2p/freshness.py)

    @property
    def game(self) -> str:
        game = self.config.get("game")
        return game if isinstance(game, str) else "?"


@dataclass(frozen=True, slots=True)
class Join:
    table_id: bytes
    key: bytes
    incarnation: int
    name: str
    proposal: bytes | None
    proposal_sig: bytes | None
    cookie: bytes | None = None  # the sequencer's cookie, echoed (p2p/lobby.py)


@dataclass(frozen=True, slots=True)
class Watch:
    """A spectator asks to be sent the log (``p2p/spectators.py``); ``cookie`` as a join's; a
    fifth field on the wire, ``WATCH_PAD`` zero bytes, makes it bigger than any answer."""

    table_id: bytes
    key: bytes
    name: str
    cookie: bytes | None = None


@dataclass(frozen=True, slots=True)
class Propose:
    table_id: bytes
    proposal: bytes
    sig: bytes
    decoded: Proposal

    @property
    def key(self) -> bytes:
        return self.decoded.author


@dataclass(frozen=True, slots=True)
class Append:
    table_id: bytes
    key: bytes
    term: int
    prev_index: int
    prev_term: int
    commit: int
    entries: tuple[Entry, ...]
    addrs: tuple[tuple[bytes, str, int], ...]


@dataclass(frozen=True, slots=True)
class AppendOk:
    """A member's answer to an APPEND; ``head``: its chain hash at ``match``."""

    table_id: bytes
    key: bytes
    term: int
    success: bool
    match: int
    head: bytes


@dataclass(frozen=True, slots=True)
class VoteAsk:
    """A candidate's request; ``last_hash``: its chain hash at ``last_index``."""

    table_id: bytes
    key: bytes
    term: int
    last_index: int
    last_term: int
    last_hash: bytes


@dataclass(frozen=True, slots=True)
class Vote:
    table_id: bytes
    key: bytes
    term: int
    granted: bool
    lost_store: bool


@dataclass(frozen=True, slots=True)
class Redirect:
    table_id: bytes
    key: bytes
    term: int
    leader: bytes
    host: str
    port: int


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """An APPEND with no entries and no addresses from the sequencer of ``term``, which the
    member already answered in this term: it names neither table nor sender (the member knows
    both) and carries a 16-byte MAC instead of a signature, so that idle traffic stays small.
    ``stamp`` is the sender's stamp (under the MAC), as in every signed message."""

    term: int
    prev_index: int
    prev_term: int
    prev_hash: bytes
    commit: int
    stamp: int
    mac: bytes

    def authentic(self, pair_key: bytes, table_id: bytes) -> bool:
        expected = heartbeat_mac(pair_key, table_id, self.term, self.prev_index, self.prev_term,
                                 self.prev_hash, self.commit, self.stamp)
        return hmac.compare_digest(expected, self.mac)


@dataclass(frozen=True, slots=True)
class Probe:
    """A liveness check of a new address: ``answer`` False asks the key to echo ``nonce`` from
    there; True is that echo (p2p/freshness.py: addresses move only on such an answer)."""

    table_id: bytes
    key: bytes
    nonce: bytes
    answer: bool


@dataclass(frozen=True, slots=True)
class Head:
    """A member tells another member what it holds: its chain hash ``hash`` at ``index``
    (whose entry is of ``entry_term``), in ``term``. ``witnesses``: none usually; one (its
    own entry at a place where the two disagree) to ask for the other's; two: a proof that a
    sequencer equivocated (``equivocation``)."""

    table_id: bytes
    key: bytes
    term: int
    index: int
    entry_term: int
    hash: bytes
    witnesses: tuple[Witness, ...]


@dataclass(frozen=True, slots=True)
class Secret:
    """A ``SECRET`` from ``key`` to ``receiver``: ``body`` is opened by the receiver alone
    (``p2p/hidden/bundles.decode_secret``); no signature, the pair key authenticates it."""

    table_id: bytes
    key: bytes
    receiver: bytes
    body: bytes


Message = Beacon | Join | Propose | Append | AppendOk | VoteAsk | Vote | Redirect | Probe | Head | Secret \
    | Watch


@dataclass(frozen=True, slots=True)
class Packet:
    """A decoded datagram: the message and what its signature covers."""

    msg: Message | Heartbeat
    signed: bytes
    sig: bytes
    stamp: int = 0

    def authentic(self) -> bool:
        """The signature holds (a ``Heartbeat`` or a ``Secret`` has none: see ``Heartbeat.authentic``
        and ``Secret``)."""
        return not isinstance(self.msg, (Heartbeat, Secret)) and verify(self.msg.key, self.signed, self.sig)


def _addr(raw: Any) -> tuple[bytes, str, int]:
    raw = _list(raw, 3, 3)
    return _bytes(raw[0], KEY_BYTES), _str(raw[1], 64), _int(raw[2], 0, 65535)


def _opt(value: Any, check: Any) -> Any:
    return None if value is None else check(value)


def _fields(kind: int, f: list[Any]) -> Message:
    tid, key = _bytes(f[0], ID_BYTES), _bytes(f[1], KEY_BYTES)
    if kind == BEACON and len(f) == 9:
        return Beacon(tid, key, _int(f[2]), _str(f[3], MAX_NAME), _config(f[4]), _int(f[5], 0, MAX_SEATS),
                      _int(f[6], 0, MAX_SEATS), _int(f[7], 0, 65535), _str(f[8], 8))
    if kind == JOIN and len(f) == 7:
        return Join(tid, key, _int(f[2]), _str(f[3], MAX_NAME), _opt(f[4], _blob),
                    _opt(f[5], lambda v: _bytes(v, SIG_BYTES)), _opt(f[6], lambda v: _bytes(v, NONCE_BYTES)))
    if kind == WATCH and len(f) == 5 and _bytes(f[4], WATCH_PAD) == bytes(WATCH_PAD):
        return Watch(tid, key, _str(f[2], MAX_NAME), _opt(f[3], lambda v: _bytes(v, NONCE_BYTES)))
    if kind == APPEND and len(f) == 8:
        entries = tuple(entry_from_list(e) for e in _list(f[6], 0, 64))
        addrs = tuple(_addr(a) for a in _list(f[7], 0, MAX_SEATS))
        return Append(tid, key, _int(f[2]), _int(f[3]), _int(f[4]), _int(f[5]), entries, addrs)
    if kind == APPEND_OK and len(f) == 6:
        return AppendOk(tid, key, _int(f[2]), _bool(f[3]), _int(f[4]), _bytes(f[5], HASH_BYTES))
    if kind == VOTE_ASK and len(f) == 6:
        return VoteAsk(tid, key, _int(f[2]), _int(f[3]), _int(f[4]), _bytes(f[5], HASH_BYTES))
    if kind == HEAD and len(f) == 7:
        witnesses = tuple(witness_from_list(w) for w in _list(f[6], 0, MAX_WITNESSES))
        return Head(tid, key, _int(f[2]), _int(f[3]), _int(f[4]), _bytes(f[5], HASH_BYTES), witnesses)
    if kind == VOTE and len(f) == 5:
        return Vote(tid, key, _int(f[2]), _bool(f[3]), _bool(f[4]))
    if kind == PROBE and len(f) == 4:
        return Probe(tid, key, _bytes(f[2], NONCE_BYTES), _bool(f[3]))
    if kind == REDIRECT and len(f) == 6:
        return Redirect(tid, key, _int(f[2]), _bytes(f[3], KEY_BYTES), _str(f[4], 64), _int(f[5], 0, 65535))
    raise WireError("malformed")


def decode(data: bytes, key: seal.Seal | None) -> Packet:
    """A datagram's message; raises ``WireError`` (and nothing else) for anything not well formed."""
    try:
        return _decode(data, key)
    except WireError:
        raise
    except Exception:  # noqa: BLE001 - a safety net: bad input must never escape as another error
        raise WireError("malformed") from None


def _decode(data: bytes, key: seal.Seal | None) -> Packet:
    body = _unpack(unframe(bytes(data), key))
    if not isinstance(body, list) or not body or type(body[0]) is not int:
        raise WireError("malformed")
    kind = body[0]
    if not BEACON <= kind <= WATCH:
        raise WireError("unknown type")
    if kind == SECRET:
        _list(body, 7, 7)
        secret = Secret(_bytes(body[1], ID_BYTES), _bytes(body[2], KEY_BYTES), _bytes(body[3], KEY_BYTES),
                        unframe(bytes(data), key))
        return Packet(secret, b"", b"")
    if kind == HEARTBEAT:
        _list(body, 8, 8)
        mac = _bytes(body[7], TAG_BYTES)
        stamp = _int(body[6], 1)
        prev_hash = body[4] if body[4] == b"" else _bytes(body[4], HASH_BYTES)
        beat = Heartbeat(_int(body[1], 1), _int(body[2]), _int(body[3]), prev_hash, _int(body[5]), stamp, mac)
        return Packet(beat, b"", mac, stamp)
    if kind == PROPOSE:
        _list(body, 4, 4)
        proposal = _blob(body[2])
        sig = _bytes(body[3], SIG_BYTES)
        decoded = decode_proposal(proposal)
        check_payload(decoded.payload)
        msg = Propose(_bytes(body[1], ID_BYTES), proposal, sig, decoded)
        return Packet(msg, proposal_signed(proposal), sig)
    _list(body, 3, 3)
    inner = _blob(body[1])
    sig = _bytes(body[2], SIG_BYTES)
    raw = _list(_unpack(inner), 5, 10)
    fields = _fields(kind, raw[:-1])
    return Packet(fields, MSG_DOMAIN + bytes((kind,)) + inner, sig, _int(raw[-1], 1))


# --- encoding -----------------------------------------------------------------------------------
def _signed_body(kind: int, inner: bytes, sign: Any) -> bytes:
    sig = sign(MSG_DOMAIN + bytes((kind,)) + inner)
    return _array([pack(kind), pack(inner), pack(sig)])


def encode_propose(table_id: bytes, proposal: bytes, sig: bytes, key: seal.Seal | None) -> bytes:
    return frame(pack([PROPOSE, table_id, proposal, sig]), key)


def encode(kind: int, fields: list[Any], sign: Any, key: seal.Seal | None, stamp: int = 1) -> bytes:
    """A signed message of type ``kind`` from its field list (see the ``_fields`` layouts) and
    the sender's ``stamp`` (the last field, under the signature: see ``p2p.freshness``)."""
    return frame(_signed_body(kind, pack([*fields, stamp]), sign), key)


def encode_append(head: list[Any], entries: list[bytes], addrs: list[Any], sign: Any,
                  key: seal.Seal | None, stamp: int = 1) -> bytes:
    """An APPEND from its six head fields, packed entries, address list and stamp."""
    inner = _array([pack(v) for v in head] + [_array(entries), pack(addrs), pack(stamp)])
    return frame(_signed_body(APPEND, inner, sign), key)


def heartbeat_mac(pair_key: bytes, table_id: bytes, term: int, prev_index: int, prev_term: int,
                  prev_hash: bytes, commit: int, stamp: int) -> bytes:
    """The MAC of a heartbeat: keyed BLAKE2b over the domain, the table and the six fields."""
    return _tag(pair_key, HEARTBEAT_DOMAIN + table_id + pack([term, prev_index, prev_term, prev_hash, commit,
                                                               stamp]))


def encode_heartbeat(pair_key: bytes, table_id: bytes, term: int, prev_index: int, prev_term: int,
                     commit: int, key: seal.Seal | None, stamp: int = 1, prev_hash: bytes = b"") -> bytes:
    """A short heartbeat. ``prev_hash``: the chain hash at ``prev_index``, or empty when the
    member has already answered with that very hash (an idle table's heartbeats stay short:
    with the hash in every one, an idle 10-peer sequencer at 20% loss sent 1.3 KB/s)."""
    mac = heartbeat_mac(pair_key, table_id, term, prev_index, prev_term, prev_hash, commit, stamp)
    return frame(pack([HEARTBEAT, term, prev_index, prev_term, prev_hash, commit, stamp, mac]), key)


def append_overhead(head: list[Any], addrs: list[Any], key: seal.Seal | None) -> int:
    """Bytes an APPEND takes besides its entries (an upper bound; entries add their packed size),
    the seal's included when there is a passphrase."""
    inner = sum(len(pack(v)) for v in head) + len(pack(addrs)) + 1 + 5 + 9
    return HEAD_BYTES + (seal.OVERHEAD if key else 0) + 1 + 1 + 5 + inner + 2 + SIG_BYTES
