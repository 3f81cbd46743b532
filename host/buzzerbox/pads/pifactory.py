"""Choosing the Pi's pin factory: lgpio (Pi 5 included), and only on a Pi.

Kept apart from `gpio.py`, whose `GpioPads` takes any factory and never
imports a backend. Elsewhere (no Pi, no lgpio) a clear `GpioUnavailableError`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from buzzerbox.pads.errors import GpioUnavailableError

MODEL = Path("/proc/device-tree/model")


def pi_model(model_path: Path = MODEL) -> str | None:
    """The board's model string ("Raspberry Pi 5 Model B Rev 1.0"), or None."""
    try:
        return model_path.read_bytes().rstrip(b"\0\n").decode("ascii", "replace")
    except OSError:
        return None


def open_pi_factory(*, model_path: Path = MODEL) -> Any:
    """gpiozero's lgpio pin factory for this Pi; GpioUnavailableError elsewhere."""
    model = pi_model(model_path)
    if model is None or not model.startswith("Raspberry Pi"):
        seen = f"this machine is {model!r}" if model else f"{model_path} says no model"
        raise GpioUnavailableError(
            f"GPIO pads need a Raspberry Pi: {seen}; use pad boards (--board URL) instead"
        )
    try:
        from gpiozero.pins.lgpio import LGPIOFactory
    except ImportError as exc:
        raise GpioUnavailableError(
            f"GPIO pads need the lgpio pin factory on {model}, but lgpio cannot be imported "
            f"({exc}): install python3-lgpio, or pip install 'buzzerbox[pi]'"
        ) from exc
    try:
        return LGPIOFactory()
    except Exception as exc:
        raise GpioUnavailableError(
            f"the lgpio pin factory cannot open the GPIO chip on {model}: {exc} "
            "(is this user in the gpio group?)"
        ) from exc
