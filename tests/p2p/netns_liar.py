"""A modified ``cardtable``: run as ``host``, it equivocates once the match is under way.

tests/p2p/test_netns_members.py runs it in a namespace in place of ``cardtable host``. Once
its table is playing and ``FORK_AFTER`` entries are committed, while it is the sequencer, it
shows the first member that joined a second history from its next entry on
(``tests.p2p.members.SecondHistory``: its own entry there, every later one signed again over
that chain), and takes every answer as matching. Everything else is the real program.
"""

from __future__ import annotations

import sys
from typing import Any

from cardtable.cli.main import main
from cardtable.p2p.peer import Output, Peer
from cardtable.p2p.peer_state import LEADER
from tests.p2p.members import SecondHistory, pretend_every_answer_matches

FORK_AFTER = 20
_finish = Peer._finish


def finish(self: Any) -> Output:
    out = _finish(self)
    second = getattr(self, "second_history", None)
    if second is None and self.role == LEADER and self.table.phase == "playing" \
            and self.commit_index >= FORK_AFTER and len(self.roster.members) > 1:
        victim = list(self.roster.members)[1]
        second = self.second_history = SecondHistory(self, self.identity, victim, len(self.log) + 1)
        pretend_every_answer_matches(self)
        print(f"equivocating from entry {second.fork}", file=sys.stderr, flush=True)
    if second is not None:
        to = self.addrs.get(second.victim)
        out.send = [(second.rewrite(data) if addr == to else data, addr) for data, addr in out.send]
    return out


if __name__ == "__main__":
    Peer._finish = finish  # type: ignore[method-assign]
    sys.argv = ["cardtable", *sys.argv[1:]]
    main()
