"""The one error root of buzzerbox, for every layer (it lives in the pure core)."""

from buzzerbox.rules.errors import BuzzerboxError, IllegalEventError, InvalidEventError

__all__ = ["BuzzerboxError", "IllegalEventError", "InvalidEventError"]
