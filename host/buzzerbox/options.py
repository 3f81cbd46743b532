"""The options every server command shares (`buzzerbox serve`, `buzzerbox hub`).

Where it listens, where it keeps its files, and its admin PIN: one wording, one
meaning, whichever server it is. No Flask here: `buzzerbox --help` builds every
parser.
"""

from __future__ import annotations

import argparse
from pathlib import Path

ALL_ADDRESSES = "0.0.0.0"


def add_server_options(
    parser: argparse.ArgumentParser, *, port: int, data: str, with_defaults: bool
) -> None:
    """--host, --port, --data (`data`: what the folder holds), --pin. `with_defaults`:
    argparse fills in the host and `port`; else they stay None (for a config file's
    values to come between, as `buzzerbox serve` does)."""
    parser.add_argument(
        "--host",
        default=ALL_ADDRESSES if with_defaults else None,
        help=f"address to listen on (default {ALL_ADDRESSES}: all)",
    )
    parser.add_argument(
        "--port", type=int, default=port if with_defaults else None, help=f"port (default {port})"
    )
    parser.add_argument("--data", type=Path, help=data)
    parser.add_argument(
        "--pin",
        type=pin_text,
        help="the admin PIN, kept in the data folder for later starts "
        "(default: the kept one, or a new one)",
    )


def pin_text(text: str) -> str:
    """--pin's value with its spaces taken out; a blank one is refused."""
    pin = "".join(text.split())
    if not pin:
        raise argparse.ArgumentTypeError(
            "the PIN is blank: give digits (e.g. --pin 48213907), or leave --pin out "
            "for the kept one"
        )
    return pin
