"""Talk at a table (``p2p/chat.py``): chat entries on hand-made logs, then on the simulated LAN."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest

from cardtable.engine import scout
from cardtable.p2p import chat, wire
from cardtable.p2p.identity import Identity
from cardtable.p2p.simnet import Faults, Node, SimNet
from cardtable.p2p.table import Applied, TableState
from tests.p2p import all_over, build, check_replicas
from tests.p2p.test_table import ANN, BOB, EVE, HOST, Log, lobby, playing

ESC = "\x1b[2J\x1b]0;owned\x07"
TOO_LONG = f"a chat line holds at most {chat.MAX_TEXT} characters ({chat.MAX_BYTES} bytes)"


# --- the table --------------------------------------------------------------------------------------
def test_a_chat_line_is_said_and_changes_no_game() -> None:
    log = playing()
    t = log.table
    assert t.match is not None
    before, to_move, seats = t.digest(), t.match.to_move(), [(s.owner, s.controller) for s in t.seats]
    assert log.add(ANN, ["say", "  good luck  "]) == (True, "")
    assert log.add(HOST, ["emote", "gg"]) == (True, "")
    assert (t.digest(), t.match.to_move()) == (before, to_move)
    assert [(s.owner, s.controller) for s in t.seats] == seats


def test_said_lines_are_worded_with_the_author_s_name() -> None:
    log = lobby(players=3)
    log.add(ANN, ["join", "ann"])
    table = log.table
    data = wire.Proposal(b"T" * 16, ANN.key, 1, 9, ["say", " hello there "]).pack()
    entry = wire.Entry(1, 3, data, ANN.sign(wire.proposal_signed(data)), HOST.key, b"s" * 64,
                       wire.decode_proposal(data))
    assert table.apply(entry).line == "ann: hello there"
    assert chat.line("ann", ["emote", "hi"]) == "ann waves hello"


@pytest.mark.parametrize("payload,reason", [
    (["say", 7], "malformed payload"),
    (["say", "x" * (chat.MAX_BYTES + 1)], "malformed payload"),
    (["say", "x" * (chat.MAX_TEXT + 1)], TOO_LONG),
    (["say", "   "], "an empty chat line"),
    (["say", f"hi {ESC}"], "a chat line may not hold control characters"),
    (["say", "evil \u202e txt.exe"], chat.REFUSALS["format"]),
    (["emote", "dance"], "no such emote (there are: hi, gg, nice, wow, oops, thinking)"),
    (["emote", 3], "malformed payload"),
    (["say", "a", "b"], "malformed payload"),
])
def test_malformed_talk_is_refused_with_a_reason(payload: list[Any], reason: str) -> None:
    log = playing()
    before = log.table.digest()
    assert log.add(ANN, payload) == (False, reason)
    assert log.table.digest() == before
    if reason != "malformed payload":  # (a malformed one does not get past the wire to be asked)
        assert log.table.refusal(ANN.key, payload) == reason


def test_only_members_talk() -> None:
    log = lobby(players=3)
    assert log.add(EVE, ["say", "let me in"]) == (False, "only the table's members talk")
    log.add(ANN, ["join", "ann"])
    assert log.add(ANN, ["say", "hi"])[0]
    log.add(ANN, ["leave"])
    assert log.add(ANN, ["emote", "gg"]) == (False, "only the table's members talk")


def test_a_refused_line_s_summary_holds_no_escape() -> None:
    log = playing()
    data = wire.Proposal(b"T" * 16, ANN.key, 1, 99, ["say", ESC]).pack()
    entry = wire.Entry(1, 99, data, b"a" * 64, HOST.key, b"s" * 64, wire.decode_proposal(data))
    done = log.table.apply(entry)
    assert not done.ok and not any(ch in done.summary for ch in "\x1b\x07")


def test_the_rate_bound_counts_entries_the_same_on_every_replica() -> None:
    logs = [lobby(players=3), lobby(players=3)]
    for log in logs:
        log.add(ANN, ["join", "ann"])
        results = [log.add(ANN, ["say", f"line {i}"])[0] for i in range(chat.BURST + 2)]
        assert results == [True] * chat.BURST + [False, False]
        assert log.add(ANN, ["say", "more"])[1].startswith(f"{chat.BURST} lines in a row")
        assert log.add(HOST, ["say", "ann, hush"])[0]  # another entry: one line back
        assert log.add(ANN, ["say", "sorry"]) == (True, "")
        assert not log.add(ANN, ["say", "but"])[0]
        assert log.add(BOB, ["join", "bob"])[0]  # any entry that is not ann's own line counts
        assert log.add(ANN, ["emote", "hi"])[0]
    assert logs[0].table.talk.tokens(ANN.key) == logs[1].table.talk.tokens(ANN.key) == 0


def test_the_largest_chat_entry_fits_one_sealed_append() -> None:
    from cardtable.p2p import seal

    text = "\U0001F600" * (chat.MAX_BYTES // 4)  # the most bytes a line the table takes may hold
    data = wire.Proposal(b"T" * 16, ANN.key, 2**62, 2**62, ["say", text]).pack()
    entry = wire.Entry(2**40, 2**40, data, b"a" * 64, HOST.key, b"s" * 64, wire.decode_proposal(data))
    key = seal.for_table("pass", b"T" * 16)
    head = [b"T" * 16, HOST.key, 2**40, 2**40, 2**40, 2**40]
    size = wire.append_overhead(head, [], key) + len(entry.pack())
    assert size <= wire.MAX_DATAGRAM
    assert TableState().refusal(ANN.key, ["say", text]) == "only the table's members talk"
    assert TableState().refusal(ANN.key, ["say", text + "\U0001F600"]) == TOO_LONG  # told before the wire


# --- what a line may hold, and what every screen shows of it ----------------------------------------
def seen_everywhere(name: str, text: str) -> list[str]:
    """``text`` where talk is shown: in the line of a member named ``name`` (names are not refused,
    so they reach the log), in the summary of the refused ``say`` (``--verbose``), and in the line
    a table that took it anyway would show (an old log, a modified machine)."""
    log = lobby(players=3)
    assert log.add(ANN, ["join", name]) == (True, "")
    named = applied(log, ANN, ["say", "hi"])
    refused = applied(log, ANN, ["say", text])
    assert named.ok and not refused.ok and refused.line == ""
    return [named.line, refused.summary, chat.line("ann", ["say", text])]


def applied(log: Log, author: Identity, payload: list[Any]) -> Applied:
    """``log.add``, the table's whole answer (``Applied``) rather than its verdict."""
    log.index += 1
    log.seqs[author.key] = seq = log.seqs.get(author.key, 0) + 1
    data = wire.Proposal(b"T" * 16, author.key, 1, seq, payload).pack()
    entry = wire.Entry(1, log.index, data, author.sign(wire.proposal_signed(data)), HOST.key, b"s" * 64,
                       wire.decode_proposal(data))
    return log.table.apply(entry)


