"""Commands of this area (filled in by its issue)."""

import argparse
from typing import Any


def add_commands(sub: "argparse._SubParsersAction[Any]") -> None:
    """Add this area's sub-commands to the `buzzerbox` parser."""
