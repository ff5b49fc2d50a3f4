"""The engine's narrow error classes."""


class IllegalAction(ValueError):
    """An action that the rules do not allow now; the message says why."""


class ParseError(ValueError):
    """Text that is not a card, an action or a config in the documented notation."""
