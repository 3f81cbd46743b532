"""buzzerbox: a buzzer box for real-time card games that decides who was first, in µs."""

from buzzerbox.errors import BuzzerboxError

__all__ = ["BuzzerboxError"]
__version__ = "0.1.0"