def refused_alike(text: str, reason: str) -> None:
    """``text`` is refused with ``reason`` before it is proposed (``refusal``: the sequencer
    never logs it) and when a sequencer logs it anyway."""
    log = playing()
    assert log.table.refusal(ANN.key, ["say", text]) == reason
    assert log.add(ANN, ["say", text]) == (False, reason)
    assert log.add(ANN, ["say", "fine"]) == (True, "")


@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\x85", "\v", "\f", "\n", "\r", "\x1e"])
def test_a_line_break_or_separator_is_refused_and_shown_as_a_space(brk: str) -> None:
    """"gg<LS>cardtable: p0 held the round up" read as a system line in a viewer that breaks there."""
    forged = f"gg{brk}cardtable: p0 held the round up"
    refused_alike(forged, "a chat line is one line: no line breaks or separators")
    named, summary, line = seen_everywhere(f"p0{brk}cardtable", forged)
    assert named == "p0 cardtable: hi"
    assert summary == "say gg cardtable: p0 held the round up"
    assert line == "ann: gg cardtable: p0 held the round up"
    assert all(len(shown.splitlines()) == 1 for shown in (named, summary, line))


BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
        "\u200e", "\u200f", "\u061c"]


@pytest.mark.parametrize("bidi", BIDI)
def test_a_bidi_control_is_refused_and_never_shown(bidi: str) -> None:
    """An override shows "evil <RLO>exe.txt" as "evil txt.exe"; the others reorder less, alike."""
    forged = f"evil {bidi}exe.txt"
    refused_alike(forged, chat.REFUSALS["format"])
    named, summary, line = seen_everywhere(f"ann{bidi}", forged)
    assert (named, summary, line) == ("ann: hi", "say evil exe.txt", "ann: evil exe.txt")


