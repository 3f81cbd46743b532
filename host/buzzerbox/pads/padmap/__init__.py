"""The pad map: which contact is which pad (a TOML file). `load.py` reads and checks
it, `testline.py` its [test_line] table, `spec.py` is what it holds, `tomllines.py`
finds a table's line for the messages."""

from buzzerbox.pads.pad import Pad
from buzzerbox.pads.padmap.load import load_pad_map, parse_pad_map
from buzzerbox.pads.padmap.spec import ROLES, BoardSpec, GpioSettings, PadMap

__all__ = ["ROLES", "BoardSpec", "GpioSettings", "Pad", "PadMap", "load_pad_map", "parse_pad_map"]
