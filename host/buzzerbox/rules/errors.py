"""Errors of the rules engine.

Split by kind, as in python-chess: an *invalid* event is malformed (a field missing,
a seat that does not exist); an *illegal* one is well formed but the rules forbid it
now (two empty Ligretto stacks). Every message names the subject, the value and
what is allowed, so it can be shown to a player as it is.

The root, `BuzzerboxError`, is buzzerbox's (buzzerbox/errors.py): the one module of
ours outside rules/ that the rules import.
"""

from buzzerbox.errors import BuzzerboxError


class InvalidEventError(BuzzerboxError, ValueError):
    """The event is malformed: it is not something the game log can say."""


class IllegalEventError(BuzzerboxError, ValueError):
    """The event is well formed, but the rules refuse it in the game's current state."""
