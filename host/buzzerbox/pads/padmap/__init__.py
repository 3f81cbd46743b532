"""The pad map: which contact is which pad (a TOML file). `load.py` reads and checks
it, `testline.py` its [test_line] table, both with `reading.py`'s checks of a value
(each refusal names its line, which `tomllines.py` finds); `spec.py` is what it holds."""

from buzzerbox.pads.pad import Pad
from buzzerbox.pads.padmap.load import load_pad_map, parse_pad_map
from buzzerbox.pads.padmap.spec import ROLES, BoardSpec, GpioSettings, PadMap

__all__ = ["ROLES", "BoardSpec", "GpioSettings", "Pad", "PadMap", "load_pad_map", "parse_pad_map"]
