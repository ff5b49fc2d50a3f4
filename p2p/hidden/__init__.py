"""Hidden hands with no dealer (docs/hidden-hands.md): a joint deal of encrypted cards on the
prime-order subgroup of Ed25519, opened slot by slot for their holders only, audited from the
members' seeds at the round's end. Sans-I/O: bytes and numbers in, bytes and numbers out.

Modules, one concern each: ``group`` (points, scalars, card points), ``member`` (a member's seed
and the secrets it derives), ``deal`` (the shuffle and lock steps), ``dealing`` (one machine's part
in a deal: what it logs and sends), ``decks`` (the canonical decks by name), ``opening`` (a holder's private
opening, the public proof of a played card), ``bundles`` (the signed key bundles a ``SECRET``
message carries), ``escrow`` (a seed's shares for a takeover), ``audit`` (the round's check from
the revealed seeds), ``payloads`` (the log payloads, byte for byte).
"""
