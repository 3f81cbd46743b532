"""`buzzerbox replay FILE`: print the state a game log leads to."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from buzzerbox import rules
from buzzerbox.rules import InvalidEventError, replay_state

#: where the contracts of the rules live, shipped with the package
CONTRACT = Path(rules.__file__).parent


def add_commands(sub: argparse._SubParsersAction[Any]) -> None:
    cmd = sub.add_parser(
        "replay",
        help="print the state a game log (JSON lines) leads to",
        description="Replay a game log and print the resulting state as one JSON object. "
        f"The log's format (version 1.1) and the state: {CONTRACT / 'game-log.md'}; "
        f"the rules of the four games: {CONTRACT / 'games.md'}.",
    )
    cmd.add_argument("file", help="a game log, version 1.1 (JSON lines); - for standard input")
    cmd.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        if args.file == "-":
            lines = sys.stdin.buffer.read().splitlines()
        else:
            with open(args.file, "rb") as f:
                lines = f.read().splitlines()
    except OSError as exc:
        print(f"buzzerbox replay: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        state = replay_state(lines)
    except InvalidEventError as exc:
        print(f"buzzerbox replay: {args.file}: {exc}", file=sys.stderr)
        return 2
    json.dump(state, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0
