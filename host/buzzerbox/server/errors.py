"""The server plumbing's errors, under the one root (buzzerbox/errors.py)."""

from __future__ import annotations

from buzzerbox.errors import InputError


class BadBodyError(InputError):
    """The request body is not what the endpoint takes: answered with 400."""


class TooLargeError(InputError):
    """A body over its endpoint's size: answered with 413."""
