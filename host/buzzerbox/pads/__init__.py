"""Pads in: every press reaches the rules with the time its contact closed, on one
host timeline (CLOCK_MONOTONIC, µs), in true order, whatever path it took.

The box uses `PadSources` (boards over serial, GPIO pads), which hands out
`Edge`, `BoardStatusChanged` and `FramesLost` events; `load_pad_map` says what
each pad is (role, seat, pile, light). See README.md in this folder.
"""

from buzzerbox.pads.errors import (
    FakeBoardCommandError,
    FrameError,
    GpioUnavailableError,
    PadMapError,
    PadNotFoundError,
    PadsError,
)
from buzzerbox.pads.pad import Pad
from buzzerbox.pads.padmap import PadMap, load_pad_map, parse_pad_map
from buzzerbox.pads.timeline.arbiter import (
    GPIO,
    Arbiter,
    BoardStatusChanged,
    Edge,
    FramesLost,
    PadEvent,
)

__all__ = [
    "GPIO",
    "Arbiter",
    "BoardStatusChanged",
    "Edge",
    "FakeBoardCommandError",
    "FrameError",
    "FramesLost",
    "GpioUnavailableError",
    "Pad",
    "PadEvent",
    "PadMap",
    "PadMapError",
    "PadNotFoundError",
    "PadsError",
    "load_pad_map",
    "parse_pad_map",
]
