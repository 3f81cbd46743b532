"""The `buzzerbox` command: one sub-command per job, each area adds its own."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from buzzerbox import __version__

# Each area that has commands gives `add_commands(subparsers)` in the module named
# here; a command sets `func(args) -> int` as its default and returns the exit code.
AREAS = [
    "buzzerbox.replay_command",
    "buzzerbox.pads.commands",
    "buzzerbox.serve",
    "buzzerbox.flash",
    "buzzerbox.appliance.commands",
    "buzzerbox.hub.commands",
    "buzzerbox.hub.venue",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="buzzerbox",
        description="A buzzer box for Ligretto, Ligretto Twist, Ligretto Kids and Twin It!",
    )
    parser.add_argument("--version", action="version", version=f"buzzerbox {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in AREAS:
        importlib.import_module(name).add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
