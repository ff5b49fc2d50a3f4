"""The table without a server: wire codec, identities, stores, the table state machine,
the sans-I/O ``Peer`` and a simulated LAN (docs/protocol.md)."""
