"""The server plumbing's errors, under the one root (buzzerbox/errors.py)."""

from __future__ import annotations

from buzzerbox.errors import InputError


class BadBody(InputError):
    """The request body is not what the endpoint takes: answered with 400."""
