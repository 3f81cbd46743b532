"""Errors of the rules engine.

Split by kind, as in python-chess: an *invalid* event is malformed (a field missing,
a seat that does not exist); an *illegal* one is well formed but the rules forbid it
now (two empty Ligretto stacks). Every message names the subject, the value and
what is allowed, so it can be shown to a player as it is.
"""


class BuzzerboxError(Exception):
    """The root of every error buzzerbox raises on purpose.

    `subject` names what the refusal is about where that is one thing a page can
    point at: a player's name for a count, or a field of the event.
    """

    def __init__(self, message: str = "", *, subject: str | None = None) -> None:
        super().__init__(message)
        self.subject = subject


class InvalidEventError(BuzzerboxError, ValueError):
    """The event is malformed: it is not something the game log can say."""


class IllegalEventError(BuzzerboxError, ValueError):
    """The event is well formed, but the rules refuse it in the game's current state."""