@pytest.mark.parametrize("invisible", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad",
                                       "\u180e", "\U000e0041"])
def test_a_zero_width_or_other_format_character_is_refused_and_never_shown(invisible: str) -> None:
    """Invisible, they make a line or a name that looks like another one and is not ("p\u200b0")."""
    forged = f"p{invisible}0 is cheating"
    refused_alike(forged, chat.REFUSALS["format"])
    named, summary, line = seen_everywhere(f"p{invisible}0", forged)
    assert (named, summary, line) == ("p0: hi", "say p0 is cheating", "ann: p0 is cheating")


ACUTE, RING, SIGN = "\u0301", "\u20dd", "\u0903"  # a mark of each category: Mn, Me, Mc


@pytest.mark.parametrize("mark", [ACUTE, RING, SIGN])
def test_a_run_of_combining_marks_is_refused_and_shown_cut(mark: str) -> None:
    """190 marks on one letter spill over the lines above and below it, over the table's own words."""
    reason = f"a chat line stacks at most {chat.MAX_MARKS} combining marks on a character"
    assert chat.MAX_MARKS == 3
    refused_alike("z" + mark * 190, reason)
    refused_alike("z" + mark * 4, reason)
    refused_alike(f"ok z{mark * 4} ok", reason)
    log = playing()
    assert log.add(ANN, ["say", f"z{mark * 3} z{mark * 3}"]) == (True, "")  # three on each is fine
    named, summary, line = seen_everywhere("p0" + mark * 20, "z" + mark * 190)
    assert named == f"p0{mark * 3}: hi"
    assert summary == f"say z{mark * 3}"
    assert line == f"ann: z{mark * 3}"
    # hidden characters between them do not start a new run: what is shown has at most three
    hidden = f"z{mark * 3}\u200b{mark * 3}\u2028{mark}"
    assert chat.line("ann", ["say", hidden]) == f"ann: z{mark * 3} {mark}"


def test_all_of_them_at_once_are_folded_and_folding_again_changes_nothing() -> None:
    messy = f"a\u2028b{ESC}c\u202ed{ACUTE * 9}\u200b{ACUTE * 2}e\u0085"
    once = chat.printable(messy)
    assert once == f"a b[2J]0;ownedcd{ACUTE * 3}e "
    assert chat.printable(once) == once


@pytest.mark.parametrize("text", [
    "café", "Tiếng Việt", unicodedata.normalize("NFD", "Tiếng Việt, chơi lại nhé"), "naïve façade",
    "gg \U0001F44D\U0001F3FD \U0001F389", "1\ufe0f\u20e3 \u2714\ufe0f", "你好，再来一局", "もう一回！",
    "한 판 더", "שָׁלוֹם", "مُحَمَّد", "नमस्ते", "สวัสดี", "Привет", "z\u0301\u0301\u0301 a\u00a0b",
])
def test_ordinary_text_in_any_script_is_said_and_shown_unchanged(text: str) -> None:
    log = lobby(players=3)
    assert log.add(ANN, ["join", text[:32]]) == (True, "")  # as a name, too
    assert log.table.refusal(ANN.key, ["say", text]) == ""
    done = applied(log, ANN, ["say", text])
    assert (done.ok, done.line) == (True, f"{text[:32]}: {text}")
    assert chat.printable(text) == text
    assert chat.line("ann", ["say", text]) == f"ann: {text}"


# --- the simulated LAN ----------------------------------------------------------------------------
def lines(node: Node) -> list[str]:
    return [d["line"] for d in node.kinds("chat")]


def talk(net: SimNet, node: Node, text: str) -> None:
    assert node.peer is not None
    if text.startswith("/"):
        net.handle(node, node.peer.emote(text[1:], net.now))
    else:
        net.handle(node, node.peer.say(text, net.now))


def chatty_match(seed: int, loss: float, script: dict[int, list[str]], passphrase: str | None = None,
                 bot: str = "random") -> SimNet:
    """A 3-peer SCOUT match in which node ``i`` says ``script[i]``, one line every 0.3 s."""
    net = SimNet(seed, Faults(loss=loss, dup=loss / 2, reorder=loss))
    nodes = build(net, scout.Config(players=3), 3, 0, passphrase=passphrase, auto=bot, bots=bot)
    assert net.run(lambda: all(n.peer is not None and n.peer.table.match for n in nodes), limit=60)
    for step in range(max(len(s) for s in script.values())):
        for i, said in script.items():
            if step < len(said):
                talk(net, nodes[i], said[step])
        net.run_for(0.3)
    assert net.run(lambda: all_over(net), limit=1200), "the match did not finish"
    check_replicas(net)
    return net


def test_talk_reaches_every_machine_in_the_log_s_order_under_loss() -> None:
    script = {0: ["hello all", "/gg"], 1: ["hi!", "/thinking", "nice one"], 2: ["/hi"]}
    net = chatty_match(3, 0.2, script, passphrase="open sesame")
    said = [lines(n) for n in net.nodes.values()]
    assert said[0] == said[1] == said[2] and len(said[0]) == 6
    assert {"p0: hello all", "p1: hi!", "p1 is thinking...", "p2 waves hello"} <= set(said[0])
    peer = next(iter(net.nodes.values())).peer
    assert peer is not None
    in_log = [e.decoded.kind for e in peer.log[:peer.commit_index] if e.decoded.kind in chat.KINDS]
    assert len(in_log) == 6


def test_talk_changes_no_match_result() -> None:
    """The same seeds with and without talk (deterministic players: a random bot's draws depend on
    how often it was asked, which timing decides, talk or not)."""
    quiet = chatty_match(5, 0.1, {0: []}, bot="heuristic")
    loud = chatty_match(5, 0.1, {0: ["a", "b", "/wow"], 1: ["c", "/oops"], 2: ["d"] * 3}, bot="heuristic")
    results = []
    for net in (quiet, loud):
        peer = next(iter(net.nodes.values())).peer
        assert peer is not None and peer.table.match is not None
        results.append((peer.table.digest(), peer.table.match.scores()))
    assert results[0] == results[1]
    assert len(lines(next(iter(loud.nodes.values())))) == 8


def test_a_flood_is_bounded_alike_on_every_machine_and_the_match_finishes() -> None:
    """A modified member proposes 40 lines at once, and so does the sequencer (whose own
    entries go in the log unchecked, to be refused by every machine when applied)."""
    net = SimNet(8, Faults(loss=0.1, dup=0.05, reorder=0.1))
    nodes = build(net, scout.Config(players=3), 3, 0)
    assert net.run(lambda: all(n.peer is not None and n.peer.table.match for n in nodes), limit=60)
    for node in (nodes[0], nodes[2]):
        assert node.peer is not None
        for i in range(40):
            node.peer._propose(["say", f"spam {i}"])
        net.handle(node, node.peer.timer(net.now))
    assert net.run(lambda: all_over(net), limit=1200), "the match did not finish"
    check_replicas(net)
    said = [lines(n) for n in nodes]
    assert said[0] == said[1] == said[2]
    host = nodes[0].peer
    assert host is not None
    for node in (nodes[0], nodes[2]):
        name = node.name
        shown = [s for s in said[0] if s.startswith(f"{name}: spam")]
        assert chat.BURST <= len(shown) < 40  # some lines, bounded
        refused = [d for d in node.kinds("refused") if d["kind"] == "say"]
        assert len(refused) == 40 - len(shown)
        assert all(d["reason"].startswith(f"{chat.BURST} lines in a row") for d in refused)
    # the sequencer's excess lines are in the log and refused by every machine when applied
    verdicts = [[(d["index"], d["ok"]) for d in n.kinds("applied") if d["kind"] == "say"] for n in nodes]
    assert verdicts[0] == verdicts[1] == verdicts[2] and any(not ok for _, ok in verdicts[0])
    replayed = TableState()
    accepted = 0
    for entry in host.log[:host.commit_index]:
        accepted += replayed.apply(entry).ok and entry.decoded.kind == "say"
    assert accepted == sum(1 for s in said[0] if ": spam" in s)
